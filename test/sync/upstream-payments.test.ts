import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { startInstall, type Install } from './rig';
import { differences, type Api } from './upstream-compare';
import { centsOf } from '../../src/engine/sync/upstream-shapes';

/**
 * Payments between a hub and its upstream (two `serve` processes on loopback, the upstream another
 * Laneway): a receipt that nets a credit memo goes both ways; payments made on both sides while
 * apart that together ask more of an invoice than it owes end the same on both, the payment
 * served later (payment date, then identifier) cut, its excess unapplied credit, and the operator
 * told; an invoice lowered on one side below what the other applied to it likewise.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface PaymentView {
  payment_amount: string;
  unapplied_amount: string;
  payment_amounts: Array<{ invoice_number: string; amount: string }>;
}
interface Exception {
  document: string;
  reason: string;
  reduced_cents?: number;
  message: string;
}

const apiOf = (i: Install): Api => (method, path) => i.api(method, path);
/**
 * Every difference between the two installs (upstream-compare.ts), but of a payment's amounts only
 * the money (invoice, amount, discount, status): each allocation's picture of its invoice when it
 * was applied (invoice_balance, invoice_amount_paid, short_pay_indicator...) is each side's own
 * history, which the order payments arrived in decides.
 */
async function moneyDifferences(hub: Install, upstream: Install): Promise<string[]> {
  const out = (await differences(apiOf(hub), apiOf(upstream))).filter((line) => !/^payments \S+\.payment_amounts: /.test(line));
  const money = async (i: Install) => {
    const { payments } = await i.api<{ payments: Array<{ payment_reference: string; payment_amounts: Array<Record<string, unknown>> }> }>('GET', '/api/exports/payments?list=true&limit=2500');
    return new Map(payments.map((p) => [p.payment_reference, JSON.stringify(p.payment_amounts.map((a) => [a.invoice_number, a.amount, a.discount_amount, a.status]))]));
  };
  const [h, u] = await Promise.all([money(hub), money(upstream)]);
  for (const ref of new Set([...h.keys(), ...u.keys()])) if (h.get(ref) !== u.get(ref)) out.push(`payments ${ref}.payment_amounts: ${h.get(ref)} != ${u.get(ref)}`);
  return out;
}
const invoiceOn = (i: Install, n: string) => i.api<{ amount_cents: number; owing_cents: number; status: string }>('GET', `/api/exports/invoice/${n}`);
/** A payment as money: what it applies to each invoice and what is left unapplied (cents). */
async function paymentOn(i: Install, ref: string): Promise<{ applied: Array<[string, number]>; unapplied: number }> {
  const p = await i.api<PaymentView>('GET', `/api/exports/payment/${ref}`);
  return { applied: p.payment_amounts.map((a) => [a.invoice_number, centsOf(a.amount)!] as [string, number]).filter(([, c]) => c !== 0), unapplied: centsOf(p.unapplied_amount)! };
}
const unappliedOf = async (i: Install, customer: string) => centsOf((await i.api<{ unapplied_payment: string }>('GET', `/api/exports/customer/${customer}`)).unapplied_payment);
const exceptionsOf = async (hub: Install) => (await hub.api<{ exceptions: Exception[] }>('GET', '/api/sync/resolutions')).exceptions;
async function topWatermark(i: Install): Promise<number> {
  const paths = ['customers?', 'invoices?options[include_deleted_invoices]=true&', 'payments?'];
  const pages = await Promise.all(paths.map((p) => i.api<Record<string, Array<{ watermark: number }>>>('GET', `/api/exports/${p}list=true&limit=2500`)));
  return Math.max(0, ...pages.flatMap((page) => Object.values(page).flat().map((r) => r.watermark)));
}

