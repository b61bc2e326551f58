import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { openHarness, type Harness } from '../helpers/harness';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { uid } from '../helpers/receivables';

let h: Harness;
let fast: Receiver;
let slow: Receiver;

beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: 1_500, retryBaseMs: 1_000 } });
  fast = await startReceiver();
  slow = await startReceiver();
});
afterAll(async () => {
  await fast.close();
  await slow.close();
  await h.close();
});

type Err = { code: string };
type Endpoint = { id: string; url: string; events: string[]; enabled: boolean; concurrency: number };

describe('webhook settings', () => {
  it('refuses URLs that are not http(s), carry credentials or have a fragment, and unknown kinds', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://example.test/hook' }, 'invalid_webhook_url'],
      [{ url: 'not a url' }, 'invalid_webhook_url'],
      [{ url: 'https://user:pass@example.test/hook' }, 'webhook_url_credentials'],
      [{ url: 'https://example.test/hook#x' }, 'invalid_webhook_url'],
    ];
    for (const [body, code] of cases) {
      const res = await h.api.post<Err>('/api/account/webhooks', body);
      expect([res.status, res.body.code]).toEqual([400, code]);
    }
    const unknown = await h.api.post<Err>('/api/account/webhooks', { url: 'https://example.test/hook', events: ['lane.status'] });
    expect(unknown.status).toBe(400);
    expect((await h.api.get<{ endpoints: unknown[] }>('/api/account/webhooks')).body.endpoints).toEqual([]);
  });

  it('a production account delivers over https only', async () => {
    await h.t.engine.account.update({ environment: 'production' });
    try {
      const res = await h.api.post<Err>('/api/account/webhooks', { url: 'http://example.test/hook' });
      expect([res.status, res.body.code]).toEqual([400, 'webhook_url_insecure']);
    } finally {
      await h.t.engine.account.update({ environment: 'sandbox' });
    }
  });

  it('changing endpoints and the key needs the credentials scope; reading them, the settings scope', async () => {
    const who = (await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami')).body.whoami;
    const bearer = `Bearer ${Object.values(who)[0]!.jwt}`;
    // A screen's default JWT (api) does not read the endpoints: their URLs may carry a receiver's secret.
    expect((await h.api.get('/api/account/webhooks', bearer)).status).toBe(403);
    const settings = (await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami?options[jwt_scope]=api%20settings')).body.whoami;
    expect((await h.api.get('/api/account/webhooks', `Bearer ${Object.values(settings)[0]!.jwt}`)).status).toBe(200);
    expect((await h.api.post<Err>('/api/account/webhooks', { url: fast.url }, bearer)).status).toBe(403);
    expect((await h.api.post<Err>('/api/account/webhooks/signing_key', {}, bearer)).status).toBe(403);
    expect((await h.api.post('/api/account/webhooks', { url: fast.url }, null)).status).toBe(401);
  });

  it('rolls the signing key: shown once, the new one signs from then on, sealed at rest', async () => {
    const made = await h.api.post<{ endpoint: Endpoint; signing_key: string }>('/api/account/webhooks', { url: fast.url, events: ['customer.created'] });
    const first = made.body.signing_key;
    const rolled = await h.api.post<{ signing_key: string; hint: string }>('/api/account/webhooks/signing_key', {});
    expect(rolled.status).toBe(201);
    expect(rolled.body.signing_key).not.toBe(first);
    // A second endpoint does not show the key again.
    const second = await h.api.post<{ signing_key?: string }>('/api/account/webhooks', { url: slow.url, events: ['customer.created'] });
    expect(second.body.signing_key).toBeUndefined();
    await h.api.delete(`/api/account/webhooks/${(second.body as { endpoint: Endpoint }).endpoint.id}`);
    await h.api.post('/api/imports/customer', { identifier: uid('C'), name: 'Signed with the new key' });
    await h.t.engine.webhooks.drain();
    const { signatureOf } = await import('../../src/engine/webhooks');
    const got = fast.received.at(-1)!;
    expect(got.headers['x-service-signature']).toBe(signatureOf(rolled.body.signing_key, got.body));
    expect(readFileSync(`${h.t.dir}/laneway.sqlite`).includes(Buffer.from(rolled.body.signing_key))).toBe(false);
    await h.api.delete(`/api/account/webhooks/${made.body.endpoint.id}`);
  });

  it('PATCH changes an endpoint, DELETE removes it (404 after)', async () => {
    const made = (await h.api.post<{ endpoint: Endpoint }>('/api/account/webhooks', { url: fast.url })).body.endpoint;
    expect(made.events.length).toBe(12);
    const patched = await h.api.patch<Endpoint>(`/api/account/webhooks/${made.id}`, { events: ['invoice.created'], concurrency: 4, description: 'ERP' });
    expect(patched.body).toMatchObject({ events: ['invoice.created'], concurrency: 4 });
    expect((await h.api.patch<Err>(`/api/account/webhooks/${made.id}`, { url: 'gopher://x' })).status).toBe(400);
    expect((await h.api.delete(`/api/account/webhooks/${made.id}`)).status).toBe(200);
    expect((await h.api.delete<Err>(`/api/account/webhooks/${made.id}`)).status).toBe(404);
  });

  it('a slow endpoint holds back neither another endpoint nor the API', async () => {
    slow.script([], 'hang');
    const a = (await h.api.post<{ endpoint: Endpoint }>('/api/account/webhooks', { url: slow.url, events: ['customer.created'] })).body.endpoint;
    const b = (await h.api.post<{ endpoint: Endpoint }>('/api/account/webhooks', { url: fast.url, events: ['customer.created'] })).body.endpoint;
    const before = fast.received.length;
    for (let i = 0; i < 5; i++) {
      const res = await h.api.post('/api/imports/customer', { identifier: uid('C'), name: `Customer ${i}` });
      expect(res.status).toBe(201);
    }
    await fast.waitFor(before + 5, 5_000);
    expect(slow.received.length).toBe(1); // strict order: its first delivery is still waiting to time out
    await h.api.delete(`/api/account/webhooks/${a.id}`);
    await h.api.delete(`/api/account/webhooks/${b.id}`);
  });
});
