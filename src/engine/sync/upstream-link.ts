import { createHash } from 'node:crypto';
import type { Body, EntitySpec } from './upstream-shapes';

/**
 * The hub's calls to its upstream: HTTP Basic with the upstream's API key, JSON both ways. A
 * refusal of the record itself (a 4xx other than 401, 403 and 429) is an UpstreamRefused, which
 * replication records and goes past; anything else (no answer, 5xx, credentials, rate limit) is
 * the link's, and replication retries it from its checkpoint.
 */
export class UpstreamRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`upstream answered ${status}${reasonOf(body)}`);
  }
}

/**
 * What an answer says was wrong, for the status people read (clerks and lanes read it too): the
 * API's own error text (`{"error": ...}` or `{"message": ...}`), never an arbitrary body, so an
 * address that is no upstream (an internal service) is not read back through it.
 */
function reasonOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; code?: unknown };
    const text = typeof parsed.error === 'string' ? parsed.error : typeof parsed.message === 'string' ? parsed.message : undefined;
    if (text === undefined) return '';
    const code = typeof parsed.code === 'string' ? ` (${parsed.code})` : '';
    return `: ${[...text].map((ch) => (ch < ' ' || ch === '\u007f' ? ' ' : ch)).join('').slice(0, 200)}${code}`;
  } catch {
    return '';
  }
}

export interface UpstreamLink {
  /** Names the upstream in replication identifiers: another address starts from watermark 0. */
  peerId: string;
  call(path: string, init?: RequestInit): Promise<unknown>;
  /** A body to the entity's import operation (orders: POST, then PATCH when it exists). */
  send(entity: EntitySpec, body: Body): Promise<void>;
}

export function upstreamLink(url: string, token: string, key: string, timeoutMs: number): UpstreamLink {
  const base = url.replace(/\/$/, '');
  const auth = `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;
  const call = async (path: string, init: RequestInit = {}): Promise<unknown> => {
    // Never followed: the key would go to wherever the answer points.
    const res = await fetch(`${base}${path}`, { ...init, redirect: 'manual', headers: { authorization: auth, accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) }, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    if (res.status >= 300 && res.status < 400) throw new Error(`upstream answered ${res.status}, a redirect (not followed: set the address it names, if it is the upstream's)`);
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403 && res.status !== 429) throw new UpstreamRefused(res.status, text);
    if (!res.ok) throw new Error(`upstream answered ${res.status}${reasonOf(text)}`);
    return text ? (JSON.parse(text) as unknown) : {};
  };
  return {
    peerId: createHash('sha256').update(base).digest('hex').slice(0, 12),
    call,
    async send(entity, body) {
      try {
        await call(entity.importPath, { method: 'POST', body: JSON.stringify(body) });
      } catch (err) {
        // The order import answers the same content again as created; other content is an update.
        if (!(entity.name === 'orders' && err instanceof UpstreamRefused && err.body.includes('order_exists'))) throw err;
        await call(entity.importPath, { method: 'PATCH', body: JSON.stringify(body) });
      }
    },
  };
}