describe('payments between a hub and its upstream, two processes', () => {
  let upstream: Install;
  let hub: Install;
  const hubDir = tempDir();
  const upDir = tempDir();
  cleanups.push(hubDir.cleanup, upDir.cleanup);
  const upCreds = { token: 'UPSTREAMTOKEN1', key: 'upstream-secret-key-1' };
  const agree = (what: string) =>
    until(async () => (await moneyDifferences(hub, upstream)).length === 0, what, 60_000).catch(async (e) => {
      console.log((await moneyDifferences(hub, upstream)).slice(0, 20), hub.proc.output().slice(-3000));
      throw e;
    });

  it('a receipt netting a credit memo goes up and comes down as it is, its invoice paid on both', async () => {
    upstream = await startInstall('upstream', upDir.dir, ['--rate-limit', '100000'], upCreds);
    cleanups.push(() => upstream.proc.stop());
    hub = await startInstall('hub', hubDir.dir, ['--sync-poll-ms', '200', '--rate-limit', '100000']);
    cleanups.push(() => hub.proc.stop());
    await hub.api('PUT', '/api/sync/upstream', { url: upstream.url, ...upCreds });

    // The README's netting form: the receipt's amount is the invoice less the memo's credit.
    for (const [side, s] of [[hub, 'H'], [upstream, 'U']] as const) {
      await side.api('POST', '/api/imports/invoice', { number: `NI-${s}`, customer_identifier: `NC-${s}`, amount: 10000, date: '2026-11-20' });
      await side.api('POST', '/api/imports/invoice', { number: `NM-${s}`, customer_identifier: `NC-${s}`, amount: -3000, date: '2026-11-20' });
      await side.api('POST', '/api/imports/payment', { identifier: `NR-${s}`, amount_cents: 7000, customer_identifier: `NC-${s}`, date: '2026-11-28', payment_amounts_attributes: [{ invoice_number: `NI-${s}`, amount: 10000 }, { invoice_number: `NM-${s}`, amount: -3000 }] });
    }
    await agree('the netted receipts on both sides');
    for (const side of [hub, upstream]) {
      for (const s of ['H', 'U']) {
        expect(await invoiceOn(side, `NI-${s}`)).toMatchObject({ owing_cents: 0, status: 'PAID' });
        expect(await invoiceOn(side, `NM-${s}`)).toMatchObject({ owing_cents: 0 });
        expect(await paymentOn(side, `NR-${s}`)).toEqual({ applied: [[`NI-${s}`, 10000], [`NM-${s}`, -3000]], unapplied: 0 });
      }
    }
    expect(await exceptionsOf(hub)).toEqual([]);
  }, 180_000);

  it('payments made apart that ask more of an invoice than it owes: the one served later is cut the same on both, told once', async () => {
    for (const [n, amount] of [['SA-1', 10000], ['SB-1', 10000], ['SC-1', 10000]] as const) await hub.api('POST', '/api/imports/invoice', { number: n, customer_identifier: `C-${n}`, amount, date: '2026-11-20' });
    await until(async () => (await upstream.api<{ invoices: unknown[] }>('GET', '/api/exports/invoices?list=true')).invoices.length === 7, 'the invoices upstream');
    await agree('the invoices on both sides');

    await hub.api('POST', '/api/sync/pause');
    // SA-1: the same date, so the identifier decides: P-HUB is served before P-UP.
    await hub.api('POST', '/api/imports/payment', { identifier: 'P-HUB', amount_cents: 3000, invoice_number: 'SA-1', customer_identifier: 'C-SA-1', date: '2026-11-28' });
    await upstream.api('POST', '/api/imports/payment', { identifier: 'P-UP', amount_cents: 9000, invoice_number: 'SA-1', customer_identifier: 'C-SA-1', date: '2026-11-28' });
    // SB-1: the date decides before the identifier: the upstream's PY, a day earlier, is served first.
    await hub.api('POST', '/api/imports/payment', { identifier: 'PX', amount_cents: 4000, invoice_number: 'SB-1', customer_identifier: 'C-SB-1', date: '2026-11-28' });
    await upstream.api('POST', '/api/imports/payment', { identifier: 'PY', amount_cents: 8000, invoice_number: 'SB-1', customer_identifier: 'C-SB-1', date: '2026-11-27' });
    // SC-1: lowered upstream below what the hub's payment applies.
    await upstream.api('POST', '/api/imports/invoice', { number: 'SC-1', customer_identifier: 'C-SC-1', amount: 5000, amount_override: true, date: '2026-11-20' });
    await hub.api('POST', '/api/imports/payment', { identifier: 'P8', amount_cents: 8000, invoice_number: 'SC-1', customer_identifier: 'C-SC-1', date: '2026-11-28' });
    await hub.api('POST', '/api/sync/resume');

    await agree('the payments on both sides');
    // Settled: nothing flows back and forth any more.
    await new Promise((r) => setTimeout(r, 1500));
    const settled = [await topWatermark(hub), await topWatermark(upstream)];
    await new Promise((r) => setTimeout(r, 1500));
    expect([await topWatermark(hub), await topWatermark(upstream)]).toEqual(settled);
    expect(await moneyDifferences(hub, upstream)).toEqual([]);

    for (const side of [hub, upstream]) {
      // $30 + $90 received on $100: paid, $20 of credit, on the payment served later.
      expect(await invoiceOn(side, 'SA-1')).toMatchObject({ owing_cents: 0, status: 'PAID' });
      expect(await paymentOn(side, 'P-HUB')).toEqual({ applied: [['SA-1', 3000]], unapplied: 0 });
      expect(await paymentOn(side, 'P-UP')).toEqual({ applied: [['SA-1', 7000]], unapplied: 2000 });
      expect(await unappliedOf(side, 'C-SA-1')).toBe(2000);
      expect(await invoiceOn(side, 'SB-1')).toMatchObject({ owing_cents: 0, status: 'PAID' });
      expect(await paymentOn(side, 'PY')).toEqual({ applied: [['SB-1', 8000]], unapplied: 0 });
      expect(await paymentOn(side, 'PX')).toEqual({ applied: [['SB-1', 2000]], unapplied: 2000 });
      expect(await invoiceOn(side, 'SC-1')).toMatchObject({ amount_cents: 5000, owing_cents: 0, status: 'PAID' });
      expect(await paymentOn(side, 'P8')).toEqual({ applied: [['SC-1', 5000]], unapplied: 3000 });
    }
    const reduced = (await exceptionsOf(hub)).filter((e) => e.reason === 'allocation_reduced');
    expect(reduced.map((e) => [e.document, e.reduced_cents]).sort()).toEqual([
      ['invoices/SA-1', 2000],
      ['invoices/SB-1', 2000],
      ['invoices/SC-1', 3000],
    ]);
    expect((await exceptionsOf(hub)).filter((e) => e.reason !== 'allocation_reduced')).toEqual([]);
  }, 180_000);
});
