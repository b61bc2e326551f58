import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { upload } from '../imports/upload';
import { startInstall, startProxy, type Install, type Proxy } from './rig';
import { centsOf } from '../../src/engine/sync/upstream-shapes';

/**
 * Invoices deleted on one side of a hub ↔ upstream link (two `serve` processes on loopback, the
 * upstream another Laneway, deleting by its reconciliation import as an ERP does): deleted on the
 * upstream, the hub's copy is deleted by the hub's own rule and leaves the customer's balance, and
 * reading it again writes nothing; deleted on the hub, the upstream (which no import can make
 * delete) is reported to the operator as still owing it.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface InvoiceView {
  number: string;
  owing_cents: number;
  deleted?: boolean;
  status: string;
}
interface Exception {
  document: string;
  reason: string;
  direction: string;
  message: string;
  upstream_owing_cents?: number | null;
}

const balanceOf = async (i: Install, customer: string) => centsOf((await i.api<{ balance: string }>('GET', `/api/exports/customer/${customer}`)).balance);
/** The greatest watermark of every record the install exports, deleted invoices included: it moves on any write. */
async function topWatermark(i: Install): Promise<number> {
  const paths = ['customers?', 'invoices?options[include_deleted_invoices]=true&', 'payments?'];
  const pages = await Promise.all(paths.map((p) => i.api<Record<string, Array<{ watermark: number }>>>('GET', `/api/exports/${p}list=true&limit=2500`)));
  return Math.max(0, ...pages.flatMap((page) => Object.values(page).flat().map((r) => r.watermark)));
}
/** The ERP's list of open invoices: every open invoice not listed is closed (deleted) by the import. */
async function reconcile(i: Install, creds: { token: string; key: string }, open: Array<[string, string, number]>): Promise<void> {
  const csv = `number,customer_number,balance_in_source_system\n${open.map((r) => r.join(',')).join('\n')}\n`;
  const res = await upload(i.url, csv, { force: true, auth: `Basic ${Buffer.from(`${creds.token}:${creds.key}`).toString('base64')}` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await until(async () => (await i.api<{ status: string }>('GET', `/api/imports/${res.body.id}`)).status === 'completed', 'the reconciliation to complete');
}

describe('deleted invoices between a hub and its upstream, two processes', () => {
  let upstream: Install;
  let hub: Install;
  let proxy: Proxy;
  const hubDir = tempDir();
  const upDir = tempDir();
  cleanups.push(hubDir.cleanup, upDir.cleanup);
  const upCreds = { token: 'UPSTREAMTOKEN1', key: 'upstream-secret-key-1' };
  const hubCreds = { token: 'HUBTOKEN1', key: 'hub-secret-key-1' };
  const requests: string[] = [];

  it('an invoice deleted upstream is deleted on the hub by its own rule and leaves the balance; read again, nothing is written', async () => {
    upstream = await startInstall('upstream', upDir.dir, ['--rate-limit', '100000'], upCreds);
    cleanups.push(() => upstream.proc.stop());
    proxy = await startProxy(upstream.url, { tap: (chunk) => requests.push(...(chunk.toString('latin1').match(/^GET \S+/gm) ?? [])) });
    cleanups.push(() => proxy.close());
    hub = await startInstall('hub', hubDir.dir, ['--sync-poll-ms', '200', '--rate-limit', '100000'], hubCreds);
    cleanups.push(() => hub.proc.stop());

    await upstream.api('POST', '/api/imports/invoice', { number: 'RINV1', customer_identifier: 'RC1', customer_name: 'Retire One', amount: 10000, date: '2026-02-01' });
    await upstream.api('POST', '/api/imports/invoice', { number: 'RINV2', customer_identifier: 'RC1', amount: 5000, date: '2026-02-02' });
    await upstream.api('POST', '/api/imports/payment', { identifier: 'RPAY1', amount_cents: 2000, date: '2026-02-03', invoice_number: 'RINV1', customer_identifier: 'RC1' });
    await hub.api('POST', '/api/imports/invoice', { number: 'HINV1', customer_identifier: 'HC1', customer_name: 'Hub Customer', amount: 7000, date: '2026-02-04' });
    await hub.api('POST', '/api/imports/invoice', { number: 'HINV2', customer_identifier: 'HC1', amount: 3000, date: '2026-02-05' });
    await hub.api('PUT', '/api/sync/upstream', { url: proxy.url, ...upCreds });

    await until(async () => (await upstream.api<{ invoices: unknown[] }>('GET', '/api/exports/invoices?list=true')).invoices.length === 4, 'the hub invoices upstream');
    await until(async () => (await hub.api<{ invoices: unknown[] }>('GET', '/api/exports/invoices?list=true')).invoices.length === 4, 'the upstream invoices on the hub');
    await until(async () => (await balanceOf(hub, 'RC1')) === 13000, 'the payment on the hub');

    // The ERP voids RINV1 (8000 still owing): its list of open invoices leaves it out.
    await reconcile(upstream, upCreds, [['RINV2', 'RC1', 5000], ['HINV1', 'HC1', 7000], ['HINV2', 'HC1', 3000]]);
    expect((await upstream.api<InvoiceView>('GET', '/api/exports/invoice/RINV1')).deleted).toBe(true);
    await until(async () => (await hub.api<InvoiceView>('GET', '/api/exports/invoice/RINV1')).deleted === true, 'the deletion on the hub');
    expect(await hub.api<InvoiceView>('GET', '/api/exports/invoice/RINV1')).toMatchObject({ status: 'CLOSED' });
    // It is no longer owed on the hub: the customer's balance dropped by its owing, and a cashier's open list leaves it out.
    expect(await balanceOf(hub, 'RC1')).toBe(13000 - 8000);
    const open = await hub.api<unknown[]>('GET', '/api/exports/customer/RC1/open_invoices?list=true');
    expect(JSON.stringify(open)).not.toContain('RINV1');
    expect(JSON.stringify(open)).toContain('RINV2');
    // Every invoice feed was asked for deleted invoices.
    const invoiceGets = requests.filter((r) => r.startsWith('GET /api/exports/invoices?'));
    expect(invoiceGets.length).toBeGreaterThan(0);
    expect(invoiceGets.every((r) => new URL(r.slice(4), 'http://x').searchParams.get('options[include_deleted_invoices]') === 'true')).toBe(true);

    // Settled: polled again and again, nothing more is written on either side.
    await new Promise((r) => setTimeout(r, 1000));
    const settled = [await topWatermark(hub), await topWatermark(upstream)];
    await new Promise((r) => setTimeout(r, 1500));
    expect([await topWatermark(hub), await topWatermark(upstream)]).toEqual(settled);
    // Read again from watermark 0 (the same upstream at another address is another peer, with no
    // checkpoint): the deleted invoice comes again and the hub writes nothing for it.
    await hub.api('PUT', '/api/sync/upstream', { url: upstream.url, ...upCreds });
    const invoicesTop = Math.max(...(await upstream.api<{ invoices: Array<{ watermark: number }> }>('GET', '/api/exports/invoices?options[include_deleted_invoices]=true&list=true&limit=2500')).invoices.map((i) => i.watermark));
    const pulledTo = async () => (await hub.api<{ peers: Array<{ peer: string; streams: Array<{ stream: string; checkpoint: number }> }> }>('GET', '/api/sync/status')).peers.find((p) => p.peer === 'upstream')!.streams.find((s) => s.stream === 'invoices')!.checkpoint;
    await until(async () => (await pulledTo()) >= invoicesTop, 'the re-read from 0 to reach the deleted invoice');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await topWatermark(hub)).toBe(settled[0]);
    expect(await balanceOf(hub, 'RC1')).toBe(5000);
    const { exceptions } = await hub.api<{ exceptions: Exception[] }>('GET', '/api/sync/resolutions');
    expect(exceptions).toEqual([]);
  }, 180_000);

  it('an invoice deleted on the hub is reported as still owed upstream, since no import can delete it', async () => {
    await reconcile(hub, hubCreds, [['RINV2', 'RC1', 5000], ['HINV1', 'HC1', 7000]]);
    expect((await hub.api<InvoiceView>('GET', '/api/exports/invoice/HINV2')).deleted).toBe(true);
    const reported = async () => (await hub.api<{ exceptions: Exception[] }>('GET', '/api/sync/resolutions')).exceptions.find((e) => e.document === 'invoices/HINV2');
    const exception = await until(reported, 'the exception for the invoice the upstream still has');
    expect(exception).toMatchObject({ reason: 'upstream_not_deleted', direction: 'push', upstream_owing_cents: 3000, currency: expect.stringMatching(/^[A-Z]{3}$/) });
    expect(exception.message).toContain('delete or void it on the upstream');
    // The upstream's copy is untouched (still owed there) and nothing else was reported.
    expect(await upstream.api<InvoiceView>('GET', '/api/exports/invoice/HINV2')).toMatchObject({ owing_cents: 3000 });
    expect((await upstream.api<InvoiceView>('GET', '/api/exports/invoice/HINV2')).deleted).not.toBe(true);
    expect((await hub.api<{ exceptions: Exception[] }>('GET', '/api/sync/resolutions')).exceptions.map((e) => e.document)).toEqual(['invoices/HINV2']);
    // Once the operator deletes it upstream too, both agree and nothing more flows.
    await reconcile(upstream, upCreds, [['RINV2', 'RC1', 5000], ['HINV1', 'HC1', 7000]]);
    expect((await upstream.api<InvoiceView>('GET', '/api/exports/invoice/HINV2')).deleted).toBe(true);
    expect(await balanceOf(upstream, 'HC1')).toBe(await balanceOf(hub, 'HC1'));
  }, 120_000);

  it('an invoice deleted upstream while the hub changed it is deleted on the hub too, the hub\'s change reported as not kept', async () => {
    // Back through the proxy (the peer of the first test, resuming from its checkpoints), then apart.
    await hub.api('PUT', '/api/sync/upstream', { url: proxy.url, ...upCreds });
    await until(async () => (await hub.api<{ peers: Array<{ peer: string; last_error: string | null; last_success_at: string | null }> }>('GET', '/api/sync/status')).peers.find((p) => p.peer === 'upstream')?.last_success_at != null, 'the link through the proxy');
    proxy.cut();
    await hub.api('POST', '/api/imports/invoice', { number: 'RINV2', customer_identifier: 'RC1', notes_text: 'Promised for Friday' });
    await reconcile(upstream, upCreds, [['HINV1', 'HC1', 7000]]);
    expect((await upstream.api<InvoiceView>('GET', '/api/exports/invoice/RINV2')).deleted).toBe(true);
    proxy.restore();

    await until(async () => (await hub.api<InvoiceView>('GET', '/api/exports/invoice/RINV2')).deleted === true, 'the deletion on the hub', 60_000);
    expect(await balanceOf(hub, 'RC1')).toBe(0);
    const exception = await until(async () => (await hub.api<{ exceptions: Exception[] }>('GET', '/api/sync/resolutions')).exceptions.find((e) => e.document === 'invoices/RINV2'), 'the hub\'s change reported');
    expect(exception).toMatchObject({ reason: 'retired_upstream', direction: 'push' });
    expect(exception.message).toContain('not kept');
    // Both agree on what is owed.
    for (const customer of ['RC1', 'HC1']) expect(await balanceOf(upstream, customer)).toBe(await balanceOf(hub, customer));
  }, 120_000);
});
