import { afterAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { until } from '../e2e/processes';
import { fakeService, type FakeService } from './fake-service';
import { centsOf } from '../../src/engine/sync/upstream-shapes';

/**
 * Deletions and reversals from an upstream with only the reference's operations (the cloud
 * service, played by a small HTTP server on loopback): an invoice the service deleted comes in its
 * feeds (asked with `include_deleted_invoices`) and is deleted on the hub; a payment the service
 * reversed (an NSF return) is reversed on the hub by its own rule, so its invoice is owed again;
 * read again, neither writes anything. A payment reversed on the hub, which no import can reverse
 * upstream, is reported to the operator while the service still counts it.
 */
let hub: Harness;
let service: FakeService;
afterAll(async () => {
  await hub?.close();
  await service?.close();
});

type Rec = Record<string, unknown> & { watermark: number };
const invoice = (number: string, watermark: number, amount: number, owing = amount): Rec => ({
  number,
  customer_identifier: 'CLOUD1',
  currency: 'usd',
  amount_cents: amount,
  owing_cents: owing,
  date: '2026-01-05',
  line_item_attributes: [],
  status: 'CURRENT',
  deleted: false,
  watermark,
});
const payment = (reference: string, watermark: number, status: string, extra: Record<string, unknown> = {}): Rec => ({
  payment_reference: reference,
  payment_amount: '20.00',
  customer_identifier: 'CLOUD1',
  customer_name: 'CLOUD1',
  currency: 'usd',
  date: '2026-01-06',
  status,
  status_reason: '',
  payment_amounts: [{ invoice_number: 'CINV2', amount: '20.00' }],
  watermark,
  ...extra,
});

describe('an upstream with only the reference feeds: deletions and reversals', () => {
  it('deletes and reverses on the hub what the service deleted and reversed, once, and reports a reversal the service lacks', async () => {
    const open: Rec[] = [invoice('CINV1', 11, 5000), invoice('CINV2', 12, 3000, 1000)];
    const recent: Rec[] = [];
    const payments: Rec[] = [payment('CPAY1', 20, 'PAID')];
    const views = new Map<string, Record<string, unknown>>();
    service = await fakeService(({ method, path, url, after, body }) => {
      if (method === 'POST' && body) {
        // A payment the service reversed cannot be changed (as Laneway's import answers).
        if (path === '/api/imports/payment' && views.get(`/api/exports/payment/${String(body.identifier)}`)?.status === 'ERROR (DECLINED)') {
          return [412, { error: `payment ${String(body.identifier)} was reversed and cannot be changed`, code: 'payment_reversed' }];
        }
        // The service shows a payment it took as paid.
        if (path === '/api/imports/payment') views.set(`/api/exports/payment/${String(body.identifier)}`, { payment_reference: body.identifier, payment_amount: '40.00', status: 'PAID' });
        return [201, { identifier: 'x', message: 'ok' }];
      }
      // Deleted invoices are in the invoice feeds only when asked for (the reference's option).
      const withDeleted = url.searchParams.get('options[include_deleted_invoices]') === 'true';
      const shown = (list: Rec[]) => list.filter((i) => i.watermark > after && (withDeleted || i.deleted !== true)).map((i) => (withDeleted ? i : { ...i, deleted: undefined }));
      const last = (list: Rec[], key: string, value: string) => list.filter((r) => r[key] === value).pop();
      switch (path) {
        case '/api/exports/invoices':
          return [404, { error: 'not found' }];
        case '/api/exports/open_invoices':
          return [200, { invoices: shown(open) }];
        case '/api/exports/invoices/recent':
          return [200, { invoices: shown(recent) }];
        case '/api/exports/payments':
          return [200, { payments: payments.filter((p) => p.watermark > after) }];
        case '/api/exports/customers':
          return [200, { customers: [] }];
      }
      const number = path.startsWith('/api/exports/invoice/') ? decodeURIComponent(path.split('/').pop()!) : '';
      const found = number ? (last(recent, 'number', number) ?? last(open, 'number', number)) : views.get(path);
      return found ? [200, found] : [404, { error: 'not found' }];
    });
    const { seen, posted: imported } = service;

    hub = await openHarness({ api: true });
    await hub.t.engine.sync.start({ pollMs: 100, retryMs: 100 });
    expect((await hub.api.put('/api/sync/upstream', { url: service.url, token: 'CLOUDTOKEN', key: 'cloud-key' })).status).toBe(200);
    const balance = async () => centsOf((await hub.api.get<{ balance: string }>('/api/exports/customer/CLOUD1')).body.balance);
    const invoiceOnHub = async (n: string) => (await hub.api.get<{ owing_cents: number; deleted?: boolean; status: string }>(`/api/exports/invoice/${n}`)).body;
    const paymentOnHub = async (p: string) => (await hub.api.get<{ status: string; status_reason: string }>(`/api/exports/payment/${p}`)).body;
    const topWatermark = async () => {
      const paths = ['customers?', 'invoices?options[include_deleted_invoices]=true&', 'payments?'];
      const pages = await Promise.all(paths.map(async (p) => (await hub.api.get<Record<string, Array<{ watermark: number }>>>(`/api/exports/${p}list=true&limit=2500`)).body));
      return Math.max(0, ...pages.flatMap((page) => Object.values(page).flat().map((r) => r.watermark)));
    };
    const exceptions = async () => (await hub.api.get<{ exceptions: Array<Record<string, unknown>> }>('/api/sync/resolutions')).body.exceptions;

    // CINV1 owes 5000; CINV2 3000, of which CPAY1 paid 2000.
    await until(async () => (await hub.api.get(`/api/exports/payment/CPAY1`)).status === 200, 'the payment on the hub', 20_000);
    await until(async () => (await balance()) === 5000 + 1000, 'the balance on the hub');

    // The service deletes CINV1 and takes back CPAY1 (an NSF return).
    recent.push({ ...invoice('CINV1', 50, 5000), status: 'CLOSED', deleted: true });
    payments.push(payment('CPAY1', 60, 'ERROR (NSF)', { status_reason: 'Insufficient funds' }));
    await until(async () => (await invoiceOnHub('CINV1')).deleted === true, 'the deletion on the hub', 20_000);
    await until(async () => (await paymentOnHub('CPAY1')).status === 'ERROR (NSF)', 'the reversal on the hub', 20_000);
    expect(await paymentOnHub('CPAY1')).toMatchObject({ status: 'ERROR (NSF)', status_reason: 'Insufficient funds' });
    // Nothing of CINV1 is owed any more; CINV2 is owed in full again.
    expect((await invoiceOnHub('CINV2')).owing_cents).toBe(3000);
    expect(await balance()).toBe(3000);
    expect(seen.filter((s) => s.startsWith('GET /api/exports/open_invoices') || s.startsWith('GET /api/exports/invoices/recent')).every((s) => s.includes('options[include_deleted_invoices]=true'))).toBe(true);

    // The same records served again at later watermarks (a service replaying its feed): nothing is written.
    // (Not the install's current watermark: the sync.status announcement after each page read is a record write too.)
    const before = await topWatermark();
    recent.push({ ...invoice('CINV1', 70, 5000), status: 'CLOSED', deleted: true });
    payments.push(payment('CPAY1', 71, 'ERROR (NSF)', { status_reason: 'Insufficient funds' }));
    await until(async () => seen.some((s) => s.startsWith('GET /api/exports/payments?watermark=71')) && seen.some((s) => s.startsWith('GET /api/exports/invoices/recent?watermark=70')), 'the replay to be read', 20_000);
    expect(await topWatermark()).toBe(before);
    // What came retired from the service is not sent back, nor reported.
    expect(imported.filter((i) => i.body.identifier === 'CPAY1' || i.body.number === 'CINV1')).toEqual([]);
    expect(imported.filter((i) => 'status' in i.body || 'deleted' in i.body)).toEqual([]);
    expect(await exceptions()).toEqual([]);

    // A payment taken on the hub and sent up, then reversed on the hub: the service still counts it.
    await hub.api.post('/api/imports/invoice', { number: 'HX1', customer_identifier: 'CLOUD1', amount: 6000, date: '2026-01-07' });
    await hub.api.post('/api/imports/payment', { identifier: 'HXPAY1', amount_cents: 4000, date: '2026-01-08', invoice_number: 'HX1', customer_identifier: 'CLOUD1' });
    await until(async () => imported.some((i) => i.path === '/api/imports/payment' && i.body.identifier === 'HXPAY1'), 'the hub payment upstream', 20_000);
    await hub.t.engine.receivables.reversePayment('HXPAY1', 'REVERSAL', 'Cheque returned');
    const reported = await until(async () => (await exceptions()).find((e) => e.document === 'payments/HXPAY1'), 'the reversal reported', 20_000);
    expect(reported).toMatchObject({ peer: 'upstream', reason: 'upstream_not_reversed', direction: 'push', upstream_status: 'PAID', upstream_amount_cents: 4000 });
    expect(String(reported.message)).toContain('reverse it on the upstream');
    // No import was sent for the reversal (none can express it).
    expect(imported.filter((i) => i.body.identifier === 'HXPAY1')).toHaveLength(1);
    expect((await invoiceOnHub('HX1')).owing_cents).toBe(6000);

    // A payment the service declined after the fact while the hub changed it, the link paused:
    // the reversal wins on the hub (HX1 owed again), and the hub's change is reported as not kept.
    await hub.api.post('/api/imports/payment', { identifier: 'HXPAY2', amount_cents: 1000, date: '2026-01-09', invoice_number: 'HX1', customer_identifier: 'CLOUD1' });
    await until(async () => imported.some((i) => i.body.identifier === 'HXPAY2'), 'the second hub payment upstream', 20_000);
    expect((await invoiceOnHub('HX1')).owing_cents).toBe(5000);
    expect((await hub.api.post('/api/sync/pause', {})).status).toBe(200);
    expect((await hub.api.post('/api/imports/payment', { identifier: 'HXPAY2', amount_cents: 1000, date: '2026-01-10', invoice_number: 'HX1', customer_identifier: 'CLOUD1', payor_name: 'Changed on the hub' })).status).toBeLessThan(300);
    const declined = { ...payment('HXPAY2', 90, 'ERROR (DECLINED)'), payment_amount: '10.00', payment_amounts: [{ invoice_number: 'HX1', amount: '10.00' }] };
    views.set('/api/exports/payment/HXPAY2', declined);
    payments.push(declined);
    expect((await hub.api.post('/api/sync/resume', {})).status).toBe(200);
    await until(async () => (await paymentOnHub('HXPAY2')).status === 'ERROR (DECLINED)', 'the decline on the hub', 20_000);
    expect((await invoiceOnHub('HX1')).owing_cents).toBe(6000);
    const notKept = await until(async () => (await exceptions()).find((e) => e.document === 'payments/HXPAY2'), 'the hub change reported', 20_000);
    expect(notKept).toMatchObject({ reason: 'retired_upstream', direction: 'push' });
  }, 60_000);
});
