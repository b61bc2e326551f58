import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { until } from '../e2e/processes';

/**
 * The hub sends its upstream key to the upstream's address and shows what went wrong to anyone
 * who reads the sync status (clerks and lanes too): an address that is no upstream (a service on
 * this machine or its network) must neither get the key through a redirect nor be read back.
 */
let h: Harness;
let internal: Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  h = await openHarness({ api: true });
  internal = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ? 'with key' : 'no key'}`);
    if (req.url?.startsWith('/redir')) {
      res.writeHead(302, { location: '/secret-after-redirect' });
      return res.end();
    }
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('INTERNAL-SECRET metadata token=abc123');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h.api.delete('/api/sync/upstream');
  await new Promise<void>((resolve) => internal.close(() => resolve()));
  await h.close();
});

type Status = { peers: Array<{ peer: string; last_error: string | null }> };
const upstreamError = async () => (await h.api.get<Status>('/api/sync/status')).body.peers.find((p) => p.peer === 'upstream')?.last_error ?? null;

describe("the upstream's address", () => {
  it('follows no redirect and never shows a body that is not the API\'s own error', async () => {
    expect((await h.api.put('/api/sync/upstream', { url: `${base}/redir?x=`, token: 't', key: 'k' })).status).toBe(200);
    await until(async () => (await upstreamError()) !== null, 'an upstream error');
    expect(await upstreamError()).toMatch(/302, a redirect/);
    expect(seen.some((s) => s.includes('/secret-after-redirect'))).toBe(false);
    expect((await h.api.put('/api/sync/upstream', { url: `${base}/plain`, token: 't', key: 'k' })).status).toBe(200);
    await until(async () => /500/.test((await upstreamError()) ?? ''), 'the 500');
    expect(await upstreamError()).not.toContain('SECRET');
  });

  it('refuses credentials in it; in production, http and this machine', async () => {
    const creds = await h.api.put<{ code: string }>('/api/sync/upstream', { url: 'https://u:p@upstream.example.test', token: 't', key: 'k' });
    expect([creds.status, creds.body.code]).toEqual([400, 'upstream_url_credentials']);
    await h.t.engine.account.update({ environment: 'production' });
    try {
      for (const [url, code] of [['http://upstream.example.test', 'upstream_url_insecure'], ['https://127.0.0.1:8443', 'upstream_url_internal'], ['https://169.254.169.254', 'upstream_url_internal'], ['https://localhost', 'upstream_url_internal']]) {
        const res = await h.api.put<{ code: string }>('/api/sync/upstream', { url, token: 't', key: 'k' });
        expect([res.status, res.body.code], url).toEqual([400, code]);
      }
    } finally {
      await h.t.engine.account.update({ environment: 'sandbox' });
    }
  });
});
