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
    super(`upstream answered ${status}: ${body.slice(0, 300)}`);
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
    const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: auth, accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) }, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403 && res.status !== 429) throw new UpstreamRefused(res.status, text);
    if (!res.ok) throw new Error(`upstream answered ${res.status}: ${text.slice(0, 200)}`);
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
