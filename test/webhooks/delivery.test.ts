import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openHarness, type Harness } from '../helpers/harness';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { uid } from '../helpers/receivables';
import type { WebhookResponse } from '../../src/shared/schemas/webhooks';

const verify = (body: Buffer, header: unknown, key: string) =>
  header === encodeURIComponent(createHmac('sha256', key).update(body).digest('base64') + '\n');

let h: Harness;
let rx: Receiver;
const TIMEOUT_MS = 1_500;

beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: TIMEOUT_MS, retryBaseMs: 1_000 } });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

type Created = { endpoint: { id: string; url: string; enabled: boolean }; signing_key?: string };
const engine = () => h.t.engine;
const drain = () => engine().webhooks.drain();
/** Moves the engine clock past any retry the backoff could have picked, then lets due work run. */
async function later(ms: number) {
  h.t.clock.advance(ms);
  await engine().tick();
  await drain();
}

describe('webhook deliveries', () => {
  let key = '';
  let endpoint = '';

  it('an endpoint added with the API makes the signing key, shown once, and gets the events after it', async () => {
    const res = await h.api.post<Created>('/api/account/webhooks', { url: rx.url, events: ['customer.created', 'customer.updated', 'invoice.created', 'invoice.updated'] });
    expect(res.status).toBe(201);
    expect(res.body.signing_key).toMatch(/^whsec_/);
    key = res.body.signing_key!;
    endpoint = res.body.endpoint.id;
    const listed = await h.api.get<{ signing_key: { hint: string } | null }>('/api/account/webhooks');
    expect(listed.text).not.toContain(key);
    expect(listed.body.signing_key?.hint).toBe(key.slice(-4));
    // Neither the database nor anything else in the data folder holds the key in clear.
    await drain();
    expect(readFileSync(`${h.t.dir}/laneway.sqlite`).includes(Buffer.from(key))).toBe(false);
  });

  it('answered 500, then a timeout, then 200: every event arrives in watermark order, signed, with its export view', async () => {
    rx.script([500, 'hang'], 200);
    const customer = uid('C');
    const number = uid('INV');
    expect((await h.api.post('/api/imports/customer', { identifier: customer, name: 'Acme Inc.' })).status).toBe(201);
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customer, amount: 1250 })).status).toBe(201);
    expect((await h.api.post('/api/imports/customer', { identifier: customer, name: 'Acme Holdings' })).status).toBe(201);

    await drain(); // first attempt: 500
    expect(rx.received).toHaveLength(1);
    await later(2_000); // second: times out
    expect(rx.received).toHaveLength(2);
    await later(5_000); // third: 200, then the rest in order
    const events = rx.received.filter((r) => r.answered === 200);
    // Every event of the kinds taken, from the engine's own stream, in its order.
    const kinds = ['customer.created', 'customer.updated', 'invoice.created', 'invoice.updated'];
    const expected = (await engine().core.eventsSince(0, 100_000)).filter((e) => kinds.includes(e.type));
    expect(events.map((r) => [r.headers['x-service-event'], Number(r.headers['x-service-watermark'])])).toEqual(expected.map((e) => [e.type, e.watermark]));
    expect(events.map((r) => r.headers['x-service-event'])).toEqual(expect.arrayContaining(['customer.created', 'invoice.created', 'customer.updated']));
    // The three attempts of the first event are one delivery, told apart by their attempt number.
    expect(new Set(rx.received.slice(0, 3).map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    expect(rx.received.slice(0, 3).map((r) => r.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
    for (const r of rx.received) expect(verify(r.body, r.headers['x-service-signature'], key)).toBe(true);
    // The body is exactly the export view (rendered when delivered: the customer's current name).
    const view = await h.api.get(`/api/exports/customer/${customer}`);
    expect(JSON.parse(events.at(-1)!.body.toString())).toEqual(view.body);
    const invoice = await h.api.get(`/api/exports/invoice/${number}`);
    expect(JSON.parse(events.find((r) => r.headers['x-service-event'] === 'invoice.created')!.body.toString())).toEqual(invoice.body);
  });

  it('logs each attempt with its time, status, latency and answer, newest first, in pages', async () => {
    const page = await h.api.get<{ webhook_responses: WebhookResponse[]; next_before: number | null }>(`/api/developers/webhook_responses?limit=3&endpoint=${endpoint}`);
    expect(page.status).toBe(200);
    const all = [...page.body.webhook_responses];
    const next = await h.api.get<{ webhook_responses: WebhookResponse[] }>(`/api/developers/webhook_responses?limit=50&before=${page.body.next_before}`);
    all.push(...next.body.webhook_responses);
    const first = all.filter((a) => a.event_type === 'customer.created').reverse();
    expect(first.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, 'retry'],
      [2, 0, 'retry'],
      [3, 200, 'delivered'],
    ]);
    expect(first[0]!.body_excerpt).toBe('answer 500');
    expect(first[1]!.error).toMatch(/timed out/);
    expect(first[1]!.latency_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(all.map((a) => a.watermark)).toEqual([...all.map((a) => a.watermark)].sort((a, b) => b - a));
  });

  it('resends a logged delivery by hand, signed with the current key', async () => {
    const [latest] = (await h.api.get<{ webhook_responses: WebhookResponse[] }>('/api/developers/webhook_responses?limit=1')).body.webhook_responses;
    const before = rx.received.length;
    const res = await h.api.post<WebhookResponse>(`/api/developers/webhook_responses/${latest!.id}/resend`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ manual: true, status: 200, outcome: 'delivered', delivery: latest!.delivery });
    expect(rx.received).toHaveLength(before + 1);
    expect(rx.received.at(-1)!.headers['x-service-delivery']).toBe(latest!.delivery);
  });

  it('a resend of a delivery still retrying is its next attempt, and once it succeeds the schedule sends it no more', async () => {
    rx.script([500], 200);
    const count = rx.received.length;
    const customer = uid('C');
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'Resent by hand' });
    await drain();
    expect(rx.received.slice(count).map((r) => [r.answered, r.headers['x-service-attempt']])).toEqual([[500, '1']]);
    const [failed] = (await h.api.get<{ webhook_responses: WebhookResponse[] }>(`/api/developers/webhook_responses?limit=1&endpoint=${endpoint}`)).body.webhook_responses;
    expect(failed).toMatchObject({ outcome: 'retry', attempt: 1 });
    // Fixed on the receiver's side; resent by hand before the scheduled retry.
    const res = await h.api.post<WebhookResponse>(`/api/developers/webhook_responses/${failed!.id}/resend`, {});
    expect(res.body).toMatchObject({ manual: true, status: 200, outcome: 'delivered', attempt: 2 });
    // Past every retry the backoff could pick: nothing more of it arrives.
    await later(10_000);
    const mine = rx.received.slice(count).filter((r) => r.headers['x-service-delivery'] === failed!.delivery);
    expect(mine.map((r) => [r.answered, r.headers['x-service-attempt']])).toEqual([[500, '1'], [200, '2']]);
  });

  it('loses nothing across a restart between attempts', async () => {
    rx.script([503], 200);
    const customer = uid('C');
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'Before restart' });
    await drain();
    expect(rx.received.at(-1)!.answered).toBe(503);
    await h.restart();
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'After restart' });
    await later(3_000);
    const got = rx.received.filter((r) => r.answered === 200 && JSON.parse(r.body.toString()).identifier === customer);
    expect(got.map((r) => r.headers['x-service-event'])).toEqual(['customer.created', 'customer.updated']);
    for (const r of got) expect(verify(r.body, r.headers['x-service-signature'], key)).toBe(true);
  });

  it('a redirect is not followed: it is a failed attempt', async () => {
    rx.script([{ status: 302, headers: { Location: `${rx.url}/elsewhere` } }], 200);
    const count = rx.received.length;
    await h.api.post('/api/imports/customer', { identifier: uid('C'), name: 'Redirected' });
    await drain();
    expect(rx.received.slice(count).map((r) => [r.answered, r.headers['x-service-attempt']])).toEqual([[302, '1']]);
    await later(3_000);
    expect(rx.received.slice(count).map((r) => r.answered)).toEqual([302, 200]);
  });

  it('after three days of failures the delivery fails and the endpoint is turned off (event and log line); on again, it resumes after it', async () => {
    rx.script([], 500);
    const count = rx.received.length;
    const customer = uid('C');
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'Never acknowledged' });
    await drain();
    for (let i = 0; i < 100 && (await h.api.get<{ endpoints: Array<{ enabled: boolean }> }>('/api/account/webhooks')).body.endpoints[0]!.enabled; i++) await later(3_600_000);
    const settings = (await h.api.get<{ endpoints: Array<{ id: string; enabled: boolean; disabled_reason: string | null }> }>('/api/account/webhooks')).body;
    expect(settings.endpoints[0]).toMatchObject({ enabled: false, disabled_reason: 'delivery_failed' });
    const attempts = rx.received.length - count;
    expect(attempts).toBeGreaterThan(30); // backoff capped at an hour (±20%)
    const log = (await h.api.get<{ webhook_responses: WebhookResponse[] }>(`/api/developers/webhook_responses?limit=500&endpoint=${endpoint}`)).body.webhook_responses.filter((a) => a.key === customer);
    expect(log[0]!.outcome).toBe('failed');
    expect(Date.parse(log[0]!.at) - Date.parse(log.at(-1)!.at)).toBeGreaterThanOrEqual(3 * 86_400_000);
    const events = await engine().core.eventsSince(0, 100_000);
    expect(events.some((e) => e.type === 'webhook_endpoint.disabled' && e.key === endpoint)).toBe(true);
    await new Promise((r) => setTimeout(r, 200)); // pino writes asynchronously
    expect(readFileSync(`${h.t.dir}/logs/laneway.log`, 'utf8')).toMatch(/webhook endpoint disabled/);
    // Off: nothing is sent. Turned on: the events since the failed one arrive.
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'While off' });
    await drain();
    expect(rx.received.length - count).toBe(attempts);
    rx.script([], 200);
    expect((await h.api.patch(`/api/account/webhooks/${endpoint}`, { enabled: true })).status).toBe(200);
    await drain();
    const resumed = rx.received.slice(count + attempts);
    expect(resumed.map((r) => [r.headers['x-service-event'], JSON.parse(r.body.toString()).name])).toEqual([['customer.updated', 'While off']]);
  });
});

describe('webhook addresses', () => {
  it('delivers to the URL exactly as given, though a path segment reads as a card number (a chat service webhook id)', async () => {
    // 1234567890123456785 passes Luhn and opens as a card can: masked, the deliveries and the token went elsewhere.
    const path = '/api/webhooks/1234567890123456785/AbCdEfToken';
    const chat = await startReceiver(path);
    try {
      const made = await h.api.post<Created>('/api/account/webhooks', { url: chat.url, events: ['customer.created'] });
      expect(made.status).toBe(201);
      expect(made.body.endpoint.url).toBe(chat.url);
      expect((await h.api.post('/api/imports/customer', { identifier: uid('C'), name: 'Chat' })).status).toBe(201);
      await drain();
      await chat.waitFor(1);
      expect(chat.received[0]!.path).toBe(path);
      // A card number as a whole URL is still masked.
      const whole = await h.api.post<{ code: string }>('/api/account/webhooks', { url: '4111111111111111', events: ['customer.created'] });
      expect(whole.text).not.toContain('4111111111111111');
    } finally {
      await chat.close();
    }
  });
});

