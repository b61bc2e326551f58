import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { externalOnlyLookup, isInternalHost } from './address-rules';

/** An endpoint's own connections, kept alive between deliveries (one pool per endpoint: no endpoint waits on another's sockets). */
export interface EndpointAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

export function endpointAgents(maxSockets: number): EndpointAgents {
  return { http: new HttpAgent({ keepAlive: true, maxSockets }), https: new HttpsAgent({ keepAlive: true, maxSockets }) };
}

export interface AttemptOutcome {
  /** The HTTP status answered; 0 when none was (refused, timed out, reset). */
  status: number;
  ok: boolean;
  latency_ms: number;
  /** The first EXCERPT_CHARS characters of the answer's body (to debug a receiver), or what went wrong. */
  excerpt: string;
  error: string | null;
}

/** Enough of an answer to see why a receiver refused; little of whatever else it answers. */
export const EXCERPT_CHARS = 200;

/** Endpoint URLs parsed once (a delivery is made thousands of times to the same few URLs). */
const parsed = new Map<string, { https: boolean; options: RequestOptions }>();

function target(url: string): { https: boolean; options: RequestOptions } {
  let hit = parsed.get(url);
  if (!hit) {
    if (parsed.size >= 256) parsed.clear();
    const u = new URL(url);
    hit = { https: u.protocol === 'https:', options: urlToHttpOptions(u) };
    parsed.set(url, hit);
  }
  return hit;
}

/**
 * One POST of a delivery. Only a 200 acknowledges it (the spec); a redirect is never followed,
 * so a 3xx fails like any other status. `timeoutMs` bounds the whole exchange, connect to last
 * byte. Latency is measured on the process's monotonic clock: it is a duration, not a time of day.
 */
export function postOnce(url: string, body: Buffer, headers: Record<string, string>, timeoutMs: number, agents?: EndpointAgents, externalOnly = false): Promise<AttemptOutcome> {
  // A production account's endpoint saved before the rule, or an account moved to production.
  const host = String(target(url).options.hostname ?? '');
  if (externalOnly && isInternalHost(host)) {
    return Promise.resolve({ status: 0, ok: false, latency_ms: 0, excerpt: '', error: `EADDRNOTALLOWED: ${host} is this machine or link-local: a production account does not deliver there` });
  }
  const started = process.hrtime.bigint();
  const latency = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: Omit<AttemptOutcome, 'latency_ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...o, latency_ms: latency() });
    };
    const { https, options } = target(url);
    const req = (https ? httpsRequest : httpRequest)({
      ...options,
      method: 'POST',
      ...(externalOnly ? { lookup: externalOnlyLookup } : {}),
      headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'User-Agent': 'Laneway-Webhooks/1' },
      agent: agents ? (https ? agents.https : agents.http) : false,
    });
    const timer = setTimeout(() => {
      done({ status: 0, ok: false, excerpt: '', error: `timed out after ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < EXCERPT_CHARS * 4) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        done({ status, ok: status === 200, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS), error: status === 200 ? null : `answered ${status}` });
      });
      res.on('error', (err) => done({ status: res.statusCode ?? 0, ok: false, excerpt: '', error: err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => done({ status: 0, ok: false, excerpt: '', error: err.code ? `${err.code}: ${err.message}` : err.message }));
    req.end(body);
  });
}
