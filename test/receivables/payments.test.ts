import { describe, expect, it } from 'vitest';
import { fields, uid, type ErrorReply } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';
import { referenceKeys } from '../helpers/reference-check';

const ctx = useHarness({ api: true });
type Payment = Record<string, unknown> & { payment_amounts: Array<Record<string, unknown>>; payment_tree?: { root: string; children: string[] } };

const importPayment = (body: Record<string, unknown>) => ctx.api.post<ErrorReply & { identifier: string; message: string }>('/api/imports/payment', body);
const invoice = async (customer: string, amount: number, extra: Record<string, unknown> = {}) => {
  const number = uid('INV');
  await ctx.api.post('/api/imports/invoice', { number, customer_identifier: customer, amount, ...extra });
  return number;
};
const owing = async (number: string) => (await ctx.api.get<{ owing_cents: number; status: string }>(`/api/exports/invoice/${number}`)).body;
const customer = async (id: string) => (await ctx.api.get<Record<string, string>>(`/api/exports/customer/${id}`)).body;

describe('payment import', () => {
  it('takes the ERP\'s payment identifiers as they are (spaces, #), and finds them again URL-encoded', async () => {
    const c = uid('C');
    const inv = await invoice(c, 5000);
    const reference = uid('CHQ 12#');
    expect((await importPayment({ identifier: reference, invoice_number: inv, amount_cents: 1200, customer_identifier: c })).status).toBe(201);
    const view = await ctx.api.get<Payment>(`/api/exports/payment/${encodeURIComponent(reference)}`);
    expect(view.status).toBe(200);
    expect(view.body.payment_reference).toBe(reference);
    expect(view.body.payment_amounts.map((a) => a.invoice_number)).toEqual([inv]);
    for (const bad of [' lead', 'bell\u0007', 'x'.repeat(101)]) expect(fields((await importPayment({ identifier: bad, invoice_number: inv, amount_cents: 1 })).body), bad).toContain('identifier');
  });

  it('accepts the read-only watermark a client sends back with what it read, and ignores it', async () => {
    const c = uid('C');
    const inv = await invoice(c, 5000);
    const reference = uid('P');
    expect((await importPayment({ identifier: reference, invoice_number: inv, amount_cents: 1200, customer_identifier: c })).status).toBe(201);
    const read = (await ctx.api.get<Payment>(`/api/exports/payment/${reference}`)).body;
    const again = await importPayment({ identifier: reference, invoice_number: inv, amount_cents: 1500, customer_identifier: c, watermark: read.watermark });
    expect(again.status).toBe(201);
    const after = (await ctx.api.get<Payment>(`/api/exports/payment/${reference}`)).body;
    expect(after.payment_amount).toBe('15.00');
    expect(after.watermark).toBeGreaterThan(read.watermark as number);
  });

  it('create_only refuses an identifier already recorded, naming that payment, and changes nothing (the back office\'s cheques)', async () => {
    const [a, b] = [uid('C'), uid('C')];
    const inv = await invoice(a, 5000);
    const reference = uid('CHQ');
    const first = await ctx.api.post('/api/imports/payment?create_only=true', { identifier: reference, invoice_number: inv, amount_cents: 5000, customer_identifier: a });
    expect(first.status).toBe(201);
    const again = await ctx.api.post<ErrorReply>('/api/imports/payment?create_only=true', { identifier: reference, amount_cents: 1000, customer_identifier: b });
    expect(again.status).toBe(412);
    expect(fields(again.body)).toEqual(['identifier']);
    expect(JSON.stringify(again.body)).toContain('payment_exists');
    expect(JSON.stringify(again.body)).toContain('$50.00');
    const view = await ctx.api.get<Payment>(`/api/exports/payment/${reference}`);
    expect(view.body).toMatchObject({ customer_identifier: a, payment_amount: '50.00' });
    expect((await owing(inv)).owing_cents).toBe(0);
    // Without it, the reference's import updates the payment, as ERPs expect.
    expect((await importPayment({ identifier: reference, invoice_number: inv, amount_cents: 4000, customer_identifier: a })).status).toBe(201);
    expect((await owing(inv)).owing_cents).toBe(1000);
  });

  it('the last payment is found again among the others when the last one is edited to an older date', async () => {
    const c = uid('C');
    const inv = await invoice(c, 100000);
    const [early, late] = [uid('P'), uid('P')];
    await importPayment({ identifier: early, invoice_number: inv, amount_cents: 1100, date: '2026-03-11', customer_identifier: c });
    await importPayment({ identifier: late, invoice_number: inv, amount_cents: 1900, date: '2026-03-19', customer_identifier: c });
    expect([(await customer(c)).last_payment_date, (await customer(c)).last_payment_amount]).toEqual(['2026-03-19', '$19.00']);
    // The latest payment moved before the other one: the other one is the last now.
    await importPayment({ identifier: late, invoice_number: inv, amount_cents: 1900, date: '2026-03-01', customer_identifier: c });
    expect([(await customer(c)).last_payment_date, (await customer(c)).last_payment_amount]).toEqual(['2026-03-11', '$11.00']);
    // And back after it.
    await importPayment({ identifier: late, invoice_number: inv, amount_cents: 2000, date: '2026-03-20', customer_identifier: c });
    expect([(await customer(c)).last_payment_date, (await customer(c)).last_payment_amount]).toEqual(['2026-03-20', '$20.00']);
  });

  it('applies a single-invoice payment; an overpayment becomes unapplied credit', async () => {
    const c = uid('C');
    const inv = await invoice(c, 10000);
    const res = await importPayment({ identifier: uid('P'), invoice_number: inv, amount_cents: 4000, date: '2026-03-01', currency: 'usd' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('1 payment 1 invoice amounts');
    expect(await owing(inv)).toMatchObject({ owing_cents: 6000, status: 'PARTIAL' });
    expect((await customer(c)).balance).toBe('$60.00');
    await importPayment({ identifier: uid('P'), invoice_number: inv, amount_cents: 7500 });
    expect(await owing(inv)).toMatchObject({ owing_cents: 0, status: 'PAID' });
    const v = await customer(c);
    expect([v.balance, v.unapplied_payment, v.last_payment_amount, v.last_payment_source]).toEqual(['$0.00', '$15.00', '$75.00', 'erp']);
  });

  it('payments asking more of an invoice than it owes are served by payment date, then identifier, whatever order they came in', async () => {
    const applied = async (ref: string) => {
      const p = (await ctx.api.get<Payment>(`/api/exports/payment/${ref}`)).body;
      return [p.payment_amounts.filter((a) => a.amount !== '0.00').map((a) => a.amount), p.unapplied_amount];
    };
    // Recorded in either order, the same end: the earlier identifier keeps its share.
    for (const order of [['A', 'B'], ['B', 'A']]) {
      const c = uid('C');
      const inv = await invoice(c, 10000);
      const ref = (x: string) => `${c}-${x}`;
      const amounts: Record<string, number> = { A: 3000, B: 9000 };
      for (const x of order) expect((await importPayment({ identifier: ref(x), invoice_number: inv, amount_cents: amounts[x], customer_identifier: c, date: '2026-11-28' })).status).toBe(201);
      expect(await owing(inv), order.join()).toMatchObject({ owing_cents: 0, status: 'PAID' });
      expect([await applied(ref('A')), await applied(ref('B'))], order.join()).toEqual([[['30.00'], '0.00'], [['70.00'], '20.00']]);
      expect((await customer(c)).unapplied_payment).toBe('$20.00');
    }
    // The date comes first: a payment dated earlier is served before one with a smaller identifier.
    const c = uid('C');
    const inv = await invoice(c, 10000);
    await importPayment({ identifier: `${c}-A`, invoice_number: inv, amount_cents: 4000, customer_identifier: c, date: '2026-11-28' });
    await importPayment({ identifier: `${c}-B`, invoice_number: inv, amount_cents: 8000, customer_identifier: c, date: '2026-11-27' });
    expect([await applied(`${c}-B`), await applied(`${c}-A`)]).toEqual([[['80.00'], '0.00'], [['20.00'], '20.00']]);
    // An invoice lowered below what was applied: the payment served last gives the excess back.
    await ctx.api.post('/api/imports/invoice', { number: inv, customer_identifier: c, amount: 5000, amount_override: true });
    expect(await owing(inv)).toMatchObject({ owing_cents: 0, status: 'PAID' });
    expect([await applied(`${c}-B`), await applied(`${c}-A`)]).toEqual([[['50.00'], '30.00'], [[], '40.00']]);
    expect((await customer(c)).unapplied_payment).toBe('$70.00');
  });

  it('applies a multi-invoice payment (an invoice may repeat) and creates an absent customer', async () => {
    const c = uid('C');
    const [a, b] = [await invoice(c, 5000), await invoice(c, 3000)];
    const id = uid('P');
    const res = await importPayment({
      identifier: id,
      amount_cents: 9000,
      payment_amounts_attributes: [{ invoice_number: a, amount: 2000 }, { invoice_number: b, amount: 3000 }, { invoice_number: a, amount: 1000 }],
    });
    expect(res.body.message).toBe('1 payment 3 invoice amounts');
    expect((await owing(a)).owing_cents).toBe(2000);
    expect((await owing(b)).owing_cents).toBe(0);
    expect((await customer(c)).unapplied_payment).toBe('$30.00');
    const p = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body;
    expect(p.customer_identifier).toBe(c);
    expect(p.payment_amounts.map((x) => [x.invoice_number, x.amount, x.invoice_balance])).toEqual([[a, '20.00', '30.00'], [b, '30.00', '0.00'], [a, '10.00', '20.00']]);
    expect(p.unapplied_amount).toBe('30.00');
    // A payer not on file is created (it pays none of another customer's invoices: its money is its credit).
    const payer = uid('NEW');
    expect((await importPayment({ identifier: uid('P'), amount_cents: 3000, customer_identifier: payer, customer_name: 'Parent Co' })).status).toBe(201);
    expect((await customer(payer)).name).toBe('Parent Co');
    expect((await customer(payer)).unapplied_payment).toBe('$30.00');
  });

  it("nets a credit memo in a receipt (a negative amount on the memo), never spending more credit than the memo has", async () => {
    const c = uid('C');
    const inv = await invoice(c, 10000);
    const memo = await invoice(c, -2000);
    const other = await invoice(c, 3000);
    expect((await customer(c)).balance).toBe('$130.00');
    // A negative amount on an invoice that is no credit memo, more credit than the memo has (over
    // two entries), and credit left over with nothing to pay: refused, nothing changed.
    for (const [attrs, field, code] of [
      [[{ invoice_number: other, amount: -100 }, { invoice_number: inv, amount: 100 }], 'payment_amounts_attributes.0.amount', 'not_a_credit_memo'],
      [[{ invoice_number: inv, amount: 5000 }, { invoice_number: memo, amount: -1500 }, { invoice_number: memo, amount: -1000 }], 'payment_amounts_attributes.2.amount', 'more_than_credit'],
      [[{ invoice_number: memo, amount: -2000 }], 'payment_amounts_attributes', 'credit_exceeds_invoices'],
    ] as const) {
      const res = await importPayment({ identifier: uid('P'), customer_identifier: c, payment_amounts_attributes: attrs });
      expect(res.status, JSON.stringify(res.body)).toBe(412);
      expect(res.body.code).toBe(code);
      expect(fields(res.body)).toContain(field);
    }
    expect([(await owing(inv)).owing_cents, (await owing(memo)).owing_cents]).toEqual([10000, -2000]);

    // 80.00 received for a 100.00 invoice less a 20.00 credit memo.
    const id = uid('P');
    const res = await importPayment({ identifier: id, amount_cents: 8000, customer_identifier: c, payment_amounts_attributes: [{ invoice_number: inv, amount: 10000 }, { invoice_number: memo, amount: -2000 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await owing(inv)).owing_cents).toBe(0);
    expect((await owing(memo)).owing_cents).toBe(0);
    const p = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body;
    expect(p.payment_amounts.map((x) => [x.invoice_number, x.amount])).toEqual([[inv, '100.00'], [memo, '-20.00']]);
    expect(p.unapplied_amount).toBe('0.00');
    expect([(await customer(c)).balance, (await customer(c)).unapplied_payment]).toEqual(['$30.00', '$0.00']);

    // The memo's credit is spent: another receipt cannot take it again.
    const again = await importPayment({ identifier: uid('P'), customer_identifier: c, payment_amounts_attributes: [{ invoice_number: other, amount: 3000 }, { invoice_number: memo, amount: -2000 }] });
    expect(again.status).toBe(412);
    expect(again.body.code).toBe('more_than_credit');
    // An update that names no invoices keeps the netting (the memo stays used); taking the payment
    // off its invoices gives the memo its credit back.
    expect((await importPayment({ identifier: id, notes: 'rechecked' })).status).toBe(201);
    expect([(await owing(inv)).owing_cents, (await owing(memo)).owing_cents]).toEqual([0, 0]);
    expect((await importPayment({ identifier: id, amount_cents: 8000, payment_amounts_attributes: [] })).status).toBe(201);
    expect([(await owing(inv)).owing_cents, (await owing(memo)).owing_cents]).toEqual([10000, -2000]);
  });

  it('refuses payment_total in JSON (naming amount_cents) and accepts it from a CSV import', async () => {
    const c = uid('C');
    const inv = await invoice(c, 1000);
    const res = await importPayment({ identifier: uid('P'), invoice_number: inv, payment_total: 500 });
    expect(res.status).toBe(412);
    expect(res.body.code).toBe('payment_total_not_allowed');
    expect(res.body.error).toContain('amount_cents');
    await ctx.t.engine.receivables.importPayment({ identifier: uid('P'), invoice_number: inv, payment_total: '500' }, 'csv');
    expect((await owing(inv)).owing_cents).toBe(500);
    // The reference's single-invoice sample names the total `amount`.
    await importPayment({ identifier: uid('P'), invoice_number: inv, amount: 200 });
    expect((await owing(inv)).owing_cents).toBe(300);
  });

  it('refuses broken rules with 412, changing nothing', async () => {
    const c = uid('C');
    const inv = await invoice(c, 1000);
    const cad = await invoice(c, 1000, { currency: 'cad' });
    const before = ctx.t.engine.core.currentWatermark();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ invoice_number: inv, amount_cents: 1 }, 'identifier'],
      [{ identifier: 'bad id ', invoice_number: inv, amount_cents: 1 }, 'identifier'],
      [{ identifier: uid('P'), invoice_number: inv }, 'amount_cents'],
      [{ identifier: uid('P'), invoice_number: `NOPE${uid('x')}`, amount_cents: 1 }, 'invoice_number'],
      [{ identifier: uid('P'), amount_cents: 100, payment_amounts_attributes: [{ invoice_number: inv, amount: 200 }] }, 'amount_cents'],
      [{ identifier: uid('P'), payment_amounts_attributes: [{ invoice_number: inv, amount: 1 }, { invoice_number: cad, amount: 1 }] }, 'payment_amounts_attributes.1.invoice_number'],
      [{ identifier: uid('P'), amount_cents: 100 }, 'customer_identifier'],
      [{ identifier: uid('P'), invoice_number: inv, amount_cents: 100, payment_amounts_attributes: [] }, 'invoice_number'],
      [{ identifier: uid('P'), invoice_number: inv, amount_cents: -5 }, 'amount_cents'],
    ];
    for (const [body, field] of cases) {
      const res = await importPayment(body);
      expect(res.status, JSON.stringify(body)).toBe(412);
      expect(fields(res.body), JSON.stringify(body)).toContain(field);
    }
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
  });

  it("refuses a payment of one customer applied to another customer's invoice, naming the invoice, writing nothing", async () => {
    const [a, b] = [uid('C'), uid('C')];
    const ofA = await invoice(a, 3000);
    const ofB = await invoice(b, 5000);
    const kept = uid('P');
    expect((await importPayment({ identifier: kept, customer_identifier: a, invoice_number: ofA, amount_cents: 1000 })).status).toBe(201);
    const before = ctx.t.engine.core.currentWatermark();
    const fresh = uid('P');
    const cases: Array<[Record<string, unknown>, string]> = [
      // The payment names A; the invoice is B's.
      [{ identifier: fresh, customer_identifier: a, invoice_number: ofB, amount_cents: 5000 }, 'invoice_number'],
      // No customer named: the first invoice's customer pays, and the second invoice is another's.
      [{ identifier: fresh, amount_cents: 8000, payment_amounts_attributes: [{ invoice_number: ofA, amount: 3000 }, { invoice_number: ofB, amount: 5000 }] }, 'payment_amounts_attributes.1.invoice_number'],
      // A customer not on file yet owns no invoice (nor is it made).
      [{ identifier: fresh, customer_identifier: uid('C'), invoice_number: ofB, amount_cents: 5000 }, 'invoice_number'],
      // An update naming no customer stays A's payment: it cannot move onto B's invoice.
      [{ identifier: kept, invoice_number: ofB, amount_cents: 1000 }, 'invoice_number'],
    ];
    for (const [body, field] of cases) {
      const res = await importPayment(body);
      expect(res.status, JSON.stringify(body)).toBe(412);
      expect(res.body.code, JSON.stringify(body)).toBe('invoice_of_another_customer');
      expect(fields(res.body), JSON.stringify(body)).toEqual([field]);
      expect(res.body.error, JSON.stringify(body)).toContain(ofB);
    }
    // Nor does naming B move A's payment while it keeps paying A's invoice.
    const moved = await importPayment({ identifier: kept, customer_identifier: b });
    expect([moved.status, moved.body.code, fields(moved.body)]).toEqual([412, 'invoice_of_another_customer', ['customer_identifier']]);
    expect(moved.body.error).toContain(ofA);
    expect(ctx.t.engine.core.currentWatermark()).toBe(before);
    expect((await ctx.api.get(`/api/exports/payment/${fresh}`)).status).toBe(404);
    expect((await owing(ofB)).owing_cents).toBe(5000);
    expect((await ctx.api.get<Payment>(`/api/exports/payment/${kept}`)).body).toMatchObject({ customer_identifier: a, payment_amount: '10.00' });
    // Named as B's, the payment may pay B's invoice (an ERP correcting whose cheque it was).
    expect((await importPayment({ identifier: kept, customer_identifier: b, invoice_number: ofB, amount_cents: 1000 })).status).toBe(201);
    expect([(await owing(ofA)).owing_cents, (await owing(ofB)).owing_cents]).toEqual([3000, 4000]);
  });

  it('records external payments (cheque, cash, wire...) keeping only the bank account\'s last four digits', async () => {
    const c = uid('C');
    const inv = await invoice(c, 2000);
    const id = uid('CHQ');
    await importPayment({ identifier: id, invoice_number: inv, amount_cents: 2000, external_payment_type: 'cheque', external_payment_number: '1042', payor_bank_branch_number: '021000021', payor_bank_account_number: '000123456789' });
    const p = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body;
    expect([p.payment_source, p.external_payment_type, p.payor_bank_account_number, p.payment_method]).toEqual(['EXTERNAL', 'cheque', '****6789', 'cheque 1042 (6789)']);
    const stored = JSON.stringify(await ctx.t.engine.core.get('payments', id));
    expect(stored).not.toContain('123456789');
    expect((await customer(c)).last_payment_source).toBe('external');
    await ctx.t.engine.receivables.importPayment({ identifier: uid('CASH'), invoice_number: await invoice(c, 100), amount_cents: 100, external_payment_type: 'cash' }, 'cashier');
    expect((await customer(c)).last_payment_source).toBe('manual');
  });

  it("answers the reference's FX fields on a payment and each of its amounts, null with or without options[fx]: no currency is converted", async () => {
    const c = uid('C');
    const inv = await invoice(c, 5000);
    const id = uid('P');
    const start = ctx.t.engine.core.currentWatermark();
    await importPayment({ identifier: id, invoice_number: inv, amount_cents: 2000 });
    const fx = (name: string) => referenceKeys(name).filter((k) => k.startsWith('fx_'));
    expect(fx('PaymentResponse')).toEqual(['fx_rate', 'fx_amount', 'fx_amount_cents']);
    expect(fx('PaymentAmount')).toEqual(['fx_rate', 'fx_amount', 'fx_amount_cents']);
    const none = { fx_rate: null, fx_amount: null, fx_amount_cents: null };
    const token = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body.payment_transaction_token as string;
    for (const q of ['', '?options[fx]=true']) {
      const views = [
        (await ctx.api.get<Payment>(`/api/exports/payment/${id}${q}`)).body,
        (await ctx.api.get<Payment>(`/api/gateway/v1/payments/${token}${q}`)).body,
        (await ctx.api.get<{ payments: Payment[] }>(`/api/exports/payments${q || '?'}&list=true&watermark=${start}`)).body.payments[0]!,
        (await ctx.api.get<{ payments: Payment[] }>(`/api/exports/payments/recent${q || '?'}&list=true`)).body.payments.find((p) => p.payment_reference === id)!,
      ];
      for (const p of views) {
        expect(p).toMatchObject(none);
        expect(p.payment_amounts).toHaveLength(1);
        for (const a of p.payment_amounts) expect(a).toMatchObject(none);
      }
      const amounts = await ctx.api.get<{ payment_amounts: Array<Record<string, unknown>> }>(`/api/exports/payment_amounts${q || '?'}&list=true&watermark=${start}`);
      expect(amounts.body.payment_amounts).toHaveLength(1);
      expect(amounts.body.payment_amounts[0]).toMatchObject({ payment_reference: id, ...none });
    }
    // An amount stored before amounts carried them answers them too.
    const stored = (await ctx.t.engine.core.find('payment_amounts', { selector: { payment: id } }))[0]!;
    const { fx_rate: _r, fx_amount: _a, fx_amount_cents: _c, ...older } = stored.data as Record<string, unknown>;
    await ctx.t.engine.core.mutate((tx) => tx.put('payment_amounts', { ...stored, id: `${String(stored.id)}-older`, data: older }, { type: 'payment_amount.updated', entity: 'payment_amount', key: `${String(stored.id)}-older` }));
    const after = await ctx.api.get<{ payment_amounts: Array<Record<string, unknown>> }>(`/api/exports/payment_amounts?list=true&watermark=${start}`);
    expect(after.body.payment_amounts.at(-1)).toMatchObject({ payment_reference: id, ...none });
  });

  it('an update re-applies the payment: old allocations come off, new ones go on, removed ones export at zero', async () => {
    const c = uid('C');
    const [a, b] = [await invoice(c, 5000), await invoice(c, 5000)];
    const id = uid('P');
    const start = ctx.t.engine.core.currentWatermark();
    await importPayment({ identifier: id, payment_amounts_attributes: [{ invoice_number: a, amount: 1000 }, { invoice_number: b, amount: 2000 }] });
    await importPayment({ identifier: id, invoice_number: b, amount_cents: 500 });
    expect((await owing(a)).owing_cents).toBe(5000);
    expect((await owing(b)).owing_cents).toBe(4500);
    const amounts = await ctx.api.get<{ payment_amounts: Array<Record<string, unknown>> }>(`/api/exports/payment_amounts?watermark=${start}&list=true`);
    const latest = new Map(amounts.body.payment_amounts.map((x) => [`${String(x.payment_reference)}`, x]));
    expect(latest.size).toBe(1);
    const last = amounts.body.payment_amounts.slice(-2);
    expect(last.map((x) => x.amount).sort()).toEqual(['0.00', '5.00']);
    // The removed one names the invoice it was on.
    expect(last.find((x) => x.removed === true)).toMatchObject({ invoice_number: b, amount: '0.00' });
  });

  it('an update that names no invoice keeps what the payment paid (a new note does not reopen invoices); an empty list takes it off them', async () => {
    const c = uid('C');
    const [a, b] = [await invoice(c, 1001), await invoice(c, 5000)];
    const id = uid('P');
    expect((await importPayment({ identifier: id, amount_cents: 3100, payment_amounts_attributes: [{ invoice_number: a, amount: 1001 }, { invoice_number: b, amount: 2000 }] })).status).toBe(201);
    expect((await importPayment({ identifier: id, amount_cents: 3100, payment_code: 'RECHECKED' })).status).toBeLessThan(300);
    expect([(await owing(a)).owing_cents, (await owing(b)).owing_cents]).toEqual([0, 3000]);
    const view = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body;
    expect(view).toMatchObject({ payment_code: 'RECHECKED' });
    expect(view.payment_amounts.map((x) => [x.invoice_number, x.amount])).toEqual([[a, '10.01'], [b, '20.00']]);
    // Less than it applies, with no invoice named: refused, nothing changes.
    expect((await importPayment({ identifier: id, amount_cents: 1000 })).status).toBe(412);
    expect((await owing(b)).owing_cents).toBe(3000);
    // Named as none: off both invoices, all credit.
    expect((await importPayment({ identifier: id, amount_cents: 3100, payment_amounts_attributes: [] })).status).toBeLessThan(300);
    expect([(await owing(a)).owing_cents, (await owing(b)).owing_cents]).toEqual([1001, 5000]);
  });

  it('an update that sends no total keeps the amount received and its credit (it was cut to what the payment applied)', async () => {
    const c = uid('C');
    const a = await invoice(c, 1001);
    const id = uid('P');
    expect((await importPayment({ identifier: id, amount_cents: 5000, invoice_number: a })).status).toBe(201);
    expect((await importPayment({ identifier: id, payment_code: 'RECHECKED' })).status).toBeLessThan(300);
    const view = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body;
    expect([view.payment_amount, view.unapplied_amount, view.payment_code]).toEqual(['50.00', '39.99', 'RECHECKED']);
    expect((await owing(a)).owing_cents).toBe(0);
  });

  it("applies a payment's unapplied credit to open invoices of its customer, keeping what it paid, and refuses what does not fit", async () => {
    const c = uid('C');
    const [a, b, d] = [await invoice(c, 1001), await invoice(c, 2500), await invoice(c, 5000)];
    const other = await invoice(uid('C'), 700);
    const id = uid('P');
    expect((await importPayment({ identifier: id, customer_identifier: c, amount_cents: 5000, payment_amounts_attributes: [{ invoice_number: a, amount: 1001, notes: 'first cheque stub' }] })).status).toBe(201);
    const apply = (applications: unknown) => ctx.api.post<Payment & ErrorReply>(`/api/receivables/payments/${id}/applications`, { applications });
    const state = async () => [(await owing(a)).owing_cents, (await owing(b)).owing_cents, (await owing(d)).owing_cents, (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body.unapplied_amount];
    const before = await state();
    expect(before).toEqual([0, 2500, 5000, '39.99']);
    // Each refusal changes nothing.
    for (const [applications, code] of [
      [[{ invoice_number: b, amount_cents: 2500 }, { invoice_number: d, amount_cents: 1500 }], 'more_than_credit'],
      [[{ invoice_number: b, amount_cents: 2000 }, { invoice_number: b, amount_cents: 501 }], 'more_than_owing'],
      [[{ invoice_number: other, amount_cents: 100 }], 'invoice_of_another_customer'],
      [[{ invoice_number: 'NO-SUCH-INVOICE', amount_cents: 100 }], 'invoice_not_found'],
    ] as const) {
      const refused = await apply(applications);
      expect(refused.status, code).toBe(412);
      expect(JSON.stringify(refused.body), code).toContain(code);
      expect(await state(), code).toEqual(before);
    }
    expect((await ctx.api.post(`/api/receivables/payments/NO-SUCH-PAYMENT/applications`, { applications: [{ invoice_number: b, amount_cents: 1 }] })).status).toBe(404);

    const done = await apply([{ invoice_number: b, amount_cents: 2500 }, { invoice_number: d, amount_cents: 1499 }]);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect([done.body.payment_amount, done.body.unapplied_amount]).toEqual(['50.00', '0.00']);
    expect(await state()).toEqual([0, 0, 3501, '0.00']);
    const view = (await ctx.api.get<Payment>(`/api/exports/payment/${id}`)).body;
    expect(view.payment_amounts.map((x) => [x.invoice_number, x.amount])).toEqual([[a, '10.01'], [b, '25.00'], [d, '14.99']]);
    expect(view.payment_amounts[0]).toMatchObject({ payment_note: 'first cheque stub' });
  });

  it('a payment made here (autopay) accepts only its total without or with fees on update', async () => {
    const c = uid('C');
    const inv = await invoice(c, 10000);
    const r = ctx.t.engine.receivables;
    const paid = await r.recordPayment({ customer_identifier: c, amount_cents: 10000, fee_cents: 300, channel: 'autopay', payment_method: 'Visa (4242)', transaction_token: uid('TXN'), invoices: [{ number: inv, amount_cents: 10000 }] });
    const ref = String(paid.payment_reference);
    expect((await owing(inv)).owing_cents).toBe(0);
    const p = (await ctx.api.get<Payment>(`/api/exports/payment/${paid.payment_transaction_token as string}`)).body;
    expect([p.payment_reference, p.payment_amount, p.payment_transaction_amount, p.auto_debit_indicator, p.payment_source]).toEqual([ref, '100.00', '103.00', 'Y', 'ARC']);
    expect((await importPayment({ identifier: ref, amount_cents: 10000, payment_code: 'AP' })).status).toBe(201);
    expect((await importPayment({ identifier: ref, amount_cents: 10300 })).status).toBe(201);
    const wrong = await importPayment({ identifier: ref, amount_cents: 9999 });
    expect(wrong.status).toBe(412);
    expect(wrong.body.code).toBe('payment_amount_not_allowed');
    const moved = await importPayment({ identifier: ref, amount_cents: 10000, invoice_number: await invoice(c, 1) });
    expect(moved.body.code).toBe('payment_not_editable');
    // Sent back as read, its other fields unchanged: taken (a client that reads and re-sends a payment works).
    const same = { identifier: ref, amount_cents: 10000, customer_identifier: c, date: p.date, currency: p.currency };
    const resent = await importPayment(same);
    expect(resent.status, JSON.stringify(resent.body)).toBe(201);
    expect((await importPayment({ ...same, invoice_number: inv })).status).toBe(201);
    expect((await importPayment({ ...same, payment_amounts_attributes: [{ invoice_number: inv, amount: 10000 }] })).status).toBe(201);
    // Any of them changed is still refused, and nothing moved.
    for (const changed of [{ customer_identifier: uid('C2') }, { date: '2020-01-01' }, { currency: 'CAD' }, { payment_amounts_attributes: [{ invoice_number: inv, amount: 5000 }] }]) {
      const refused = await importPayment({ ...same, ...changed });
      expect(refused.body.code, JSON.stringify(changed)).toBe('payment_not_editable');
    }
    expect((await owing(inv)).owing_cents).toBe(0);
    expect((await customer(c)).status).toBe('Not Activated');
  });

  it('a reversal takes the payment back off its invoices', async () => {
    const c = uid('C');
    const inv = await invoice(c, 3000);
    const id = uid('P');
    await importPayment({ identifier: id, invoice_number: inv, amount_cents: 4000 });
    expect((await customer(c)).unapplied_payment).toBe('$10.00');
    await ctx.t.engine.receivables.reversePayment(id, 'ERROR (NSF)', 'Insufficient funds');
    expect((await owing(inv)).owing_cents).toBe(3000);
    const v = await customer(c);
    expect([v.balance, v.unapplied_payment]).toEqual(['$30.00', '$0.00']);
    const p = (await ctx.api.get<Payment>(`/api/exports/payment/${id}?options[export_payment_tree]=true`)).body;
    expect([p.status, p.status_reason]).toEqual(['ERROR (NSF)', 'Insufficient funds']);
    expect(p.payment_tree).toEqual({ root: id, children: [] });
    expect((await ctx.api.get(`/api/exports/payment/NOPE${uid('x')}`)).status).toBe(404);
  });
});

describe('autopay hooks', () => {
  it('lists a customer\'s open invoices due by a date, and records a payment against them', async () => {
    const c = uid('C');
    const early = await invoice(c, 1000, { date: '2026-02-01', due_date: '2026-02-15' });
    const late = await invoice(c, 2000, { date: '2026-02-01', due_date: '2026-04-15' });
    const manual = await invoice(c, 500, { date: '2026-02-01', due_date: '2026-02-20', auto_debit: 'N' });
    const r = ctx.t.engine.receivables;
    const due = await r.dueOpenInvoices(c, '2026-03-02');
    expect(due.map((d) => [d.number, d.owing_cents, d.auto_debit])).toEqual([[early, 1000, true], [manual, 500, false]]);
    await r.recordPayment({ customer_identifier: c, amount_cents: 1000, channel: 'autopay', invoices: [{ number: early, amount_cents: 1000 }] });
    expect((await r.dueOpenInvoices(c, '2026-03-02')).map((d) => d.number)).toEqual([manual]);
    expect((await r.dueOpenInvoices(c, '2026-05-01')).map((d) => d.number)).toEqual([manual, late]);
  });
});
