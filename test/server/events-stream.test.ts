import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness, type TestEngine, basicAuth, type ApiClient, TEST_KEY, TEST_TOKEN } from '../helpers/harness';
import { putRecord, recordsOfKind } from '../../src/engine/records';
import { readEvents } from '../helpers/sse';

const h = useHarness({ api: true });
let t: TestEngine;
let api: ApiClient;
beforeAll(() => {
  ({ t, api } = h);
});

const note = (key: string) => t.engine.core.mutate((tx) => putRecord(tx, 'note', key, { key }, { type: 'note.updated', entity: 'note', key }));

describe('GET /api/events', () => {
  it('needs credentials', async () => {
    const res = await fetch(`${api.url}/api/events`);
    expect(res.status).toBe(401);
  });

  it('streams each change live, with its watermark as the event id', async () => {
    const controller = new AbortController();
    const res = await fetch(`${api.url}/api/events`, { headers: { Authorization: basicAuth() }, signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reading = readEvents(res, 2);
    await new Promise((r) => setTimeout(r, 50));
    const a = await note('live-a');
    const b = await note('live-b');
    const got = await reading;
    controller.abort();
    expect(got).toEqual([
      { id: a.watermark, type: 'note.updated', key: 'live-a', entity: 'note' },
      { id: b.watermark, type: 'note.updated', key: 'live-b', entity: 'note' },
    ]);
  });

  it('replays what a client missed after Last-Event-ID, then continues live, without gaps or repeats', async () => {
    const first = await note('m1');
    await note('m2');
    await note('m3');
    const controller = new AbortController();
    const res = await fetch(`${api.url}/api/events`, {
      headers: { Authorization: basicAuth(), 'Last-Event-ID': String(first.watermark) },
      signal: controller.signal,
    });
    const reading = readEvents(res, 3);
    await new Promise((r) => setTimeout(r, 50));
    await note('m4');
    const got = await reading;
    controller.abort();
    expect(got.map((e) => e.key)).toEqual(['m2', 'm3', 'm4']);
    expect(got.map((e) => e.id)).toEqual([...got.map((e) => e.id)].sort((x, y) => x - y));
  });
});

describe('GET /api/events by role', () => {
  const jwtOf = async (role: string, name: string) => {
    const made = await api.post<{ link: string }>('/api/users', { email: `sse-${role}-${name}@x.test`, role });
    return (await api.post<{ jwt: string }>('/api/session/link', { link: made.body.link, password: `${role}-Password-123!` }, null)).body.jwt;
  };
  /** The events a user's stream replays after `from`, up to the one at `last`. */
  const seen = async (jwt: string, from: number, last: number) => {
    const controller = new AbortController();
    const res = await fetch(`${api.url}/api/events`, { headers: { Authorization: `Bearer ${jwt}`, 'Last-Event-ID': String(from) }, signal: controller.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const events = () => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as { watermark: number; key: string; entity: string });
    while (!events().some((e) => e.watermark >= last)) {
      const next = await reader.read();
      if (next.done) break;
      text += next.value;
    }
    controller.abort();
    return events();
  };

  it("gives a clerk no wallet, payment-method or gift card event (their keys are tokens that charge); a manager gets them", async () => {
    const from = t.engine.core.currentWatermark();
    const wallet = await api.post<{ wallet_token: string; fund_token: string }>('/api/gateway/v1/wallets', { credit_card: { name: 'Ann Payer', card_number: '4895281000000006', expiry_month: 12, expiry_year: 2031, cvv: '123', address: { postal_code: 'K1C2N6' } } });
    expect(wallet.status).toBe(200);
    const last = await note('after-wallet');
    const clerk = await seen(await jwtOf('clerk', 'money'), from, last.watermark);
    expect(clerk.map((e) => e.key)).toContain('after-wallet');
    expect(clerk.filter((e) => ['wallet', 'fund'].includes(e.entity))).toEqual([]);
    expect(JSON.stringify(clerk)).not.toContain(wallet.body.fund_token);
    const manager = await seen(await jwtOf('manager', 'money'), from, last.watermark);
    expect(manager.map((e) => e.key)).toEqual(expect.arrayContaining([wallet.body.wallet_token, wallet.body.fund_token]));
  });

  it("gives a clerk and a cashier no checkout token or session, gift card copy, or gift card spent on a lane apart; a manager gets them", async () => {
    const from = t.engine.core.currentWatermark();
    // A checkout's session and the card its frame tokenized: the token pays, with the session.
    const session = await api.post<{ id: string }>('/api/v2/sessions', { gatewayAuthorization: { apiToken: TEST_TOKEN, apiKey: TEST_KEY }, options: {} }, null);
    const tokenized = await api.post<{ token: string }>(`/api/v2/sessions/${session.body.id}/tokens`, { type: 'creditCard', accountHolder: 'Jane Smith', accountNumber: '4895281000000006', expirationMonth: 12, expirationYear: 2030, cardVerificationValue: '123' }, null);
    expect(tokenized.status, tokenized.text).toBe(201);
    // A gift card, the lanes' copy of it, and a lane's spend of it while apart from this hub.
    const gift = await api.post<{ token: string }>('/api/gateway/v1/gift_card', { card_number: '6277000012349999', activated: 'true', load_amount_cents: 1000 });
    const copy = (await recordsOfKind<{ token: string }>(t.engine.core, 'gift_card_copy')).find((r) => r.data.token === gift.body.token)!;
    const { code } = (await api.post<{ code: string }>('/api/sync/pairing-codes', { laneid: '7' })).body;
    const grant = (await api.post<{ token: string; key: string }>('/api/sync/pair', { code }, null)).body;
    const spend = { laneid: '7', card: copy.key, last4: '9999', sale: '7-000001', tender: 'TENDER7', amount_cents: 300, currency: 'usd', token: gift.body.token, offline_since: null, at: '2026-03-02T15:00:00.000Z' };
    const pushed = await api.post<{ written: number }>('/api/sync/push/lane_records', { rows: [{ newDocumentState: { id: 'pos_offline_spend/7/TENDER7', kind: 'pos_offline_spend', key: '7/TENDER7', ref: copy.key, data: spend } }] }, basicAuth(grant.token, grant.key));
    expect(pushed.body.written).toBe(1);
    // The last event: one of the register's, which a cashier's stream carries too.
    expect((await api.post('/api/pos/products', { code: 'AFTER1', description: 'After', price_cents: 100, tax_rate: 0, category: 'Shop' })).status).toBe(201);
    const last = { watermark: t.engine.core.currentWatermark() };

    const hidden = ['ecommerce_session', 'ecommerce_token', 'gift_card', 'gift_card_copy', 'pos_offline_spend'];
    for (const role of ['clerk', 'cashier']) {
      const events = await seen(await jwtOf(role, 'checkout'), from, last.watermark);
      expect(events.filter((e) => hidden.includes(e.entity)), role).toEqual([]);
      for (const token of [tokenized.body.token, session.body.id, gift.body.token]) expect(JSON.stringify(events), role).not.toContain(token);
    }
    const manager = await seen(await jwtOf('manager', 'checkout'), from, last.watermark);
    for (const entity of hidden) expect(manager.map((e) => e.entity)).toContain(entity);
    expect(manager.map((e) => e.key)).toEqual(expect.arrayContaining([tokenized.body.token, '7/TENDER7']));
  });
});

describe('GET /api/events after its credential is taken away', () => {
  /** The keys of the events a stream sends until it ends, or until `ms` passed (then `ended` is false). */
  async function keysUntilEnd(res: Response, ms: number): Promise<{ keys: string[]; ended: boolean }> {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms));
    for (;;) {
      const next = await Promise.race([reader.read(), timer]);
      if (next === 'timeout') {
        await reader.cancel();
        return { keys: [...text.matchAll(/"key":"([^"]+)"/g)].map((m) => m[1]!), ended: false };
      }
      if (next.done) return { keys: [...text.matchAll(/"key":"([^"]+)"/g)].map((m) => m[1]!), ended: true };
      text += next.value;
    }
  }

  it("ends a user's open stream when the user is disabled, and an API credential's when it is disabled", async () => {
    const made = await api.post<{ user: { id: string }; link: string }>('/api/users', { email: 'sse-clerk@x.test', role: 'clerk' });
    const session = await api.post<{ jwt: string }>('/api/session/link', { link: made.body.link, password: 'Clerk-password-123!' }, null);
    const cred = await t.engine.account.credentials.create({ name: 'sse' });
    const who = await api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami', basicAuth(cred.token, cred.key));
    const streams = await Promise.all(
      [`Bearer ${session.body.jwt}`, `Bearer ${who.body.whoami[cred.token]!.jwt}`].map((auth) => fetch(`${api.url}/api/events`, { headers: { Authorization: auth } })),
    );
    for (const s of streams) expect(s.status).toBe(200);
    const reading = streams.map((s) => keysUntilEnd(s, 3000));
    await new Promise((r) => setTimeout(r, 50));
    await note('before-disable');
    expect((await api.patch(`/api/users/${made.body.user.id}`, { enabled: false })).status).toBe(200);
    expect((await api.post(`/api/account/credentials/${cred.token}/disable`, {})).status).toBe(200);
    await note('after-disable');
    for (const got of await Promise.all(reading)) {
      expect(got.keys).toContain('before-disable');
      expect(got.keys).not.toContain('after-disable');
      expect(got.ended).toBe(true);
    }
  });
});
