import { describe, expect, it } from 'vitest';
import { openHarness, useHarness } from '../helpers/harness';
import { uid, withCapabilities } from '../helpers/receivables';
import { importCsv } from './upload';
import { referenceKeys } from '../helpers/reference-check';
import { putRecord } from '../../src/engine/records';
import { RECON_PAYMENT } from '../../src/engine/imports/records';

// Its own engine: a reconciliation file is the ERP's complete list of open invoices.
const ctx = useHarness({ api: true });

type Recon = Record<string, string | number | null>;

describe('reconciliation files', () => {
  it('closes an open invoice the file leaves out, corrects a balance that differs, and records each decision', async () => {
    const c = uid('C');
    const [kept, left, differs] = [uid('INV'), uid('INV'), uid('INV')];
    expect((await ctx.api.post('/api/imports/customer', { identifier: c, name: 'Contoso Pharmacy' })).status).toBe(201);
    for (const n of [kept, left, differs]) expect((await ctx.api.post('/api/imports/invoice', { number: n, customer_identifier: c, amount: 10000, owing_cents: 10000, date: '2026-03-01' })).status).toBe(201);
    const missing = uid('INV');
    const csv = `number,customer_number,balance_in_source_system\n${kept},${c},10000\n${differs},${c},2500\n${missing},${c},11200\n`;
    const batch = await withCapabilities(ctx, { balance_sync: true }, () => importCsv(ctx.api, csv));
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoice_recon', result_message: '3 invoices reconciled; 1 open invoice it leaves out was closed', file_errors_count: 0 });

    const closed = await ctx.api.get<{ deleted?: boolean }>(`/api/exports/invoice/${left}`);
    expect(closed.body.deleted).toBe(true);
    const open = await ctx.api.get<Array<{ number: string }>>(`/api/exports/customer/${c}/open_invoices?list=true`);
    expect(JSON.stringify(open.body)).not.toContain(left);
    expect((await ctx.api.get<{ owing_cents: number }>(`/api/exports/invoice/${differs}`)).body.owing_cents).toBe(2500);

    const page = await ctx.api.get<{ reconciliation_invoices: Record<string, Recon> }>(`/api/exports/invoice_recon/${batch.id}`);
    expect(page.status).toBe(200);
    const records = Object.values(page.body.reconciliation_invoices);
    expect(records.map((r) => [r.number, r.discrepancy_message])).toEqual([
      [differs, 'Balance corrected from $100.00'],
      [missing, 'Invoice Not Present in Laneway'],
      [left, 'Invoice Not Present in Source System; closed'],
    ]);
    expect(records[0]).toMatchObject({ balance_in_arc: '$25.00', balance_in_source_system: '$25.00', customer_number: c, customer_name: 'Contoso Pharmacy' });
    // The file has no customer_name column: the closed invoice's record names its customer as known here.
    expect(records[2]).toMatchObject({ customer_number: c, customer_name: 'Contoso Pharmacy' });
    // Most recent by default; list form; watermark paging.
    const latest = await ctx.api.get<{ reconciliation_invoices: Recon[] }>('/api/exports/invoice_recon?list=true');
    expect(latest.body.reconciliation_invoices.map((r) => r.number)).toEqual([differs, missing, left]);
    const after = latest.body.reconciliation_invoices[0]!.watermark;
    const next = await ctx.api.get<{ reconciliation_invoices: Recon[] }>(`/api/exports/invoice_recon/${batch.id}?list=true&watermark=${after}&limit=1`);
    expect(next.body.reconciliation_invoices.map((r) => r.number)).toEqual([missing]);
  });

  it('refuses a balance beyond the invoice\'s amount (balance sync), naming the line, and leaves the invoice as it was', async () => {
    const c = uid('C');
    const [over, fine] = [uid('INV'), uid('INV')];
    for (const n of [over, fine]) expect((await ctx.api.post('/api/imports/invoice', { number: n, customer_identifier: c, amount: 10000, owing_cents: 10000, date: '2026-03-01' })).status).toBe(201);
    const csv = `number,customer_number,balance_in_source_system\n${over},${c},12000\n${fine},${c},4000\n`;
    const batch = await withCapabilities(ctx, { balance_sync: true }, () => importCsv(ctx.api, csv));
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoice_recon', file_errors_count: 1 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([[2, 'balance_in_source_system', 'owing_exceeds_amount']]);
    expect(errors.body.message[0]!.error).toContain(over);
    const owing = async (n: string) => (await ctx.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
    expect([await owing(over), await owing(fine)]).toEqual([10000, 4000]);
  });

  it('refuses a balance on the wrong side of zero (balance sync): a credit memo that would owe, an invoice that would owe less than nothing', async () => {
    const c = uid('C');
    const [memo, invoice, fine] = [uid('CM'), uid('INV'), uid('CM')];
    await withCapabilities(ctx, { balance_sync: true }, async () => {
      for (const [n, amount] of [[memo, -5000], [invoice, 10000], [fine, -5000]] as const) {
        expect((await ctx.api.post('/api/imports/invoice', { number: n, customer_identifier: c, amount, owing_cents: amount, date: '2026-03-01' })).status).toBe(201);
      }
    });
    const csv = `number,customer_number,balance_in_source_system\n${memo},${c},3000\n${invoice},${c},-100\n${fine},${c},-1000\n`;
    const batch = await withCapabilities(ctx, { balance_sync: true }, () => importCsv(ctx.api, csv));
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoice_recon', file_errors_count: 2 });
    const errors = await ctx.api.get<{ message: Array<{ line_number: number; field: string; code: string; error: string }> }>(`/api/imports/${batch.id}/errors`);
    expect(errors.body.message.map((e) => [e.line_number, e.field, e.code])).toEqual([
      [2, 'balance_in_source_system', 'owing_exceeds_amount'],
      [3, 'balance_in_source_system', 'owing_exceeds_amount'],
    ]);
    const owing = async (n: string) => (await ctx.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
    expect([await owing(memo), await owing(invoice), await owing(fine)]).toEqual([-5000, 10000, -1000]);
  });

  it('reads the listed invoices by the header as the rest of the file is read: a header with spaces around its names closes nothing listed', async () => {
    const c = uid('C');
    const listed = uid('INV');
    expect((await ctx.api.post('/api/imports/invoice', { number: listed, customer_identifier: c, amount: 5000, date: '2026-03-01' })).status).toBe(201);
    // As a spreadsheet saves a header typed with spaces after its commas, lines ending in CRLF.
    const batch = await importCsv(ctx.api, `number , customer_number , balance_in_source_system\r\n${listed},${c},5000\r\n`);
    expect(batch).toMatchObject({ status: 'completed', kind: 'invoice_recon', file_errors_count: 0 });
    const invoice = await ctx.api.get<{ deleted?: boolean; owing_cents: number }>(`/api/exports/invoice/${listed}`);
    expect(invoice.body.deleted).not.toBe(true);
    expect(invoice.body.owing_cents).toBe(5000);
    const page = await ctx.api.get<{ reconciliation_invoices: Recon[] }>(`/api/exports/invoice_recon/${batch.id}?list=true`);
    expect(page.body.reconciliation_invoices.map((r) => r.number)).not.toContain(listed);
  });

  it('compares the ERP\'s payments with ours and records what differs, changing nothing', async () => {
    const c = uid('C');
    const inv = uid('INV');
    await ctx.api.post('/api/imports/invoice', { number: inv, customer_identifier: c, amount: 10000, date: '2026-03-01' });
    const p = uid('P');
    await ctx.api.post('/api/imports/payment', { identifier: p, customer_identifier: c, amount_cents: 6000, invoice_number: inv, date: '2026-03-02' });
    const watermarkBefore = ctx.t.engine.core.currentWatermark();
    const csv = `payment_reconciliation_identifier,customer_identifier,payment_amount_in_source_system,applied_amount_in_source_system,payment_date_in_source_system\n${p},${c},6000,6000,2026-03-02\n${p}X,${c},100,0,2026-03-02\n`;
    const same = `${csv}`;
    const batch = await importCsv(ctx.api, same);
    expect(batch).toMatchObject({ status: 'completed', kind: 'payment_recon' });
    const page = await ctx.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon?list=true`);
    expect(page.body.reconciliation_payments.map((r) => [r.payment_reconciliation_identifier, r.discrepancy_message])).toEqual([[`${p}X`, 'Payment Not Present in Laneway']]);
    const payments = await ctx.t.engine.core.find('payments', { selector: { watermark: { $gt: watermarkBefore } } });
    expect(payments).toEqual([]);
    const differs = await importCsv(ctx.api, `payment_reconciliation_identifier,payment_amount_in_source_system,payment_date_in_source_system\n${p},7000,2026-03-05\n`);
    const again = await ctx.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon/${differs.id}?list=true`);
    expect(again.body.reconciliation_payments[0]).toMatchObject({
      discrepancy_message: 'These fields do not match: Payment date, Payment amount',
      payment_amount: '$60.00',
      payment_amount_in_source_system: '$70.00',
    });
    // Every field of the reference's record is there; without their columns in the file, the
    // source system's external number and currency are empty, ours are the payment's.
    const fields = referenceKeys('PaymentReconResponse');
    expect(fields).toEqual(expect.arrayContaining(['currency', 'currency_in_source_system', 'external_payment_number', 'external_payment_number_in_source_system']));
    expect(fields.filter((k) => !(k in again.body.reconciliation_payments[0]!))).toEqual([]);
    expect(again.body.reconciliation_payments[0]).toMatchObject({ external_payment_number: '', external_payment_number_in_source_system: '', currency: 'usd', currency_in_source_system: '' });
    // A record kept before every record carried them (data folders of older versions): the file's
    // side is empty, ours the payment's as it is now.
    await ctx.t.engine.core.mutate((tx) =>
      putRecord(tx, RECON_PAYMENT, `${differs.id}/legacy`, { payment_reconciliation_identifier: p, customer_identifier: c, discrepancy_message: 'These fields do not match: Payment amount', payment_amount: '$60.00', payment_amount_in_source_system: '$1.00', applied_amount: '$60.00', applied_amount_in_source_system: '', unapplied_amount: '$0.00', unapplied_amount_in_source_system: '', payment_date: '2026-03-02', payment_date_in_source_system: '', batch: differs.id }, { type: 'recon_payment.created', entity: 'reconciliation', key: String(differs.id) }, String(differs.id)),
    );
    const legacy = (await ctx.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon/${differs.id}?list=true`)).body.reconciliation_payments;
    expect(legacy[1]).toMatchObject({ payment_amount_in_source_system: '$1.00', currency: 'usd', currency_in_source_system: '', external_payment_number: '', external_payment_number_in_source_system: '' });
    // A payment not here: our side is empty, the file's as it gave it.
    expect(page.body.reconciliation_payments[0]).toMatchObject({ currency: '', currency_in_source_system: '', external_payment_number: '', payment_amount: '' });

    // The external number and the currency, when the file has them, are compared too.
    const q = uid('P');
    await ctx.api.post('/api/imports/payment', { identifier: q, customer_identifier: c, amount_cents: 2500, invoice_number: inv, date: '2026-03-03', external_payment_number: 'CHQ-1001' });
    const header = 'payment_reconciliation_identifier,payment_amount_in_source_system,external_payment_number_in_source_system,currency_in_source_system';
    const agrees = await importCsv(ctx.api, `${header}\n${q},2500,CHQ-1001,USD\n`);
    expect((await ctx.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon/${agrees.id}?list=true`)).body.reconciliation_payments).toEqual([]);
    const other = await importCsv(ctx.api, `${header}\n${q},2500,CHQ-1002,CAD\n`);
    expect((await ctx.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon/${other.id}?list=true`)).body.reconciliation_payments[0]).toMatchObject({
      discrepancy_message: 'These fields do not match: External payment number, Currency',
      external_payment_number: 'CHQ-1001',
      external_payment_number_in_source_system: 'CHQ-1002',
      currency: 'usd',
      currency_in_source_system: 'cad',
      payment_amount: '$25.00',
      payment_amount_in_source_system: 'CA$25.00',
    });
    const missing = await importCsv(ctx.api, `${header}\n${q}X,900,CHQ-7,EUR\n`);
    expect((await ctx.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon/${missing.id}?list=true`)).body.reconciliation_payments[0]).toMatchObject({
      discrepancy_message: 'Payment Not Present in Laneway',
      external_payment_number: '',
      external_payment_number_in_source_system: 'CHQ-7',
      currency: '',
      currency_in_source_system: 'eur',
      payment_amount_in_source_system: '€9.00',
    });
    const bad = await importCsv(ctx.api, `${header}\n${q},2500,CHQ-1001,DOLLARS\n`);
    expect(bad.file_errors_count).toBe(1);
  });
});

