import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord, recordsOfKind } from '../records';
import type { InstallKeys } from '../security/install-keys';
import { INTERNAL_REFUSED, isInternalHost } from './address-rules';
import { isWebhookKind, WEBHOOK_KIND_NAMES } from './kinds';
import { newSigningKey, openSecret, sealSecret, type SealedSecret } from './signing';

export const ENDPOINT = 'webhook_endpoint';
export const SIGNING_KEY = 'webhook_signing_key';
const KEY_SLOT = 'current';
export const MAX_CONCURRENCY = 16;

export interface EndpointData {
  id: string;
  url: string;
  /** Event kinds it takes (see kinds.ts). */
  events: string[];
  enabled: boolean;
  description: string;
  /**
   * Deliveries in flight at once. 1 (the default) keeps the endpoint's deliveries in strict
   * watermark order, a delivery being retried holding back the ones after it; more lets
   * deliveries of different records overlap, those of one record still in order.
   */
  concurrency: number;
  created_at: string;
  updated_at: string;
  /** Why it was turned off by the service (`delivery_failed`), null when on or turned off by hand. */
  disabled_reason: string | null;
  disabled_at: string | null;
}

export interface EndpointInput {
  url?: string;
  events?: string[];
  enabled?: boolean;
  description?: string;
  concurrency?: number;
}

interface SigningKeyData extends SealedSecret {
  created_at: string;
  /** The last four characters, to tell keys apart in the settings. */
  hint: string;
}

export interface SigningKeyInfo {
  created_at: string;
  hint: string;
}

/**
 * The URL rules: http or https only; no user name or password in it (they would be stored and
 * logged in clear); production accounts deliver over https only, and never to this machine or a
 * link-local address (./address-rules.ts; checked again when a delivery connects). Redirects are never followed
 * (deliver.ts), so an answered 3xx is a failed attempt.
 */
export function checkUrl(url: string, environment: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail.invalid('invalid_webhook_url', 'The webhook URL is not a valid absolute URL', [{ field: 'url', message: 'absolute http(s) URL' }]);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw fail.invalid('invalid_webhook_url', 'A webhook URL is http or https', [{ field: 'url', message: 'http or https' }]);
  if (parsed.username || parsed.password) throw fail.invalid('webhook_url_credentials', 'A webhook URL may not carry a user name or password', [{ field: 'url', message: 'no credentials in the URL' }]);
  if (environment === 'production' && parsed.protocol !== 'https:') throw fail.invalid('webhook_url_insecure', 'A production account delivers webhooks over https only', [{ field: 'url', message: 'https required' }]);
  if (parsed.hash) throw fail.invalid('invalid_webhook_url', 'A webhook URL has no #fragment', [{ field: 'url', message: 'no fragment' }]);
  if (environment === 'production' && isInternalHost(parsed.hostname)) {
    throw fail.invalid(INTERNAL_REFUSED, 'A production account does not deliver webhooks to this machine (localhost, loopback) or to link-local addresses', [{ field: 'url', message: 'an address other machines reach' }]);
  }
  return parsed.toString();
}

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((e) => !isWebhookKind(e));
  if (unknown.length) throw fail.invalid('unknown_event_kind', `Unknown event kinds: ${unknown.join(', ')}`, [{ field: 'events', message: `among ${WEBHOOK_KIND_NAMES.join(', ')}` }]);
  return [...new Set(events)];
}

export async function listEndpoints(reader: Tx | EngineCore): Promise<EndpointData[]> {
  return (await recordsOfKind<EndpointData>(reader, ENDPOINT)).map((r) => r.data);
}

export async function getEndpoint(reader: Tx | EngineCore, id: string): Promise<EndpointData> {
  const found = (await getRecord<EndpointData>(reader, ENDPOINT, id))?.data;
  if (!found) throw fail.notFound('webhook_endpoint_not_found', `No webhook endpoint ${id}`);
  return found;
}

export async function putEndpoint(tx: Tx, data: EndpointData, type: string): Promise<EndpointData> {
  await putRecord(tx, ENDPOINT, data.id, data, { type, entity: 'webhook_endpoint', key: data.id, data: { enabled: data.enabled } });
  return data;
}

export function newEndpoint(id: string, at: string, input: EndpointInput, environment: string): EndpointData {
  if (!input.url) throw fail.invalid('invalid_webhook_url', 'url is required', [{ field: 'url', message: 'required' }]);
  return {
    id,
    url: checkUrl(input.url, environment),
    events: checkEvents(input.events ?? WEBHOOK_KIND_NAMES),
    enabled: input.enabled ?? true,
    description: input.description ?? '',
    concurrency: input.concurrency ?? 1,
    created_at: at,
    updated_at: at,
    disabled_reason: null,
    disabled_at: null,
  };
}

export function patchEndpoint(current: EndpointData, at: string, input: EndpointInput, environment: string): EndpointData {
  const next: EndpointData = { ...current, updated_at: at };
  if (input.url !== undefined) next.url = checkUrl(input.url, environment);
  if (input.events !== undefined) next.events = checkEvents(input.events);
  if (input.description !== undefined) next.description = input.description;
  if (input.concurrency !== undefined) next.concurrency = input.concurrency;
  if (input.enabled !== undefined) {
    next.enabled = input.enabled;
    next.disabled_reason = null;
    next.disabled_at = input.enabled ? null : at;
  }
  return next;
}

export async function signingKeyInfo(reader: Tx | EngineCore): Promise<SigningKeyInfo | null> {
  const data = (await getRecord<SigningKeyData>(reader, SIGNING_KEY, KEY_SLOT))?.data;
  return data ? { created_at: data.created_at, hint: data.hint } : null;
}

/** Makes a new signing key (the previous one stops signing at once); the clear key is returned only here. */
export async function rollSigningKey(tx: Tx, keys: InstallKeys): Promise<{ signing_key: string } & SigningKeyInfo> {
  const key = newSigningKey();
  const data: SigningKeyData = { ...sealSecret(keys, key), created_at: tx.at, hint: key.slice(-4) };
  await putRecord(tx, SIGNING_KEY, KEY_SLOT, data, { type: 'webhook_signing_key.rolled', entity: 'webhook_signing_key', key: KEY_SLOT, data: { hint: data.hint } });
  return { signing_key: key, created_at: data.created_at, hint: data.hint };
}

/** The clear signing key, for signing deliveries (held in memory only). */
export async function loadSigningKey(reader: Tx | EngineCore, keys: InstallKeys): Promise<string | undefined> {
  const data = (await getRecord<SigningKeyData>(reader, SIGNING_KEY, KEY_SLOT))?.data;
  return data ? openSecret(keys, data) : undefined;
}
