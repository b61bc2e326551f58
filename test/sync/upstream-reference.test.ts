import { afterAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { until } from '../e2e/processes';
import { fakeService, type FakeService } from './fake-service';

/**
 * A hub against an upstream that has only the reference's operations (no full invoice feed, as
 * the cloud service): a small HTTP server on loopback playing that service. The hub reads its
 * open invoices, then its recent feed; it imports them by its own rules and sends back only what
 * it made itself.
 */
let hub: Harness;
let service: FakeService;
afterAll(async () => {
  await hub?.close();
  await service?.close();
});

const invoice = (number: string, watermark: number, amount: number) => ({
  number,
  customer_identifier: 'CLOUD1',
  currency: 'usd',
  amount_cents: amount,
  owing_cents: amount,
  subtotal_tax1: '$0.00',
  subtotal_tax2: '$0.00',
  date: '2026-01-05',
  due_date: '2026-02-05',
  line_item_attributes: [],
  auto_debit: true,
  shipping_address: { address_1: null, city: null },
  status: 'CURRENT',
  watermark,
});

describe('an upstream with only the reference feeds', () => {
  it('pulls open invoices, then the recent feed, and pushes only what the hub made', async () => {
    const open = [invoice('OLD-OPEN', 11, 5000), invoice('OLD-OPEN-2', 12, 7000)];
    const recent = [invoice('NEW-1', 30, 1200)];
    service = await fakeService(({ method, path, headers, after }) => {
      if (method === 'POST') return [201, { identifier: 'x', message: 'ok' }];
      if (headers.authorization !== `Basic ${Buffer.from('CLOUDTOKEN:cloud-key').toString('base64')}`) return [401, { error: 'unauthorized' }];
      switch (path) {
        case '/api/exports/open_invoices':
          return [200, { invoices: open.filter((i) => i.watermark > after) }];
        case '/api/exports/invoices/recent':
          return [200, { invoices: recent.filter((i) => i.watermark > after) }];
        case '/api/exports/customers':
        case '/api/exports/payments':
          return [200, { [path.split('/').pop()!]: [] }];
        default:
          // The full invoice feed (`/api/exports/invoices`) is Laneway's, not the reference's.
          return [404, { error: 'not found' }];
      }
    });
    const { seen, posted: imported } = service;

    hub = await openHarness({ api: true });
    await hub.api.post('/api/imports/customer', { identifier: 'MINE', name: 'Made on the hub' });
    // As `serve` does at launch: sync started (here polling every 100 ms) before the upstream is set.
    await hub.t.engine.sync.start({ pollMs: 100, retryMs: 100 });
    expect((await hub.api.put('/api/sync/upstream', { url: service.url, token: 'CLOUDTOKEN', key: 'cloud-key' })).status).toBe(200);

    const numbers = async () => (await hub.api.get<{ invoices: Array<{ number: string; amount_cents: number }> }>('/api/exports/invoices?list=true')).body.invoices.map((i) => `${i.number}:${i.amount_cents}`).sort();
    await until(async () => (await numbers()).length === 3, 'the three invoices on the hub', 20_000);
    expect(await numbers()).toEqual(['NEW-1:1200', 'OLD-OPEN-2:7000', 'OLD-OPEN:5000']);
    await until(async () => imported.some((i) => i.body.identifier === 'MINE'), 'the hub customer upstream', 20_000);

    // The feed order of the reference: full feed refused, every open invoice, then recent from 0.
    const invoicePaths = seen.filter((s) => s.startsWith('GET /api/exports/') && s.includes('nvoices')).map((s) => s.slice(4, s.indexOf('?')));
    expect(invoicePaths.slice(0, 3)).toEqual(['/api/exports/invoices', '/api/exports/open_invoices', '/api/exports/invoices/recent']);
    await until(async () => seen.some((s) => s.startsWith('GET /api/exports/invoices/recent?watermark=30&list=true&limit=2500')), 'the recent feed polled from its greatest watermark');
    // What the hub made goes up (its customer, and the customer the invoices' import created here,
    // which the upstream's customers export did not list); what came from upstream is not sent back.
    await new Promise((r) => setTimeout(r, 1500));
    expect(imported.filter((i) => i.path === '/api/imports/invoice')).toEqual([]);
    expect(imported.filter((i) => i.path === '/api/imports/customer').map((i) => i.body.identifier).sort()).toEqual(['CLOUD1', 'MINE']);
    const peer = (await hub.api.get<{ peers: Array<{ peer: string; last_error: string | null; streams: Array<{ stream: string; checkpoint: number }> }> }>('/api/sync/status')).body.peers.find((p) => p.peer === 'upstream');
    expect(peer?.last_error).toBeNull();
    expect(peer?.streams.find((s) => s.stream === 'invoices')?.checkpoint).toBe(30);
  });
});
