import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { externalOnlyLookup } from '../../src/engine/webhooks/address-rules';
import { openHarness, type Harness } from '../helpers/harness';
import { startReceiver, type Receiver } from '../helpers/receiver';

/**
 * Server-side request forgery through webhook URLs: a production account never posts to this
 * machine or to link-local addresses (a cloud host's metadata service), whether the URL names
 * them, an account moves to production with such an endpoint, or a name resolves to them.
 */
let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: 1_500, retryBaseMs: 1_000 } });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

type Err = { code: string };

/** This machine's own addresses on its network interfaces, other than loopback and link-local ones (eth0's...). */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((i) => !i.internal && !/^(fe80:|169\.254\.)/i.test(i.address))
    .map((i) => i.address);
}
const own = interfaceAddresses();
const ownV4 = own.find((a) => isIP(a) === 4);
const inUrl = (a: string) => (isIP(a) === 6 ? `[${a}]` : a);

describe('webhook endpoints of a production account', () => {
  it('refuses URLs naming this machine or a link-local address; a private network address is allowed', async () => {
    await h.t.engine.account.update({ environment: 'production' });
    try {
      for (const url of ['https://localhost/hook', 'https://127.0.0.1/hook', 'https://127.9.9.9:8443/hook', 'https://[::1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://169.254.169.254/latest/meta-data', 'https://0.0.0.0/hook', 'https://2130706433/hook', 'https://shop.localhost/hook', 'https://[fe80::1]/hook', 'https://[fd00:ec2::254]/latest/meta-data', 'https://100.100.100.200/latest/meta-data']) {
        const res = await h.api.post<Err>('/api/account/webhooks', { url });
        expect([res.status, res.body.code], url).toEqual([400, 'webhook_url_internal']);
      }
      for (const url of ['https://10.20.30.40/hook', 'https://[fd00:ec2::1]/hook', 'https://100.100.100.201/hook']) {
        const lan = await h.api.post<{ endpoint: { id: string } }>('/api/account/webhooks', { url });
        expect(lan.status, url).toBe(201);
        expect((await h.api.delete(`/api/account/webhooks/${lan.body.endpoint.id}`)).status).toBeLessThan(300);
      }
    } finally {
      await h.t.engine.account.update({ environment: 'sandbox' });
    }
  });

  it('an endpoint on this machine saved in the sandbox gets nothing once the account is in production', async () => {
    const made = await h.api.post<{ endpoint: { id: string } }>('/api/account/webhooks', { url: rx.url, events: ['customer.created'] });
    expect(made.status).toBe(201);
    expect((await h.api.post('/api/imports/customer', { identifier: 'C-SANDBOX', name: 'Before' })).status).toBe(201);
    await h.t.engine.webhooks.drain();
    expect(rx.received).toHaveLength(1);

    await h.t.engine.account.update({ environment: 'production' });
    try {
      expect((await h.api.post('/api/imports/customer', { identifier: 'C-PROD', name: 'After' })).status).toBe(201);
      await h.t.engine.webhooks.drain();
      expect(rx.received).toHaveLength(1);
      const log = await h.api.get<{ webhook_responses: Array<{ error: string | null }> }>(`/api/developers/webhook_responses?limit=1&endpoint=${made.body.endpoint.id}`);
      expect(log.body.webhook_responses[0]?.error).toMatch(/EADDRNOTALLOWED/);
    } finally {
      await h.t.engine.account.update({ environment: 'sandbox' });
    }
  });

  it("refuses to connect when a host name resolves to this machine (a name re-pointed after it was saved)", async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => externalOnlyLookup('localhost', {}, (err) => resolve(err)));
    expect(error?.code).toBe('EADDRNOTALLOWED');
  });
});

describe("webhook endpoints at this machine's own interface addresses (a service on 0.0.0.0 answers there too)", () => {
  it.skipIf(!own.length)(`refuses a URL naming one of them in production (${own.join(', ')})`, async () => {
    await h.t.engine.account.update({ environment: 'production' });
    try {
      for (const a of own) {
        const res = await h.api.post<Err>('/api/account/webhooks', { url: `https://${inUrl(a)}:8443/hook` });
        expect([res.status, res.body.code], a).toEqual([400, 'webhook_url_internal']);
      }
    } finally {
      await h.t.engine.account.update({ environment: 'sandbox' });
    }
  });

  it.skipIf(!ownV4)("a listener on 0.0.0.0 gets nothing through the machine's own address once the account is in production", async () => {
    const wide = await startReceiver('/hooks', '0.0.0.0');
    try {
      const url = `http://${ownV4}:${new URL(wide.url).port}/hooks`;
      const made = await h.api.post<{ endpoint: { id: string } }>('/api/account/webhooks', { url, events: ['customer.created'] });
      expect(made.status).toBe(201);
      // The sandbox reaches it: the address does lead to the listener.
      expect((await h.api.post('/api/imports/customer', { identifier: 'C-OWN-SANDBOX', name: 'Before' })).status).toBe(201);
      await h.t.engine.webhooks.drain();
      expect(wide.received).toHaveLength(1);

      await h.t.engine.account.update({ environment: 'production' });
      try {
        expect((await h.api.post('/api/imports/customer', { identifier: 'C-OWN-PROD', name: 'After' })).status).toBe(201);
        await h.t.engine.webhooks.drain();
        expect(wide.received).toHaveLength(1);
        const log = await h.api.get<{ webhook_responses: Array<{ error: string | null }> }>(`/api/developers/webhook_responses?limit=1&endpoint=${made.body.endpoint.id}`);
        expect(log.body.webhook_responses[0]?.error).toMatch(/EADDRNOTALLOWED/);
      } finally {
        await h.t.engine.account.update({ environment: 'sandbox' });
        await h.api.delete(`/api/account/webhooks/${made.body.endpoint.id}`);
      }
    } finally {
      await wide.close();
    }
  });

  it.skipIf(!own.length)('refuses to connect when a host name resolves to one of them', async () => {
    for (const a of own) {
      const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => externalOnlyLookup(a, {}, (err) => resolve(err)));
      expect(error?.code, a).toBe('EADDRNOTALLOWED');
    }
  });
});
