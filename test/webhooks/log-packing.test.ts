import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { uid } from '../helpers/receivables';
import type { WebhookResponse } from '../../src/shared/schemas/webhooks';

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

type Page = { webhook_responses: WebhookResponse[]; next_before: number | null };
const engine = () => h.t.engine;
const drain = () => engine().webhooks.drain();
const logRecords = async (kind: string) => engine().core.find<{ id: string; watermark: number; ref: string; data: { entries?: unknown[] } }>('records', { selector: { kind }, sort: [{ kind: 'asc' }, { watermark: 'asc' }] });

/** The whole log of an endpoint, walked page by page as a client does. */
async function walk(endpoint: string, limit: number): Promise<WebhookResponse[]> {
  const all: WebhookResponse[] = [];
  let before: number | null | undefined;
  do {
    const page = await h.api.get<Page>(`/api/developers/webhook_responses?limit=${limit}&endpoint=${endpoint}${before ? `&before=${before}` : ''}`);
    expect(page.status).toBe(200);
    expect(page.body.webhook_responses.length).toBeLessThanOrEqual(limit);
    all.push(...page.body.webhook_responses);
    before = page.body.next_before;
  } while (before);
  return all;
}

describe('the delivery log of first attempts that succeeded', () => {
  let endpoint = '';
  const CUSTOMERS = 23;

  it('holds every attempt, many to a record, and pages through them one by one, splitting a record between pages', async () => {
    const made = await h.api.post<{ endpoint: { id: string } }>('/api/account/webhooks', { url: rx.url, events: ['customer.created', 'customer.updated'] });
    endpoint = made.body.endpoint.id;
    await Promise.all(Array.from({ length: CUSTOMERS }, (_, i) => h.api.post('/api/imports/customer', { identifier: uid('PK'), name: `Packed ${i}` })));
    await drain();
    expect(rx.received.filter((r) => r.answered === 200)).toHaveLength(CUSTOMERS);

    // Fewer log records than attempts: the successes share records.
    const packs = (await logRecords('webhook_attempt_pack')).filter((r) => r.ref === endpoint);
    expect(packs.length).toBeGreaterThan(0);
    expect(packs.length).toBeLessThan(CUSTOMERS);
    expect(packs.reduce((n, p) => n + p.data.entries!.length, 0)).toBe(CUSTOMERS);
    expect((await logRecords('webhook_attempt')).filter((r) => r.ref === endpoint)).toHaveLength(0);

    // Pages of 4 (23 entries: the records are split between pages): each attempt exactly once, newest first.
    const log = await walk(endpoint, 4);
    expect(log).toHaveLength(CUSTOMERS);
    expect(new Set(log.map((a) => a.id)).size).toBe(CUSTOMERS);
    expect(log.map((a) => a.watermark)).toEqual([...log.map((a) => a.watermark)].sort((a, b) => b - a));
    const sent = rx.received.map((r) => Number(r.headers['x-service-watermark']));
    expect(log.map((a) => a.event_watermark).sort((a, b) => a - b)).toEqual([...sent].sort((a, b) => a - b));
    for (const a of log) {
      expect(a).toMatchObject({ endpoint, url: rx.url, attempt: 1, manual: false, status: 200, outcome: 'delivered', error: null, body_excerpt: 'answer 200', event_type: 'customer.created', entity: 'customer' });
      expect(a.delivery).toBe(`${endpoint}.${a.event_watermark}`);
      expect(a.latency_ms).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(a.at))).toBe(false);
    }
    // The receiver's order is the log's, oldest first.
    expect(log.map((a) => a.event_watermark).reverse()).toEqual(sent);
  });

  it('a retried delivery keeps its own entries, merged in time order with the packed ones', async () => {
    rx.script([500], 200);
    const customer = uid('PK');
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'Retried' });
    await drain();
    h.t.clock.advance(2_000);
    await engine().tick();
    await drain();
    await h.api.post('/api/imports/customer', { identifier: customer, name: 'Retried, then changed' });
    await drain();
    const log = await walk(endpoint, 3);
    expect(log).toHaveLength(CUSTOMERS + 3);
    // Newest first: the update's first attempt (packed), then the retried creation's two attempts (their own records).
    expect(log.slice(0, 3).map((a) => [a.key, a.event_type, a.attempt, a.status, a.outcome])).toEqual([
      [customer, 'customer.updated', 1, 200, 'delivered'],
      [customer, 'customer.created', 2, 200, 'delivered'],
      [customer, 'customer.created', 1, 500, 'retry'],
    ]);
    expect(log.map((a) => a.watermark)).toEqual([...log.map((a) => a.watermark)].sort((a, b) => b - a));
  });

  it('resends a packed attempt by hand; an id that names no delivery of the endpoint is not found', async () => {
    const log = await walk(endpoint, 50);
    const packed = log[log.length - 5]!;
    const before = rx.received.length;
    const res = await h.api.post<WebhookResponse>(`/api/developers/webhook_responses/${packed.id}/resend`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ manual: true, attempt: 2, status: 200, outcome: 'delivered', delivery: packed.delivery, event_watermark: packed.event_watermark });
    expect(rx.received).toHaveLength(before + 1);
    expect(rx.received.at(-1)!.headers).toMatchObject({ 'x-service-delivery': packed.delivery, 'x-service-attempt': '2', 'x-service-event': 'customer.created' });
    // The resend is logged on top, with its own record.
    expect((await walk(endpoint, 1))[0]).toMatchObject({ id: res.body.id, manual: true });

    // The endpoint's own webhook_endpoint.created event is not a kind it takes.
    const created = (await engine().core.eventsSince(0, 100_000)).find((e) => e.type === 'webhook_endpoint.created' && e.key === endpoint)!;
    expect((await h.api.post(`/api/developers/webhook_responses/${endpoint}.${created.watermark}.1/resend`, {})).status).toBe(404);
    expect((await h.api.post(`/api/developers/webhook_responses/${endpoint}.99999999.1/resend`, {})).status).toBe(404);
    expect((await h.api.post(`/api/developers/webhook_responses/NOENDPOINT.${packed.event_watermark}.1/resend`, {})).status).toBe(404);
  });
});