describe('a reconciliation line whose key is written with white space around it', () => {
  it('reconciles the invoice it names after trimming ( T-0 is T-0): its balance is corrected and it is listed, as the closing counted it', async () => {
    // Its own shop: the file is the complete list of this shop's open invoices.
    const h = await openHarness({ api: true });
    try {
      await withCapabilities(h, { balance_sync: true }, async () => {
        for (const n of ['T-0', 'T-1', 'T-2']) expect((await h.api.post('/api/imports/invoice', { number: n, customer_identifier: 'C1001', amount: 10000, owing_cents: 10000, date: '2026-03-01' })).status).toBe(201);
        const batch = await importCsv(h.api, 'number,balance_in_source_system\n T-0 ,4000\nT-1,10000\n');
        expect(batch).toMatchObject({ status: 'completed', kind: 'invoice_recon', file_errors_count: 0, result_message: '2 invoices reconciled; 1 open invoice it leaves out was closed' });
        const view = async (n: string) => (await h.api.get<{ owing_cents: number; deleted?: boolean }>(`/api/exports/invoice/${n}`)).body;
        expect([(await view('T-0')).owing_cents, (await view('T-0')).deleted ?? false]).toEqual([4000, false]);
        expect((await view('T-1')).owing_cents).toBe(10000);
        expect((await view('T-2')).deleted).toBe(true);
        const records = (await h.api.get<{ reconciliation_invoices: Recon[] }>(`/api/exports/invoice_recon/${batch.id}?list=true`)).body.reconciliation_invoices;
        expect(records.map((r) => [r.number, r.discrepancy_message])).toEqual([
          ['T-0', 'Balance corrected from $100.00'],
          ['T-2', 'Invoice Not Present in Source System; closed'],
        ]);
      });
    } finally {
      await h.close();
    }
  });

  it('compares the payment a payment reconciliation line names after trimming, rather than record it not present', async () => {
    const h = await openHarness({ api: true });
    try {
      expect((await h.api.post('/api/imports/invoice', { number: 'T-1', customer_identifier: 'C1001', amount: 10000, date: '2026-03-01' })).status).toBe(201);
      expect((await h.api.post('/api/imports/payment', { identifier: 'CHQ-9', customer_identifier: 'C1001', amount_cents: 2500, invoice_number: 'T-1', date: '2026-03-02' })).status).toBe(201);
      const payments = await importCsv(h.api, 'payment_reconciliation_identifier,payment_amount_in_source_system\n CHQ-9 ,3000\n');
      expect(payments).toMatchObject({ status: 'completed', kind: 'payment_recon', file_errors_count: 0 });
      const compared = (await h.api.get<{ reconciliation_payments: Recon[] }>(`/api/exports/payment_recon/${payments.id}?list=true`)).body.reconciliation_payments;
      expect(compared.map((r) => [r.payment_reconciliation_identifier, r.discrepancy_message])).toEqual([['CHQ-9', 'These fields do not match: Payment amount']]);
    } finally {
      await h.close();
    }
  });
});
