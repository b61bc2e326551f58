import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
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

const DEFAULT_PORT: Record<string, number> = { http: 80, https: 443 };

/**
 * A site as a browser names its origin (and so as a page's Origin header and frame-ancestors
 * compare it): scheme and host in lower case, the scheme's default port left out (`:443` on
 * https, `:80` on http), no slash after it. `https://Shop.Example:443` and `https://shop.example`
 * are one site. A port outside 1 to 65535 is answered as `port` for the caller to refuse.
 */
export function normalizeOrigin(origin: string): { origin: string; badPort?: string } {
  const m = /^(https?):\/\/([^/:]+)(?::([0-9]+|\*))?\/*$/i.exec(origin.trim());
  if (!m) return { origin: origin.trim().toLowerCase().replace(/\/+$/, '') };
  const scheme = m[1]!.toLowerCase();
  const host = m[2]!.toLowerCase();
  const port = m[3] === undefined || m[3] === '*' ? m[3] : Number(m[3]);
  if (typeof port === 'number' && (port < 1 || port > 65535)) return { origin: `${scheme}://${host}:${m[3]!}`, badPort: m[3]! };
  const shown = port === undefined || port === DEFAULT_PORT[scheme] ? '' : `:${port}`;
  return { origin: `${scheme}://${host}${shown}` };
}

/** The sites listed, each as normalizeOrigin names it and once (the first place it is listed). */
const sitesOf = (origins: readonly string[]) => [...new Set(origins.map((o) => normalizeOrigin(o).origin))];

export async function readSettings(reader: Tx | EngineCore): Promise<EcommerceSettingsData> {
  const data = (await getRecord<EcommerceSettingsData>(reader, KIND, KEY))?.data ?? { allowedOrigins: [] };
  // A list stored before sites were normalized may name one twice (https://shop.example:443): read as one.
  return { allowedOrigins: sitesOf(data.allowedOrigins) };
}

/**
 * The sites allowed, replaced: each stored as its origin (normalizeOrigin), a site listed twice
 * however written kept once, and a port no site can have refused, naming its entry.
 */
export async function writeSettings(tx: Tx, settings: EcommerceSettingsData): Promise<EcommerceSettingsData> {
  settings.allowedOrigins.forEach((o, i) => {
    const { badPort } = normalizeOrigin(o);
    if (badPort !== undefined) {
      const said = `allowedOrigins.${i} has port ${badPort}, which no site has: a port is 1 to 65535 (https://shop.example:8443), or none for the usual one`;
      throw fail.invalid('invalid_origin', said, [{ field: `allowedOrigins.${i}`, code: 'invalid_origin', message: said }]);
    }
  });
  const data = { allowedOrigins: sitesOf(settings.allowedOrigins) };
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
  const o = normalizeOrigin(origin).origin;
  return patterns.some((p) => {
    if (p.endsWith(':*')) {
      const base = p.slice(0, -2);
      return o === base || (o.startsWith(`${base}:`) && /^[0-9]{1,5}$/.test(o.slice(base.length + 1)));
    }
    return o === p;
  });
}
