import { afterAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { until } from '../e2e/processes';
import { fakeService, type FakeService } from '../sync/fake-service';
import { MASTERCARD, VISA } from '../helpers/cards';
import { filesHolding } from '../helpers/data-folder';

/**
 * Records pulled from an upstream service (the cloud service masks nothing) reach the engine
 * without passing the HTTP edge that masks card numbers in request bodies: a card number in their
 * free text must rest nowhere in clear either.
 */
let hub: Harness;
let service: FakeService;
afterAll(async () => {
  await hub?.close();
  await service?.close();
});

describe('card numbers in records pulled from the upstream', () => {
  it('are masked before the hub stores them', async () => {
    const customer = { identifier: 'CLOUD-PAN', name: 'Cloud Ltd', notes: `card ${VISA} on file`, watermark: 5 };
    const invoice = {
      number: 'CLOUD-INV',
      customer_identifier: 'CLOUD-PAN',
      currency: 'usd',
      amount_cents: 1000,
      date: '2026-01-05',
      notes_text: `paid by ${MASTERCARD}`,
      extended_attributes: { [`card_${MASTERCARD}`]: 'y' },
      line_item_attributes: [],
      watermark: 6,
    };
    service = await fakeService(({ method, path, after }) => {
      if (method === 'POST') return [201, { identifier: 'x', message: 'ok' }];
      if (path === '/api/exports/customers') return [200, { customers: [customer].filter((c) => c.watermark > after) }];
      if (path === '/api/exports/payments') return [200, { payments: [] }];
      if (path === '/api/exports/open_invoices' || path === '/api/exports/invoices/recent') return [200, { invoices: [invoice].filter((i) => i.watermark > after) }];
      return [404, { error: 'not found' }];
    });
    hub = await openHarness({ api: true });
    await hub.t.engine.sync.start({ pollMs: 100, retryMs: 100 });
    expect((await hub.api.put('/api/sync/upstream', { url: service.url, token: 'CLOUDTOKEN', key: 'cloud-key' })).status).toBe(200);
    const seen = () => hub.api.get<{ notes: string }>('/api/exports/customer/CLOUD-PAN');
    await until(async () => (await seen()).status === 200, 'the upstream customer on the hub', 20_000);
    expect((await seen()).body.notes).toBe('card 489528******0006 on file');
    const inv = () => hub.api.get<{ notes_text: string; extended_attributes: Record<string, unknown> }>('/api/exports/invoice/CLOUD-INV');
    await until(async () => (await inv()).status === 200, 'the upstream invoice on the hub', 20_000);
    expect((await inv()).body.notes_text).toBe('paid by 554103******4422');
    expect((await inv()).body.extended_attributes).toMatchObject({ 'card_554103******4422': 'y' });
    await new Promise((r) => setTimeout(r, 1000));
    // Masked on the way in, the hub's copy of the invoice is the upstream's body: it is not sent back up.
    expect(service.posted.filter((p) => p.path === '/api/imports/invoice')).toEqual([]);
    for (const pan of [VISA, MASTERCARD]) expect(filesHolding(hub.t.dir, pan), pan).toEqual([]);
  });
});
