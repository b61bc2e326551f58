import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord } from '../records';

/**
 * The account's ecommerce setting: which sites may show the payment frame. It becomes the frame's
 * Content-Security-Policy `frame-ancestors`, so a page on any other origin gets no frame at all (and
 * so nothing to read or click through). The sandbox also lets pages on localhost frame it, for
 * building a shop on one's own machine.
 */
export interface EcommerceSettingsData {
  allowedOrigins: string[];
}

const KIND = 'ecommerce_settings';
const KEY = 'account';
export const SANDBOX_ORIGINS = ['http://localhost:*', 'https://localhost:*'];

export async function readSettings(reader: Tx | EngineCore): Promise<EcommerceSettingsData> {
  return (await getRecord<EcommerceSettingsData>(reader, KIND, KEY))?.data ?? { allowedOrigins: [] };
}

export async function writeSettings(tx: Tx, settings: EcommerceSettingsData): Promise<EcommerceSettingsData> {
  const data = { allowedOrigins: [...new Set(settings.allowedOrigins.map((o) => o.toLowerCase().replace(/\/+$/, '')))] };
  await putRecord(tx, KIND, KEY, data, { type: 'ecommerce_settings.updated', entity: 'ecommerce_settings', key: KEY, data });
  return data;
}

/** What an environment allows without its being set: localhost in the sandbox, nothing in production. */
export function implicitOrigins(sandbox: boolean): string[] {
  return sandbox ? [...SANDBOX_ORIGINS] : [];
}

export function allowedOrigins(settings: EcommerceSettingsData, sandbox: boolean): string[] {
  return [...new Set([...implicitOrigins(sandbox), ...settings.allowedOrigins])];
}

/** Whether a page's origin (`http://localhost:5173`) is one of the allowed origin patterns. */
export function originAllowed(origin: string, patterns: readonly string[]): boolean {
  const o = origin.toLowerCase();
  return patterns.some((p) => {
    if (p.endsWith(':*')) {
      const base = p.slice(0, -2);
      return o === base || (o.startsWith(`${base}:`) && /^[0-9]{1,5}$/.test(o.slice(base.length + 1)));
    }
    return o === p;
  });
}
