import { describe, expect, it } from 'vitest';
import { uid } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';
import type { AllocationCut } from '../../src/engine/receivables/types';

/**
 * An invoice re-imported with a new amount keeps only what that amount allows to be applied, in
 * every direction (an invoice owes 0 to its amount, a credit memo its amount to 0), cutting the
 * payments served last; and every allocation's picture of its invoice (invoice_balance,
 * invoice_amount_paid, short_pay_indicator) follows the served order, not the order of arrival.
 */
const ctx = useHarness({ api: true });

interface Amount {
  invoice_number: string;
  amount: string;
  invoice_balance: string;
  invoice_amount_paid: string;
  short_pay_indicator: string;
}
interface Payment {
  payment_amounts: Amount[];
  unapplied_amount: string;
}

const post = (kind: string, body: Record<string, unknown>) => ctx.api.post<{ code?: string }>(`/api/imports/${kind}`, body);
const invoice = (number: string) => ctx.api.get<{ amount_cents: number; owing_cents: number; status: string }>(`/api/exports/invoice/${number}`).then((r) => r.body);
const payment = (ref: string) => ctx.api.get<Payment>(`/api/exports/payment/${ref}`).then((r) => r.body);
/** What a payment applies (invoice, amount; allocations at zero left out) and its unapplied credit. */
const applied = async (ref: string) => {
  const p = await payment(ref);
  return { applied: p.payment_amounts.filter((a) => a.amount !== '0.00').map((a) => [a.invoice_number, a.amount]), unapplied: p.unapplied_amount };
};
const customer = (id: string) => ctx.api.get<Record<string, string>>(`/api/exports/customer/${id}`).then((r) => r.body);
/** An invoice import through the engine, answering the allocations it cut (what sync reports as allocation_reduced). */
const reimport = async (body: Record<string, unknown>) => {
  const cuts: AllocationCut[] = [];
  await ctx.t.engine.receivables.importInvoice(body as never, { cuts });
  return cuts;
};

describe('an invoice whose new amount no longer allows what was applied', () => {
  it('a credit memo moved towards zero: the payment that netted it uses only the credit left, and pays its invoice that much less', async () => {
    const c = uid('R');
    const [inv, memo, p] = [uid('INV'), uid('CM'), uid('P')];
    expect((await post('invoice', { number: inv, customer_identifier: c, amount: 5000 })).status).toBe(201);
    expect((await post('invoice', { number: memo, customer_identifier: c, amount: -3000 })).status).toBe(201);
    const receipt = { identifier: p, customer_identifier: c, amount_cents: 2000, payment_amounts_attributes: [{ invoice_number: inv, amount: 5000 }, { invoice_number: memo, amount: -3000 }] };
    expect((await post('payment', receipt)).status).toBe(201);
    expect((await customer(c)).balance).toBe('$0.00');

    const cuts = await reimport({ number: memo, customer_identifier: c, amount: -1000 });
    // The memo gives 10.00 now: the receipt is 20.00 cash and 10.00 credit, 30.00 on the invoice.
    expect(cuts).toEqual([
      { payment: p, invoice_number: memo, from_cents: -3000, to_cents: -1000 },
      { payment: p, invoice_number: inv, from_cents: 5000, to_cents: 3000 },
    ]);
    expect(await invoice(memo)).toMatchObject({ amount_cents: -1000, owing_cents: 0 });
    expect(await invoice(inv)).toMatchObject({ owing_cents: 2000, status: 'PARTIAL' });
    expect(await applied(p)).toEqual({ applied: [[inv, '30.00'], [memo, '-10.00']], unapplied: '0.00' });
    // No money made or lost: the customer owes exactly the credit the memo no longer gives.
    expect((await customer(c)).balance).toBe('$20.00');
    expect((await customer(c)).unapplied_payment).toBe('$0.00');
    expect((await payment(p)).payment_amounts.map((a) => [a.invoice_number, a.invoice_balance, a.short_pay_indicator])).toEqual([
      [inv, '20.00', 'Y'],
      [memo, '0.00', 'N'],
    ]);
  });

  it('a credit memo used by two payments: the one served last gives up its use first; its unapplied credit covers it before an invoice does', async () => {
    const c = uid('R');
    const [a, b, memo, early, late] = [uid('INV'), uid('INV'), uid('CM'), `${uid('P')}-1`, `${uid('P')}-2`];
    for (const [n, amount] of [[a, 5000], [b, 5000], [memo, -3000]] as const) await post('invoice', { number: n, customer_identifier: c, amount });
    // Recorded late first: the served order is the payment date, not the order of arrival.
    await post('payment', { identifier: late, customer_identifier: c, date: '2026-11-20', amount_cents: 4000, payment_amounts_attributes: [{ invoice_number: b, amount: 5000 }, { invoice_number: memo, amount: -2000 }] });
    await post('payment', { identifier: early, customer_identifier: c, date: '2026-11-10', amount_cents: 4000, payment_amounts_attributes: [{ invoice_number: a, amount: 5000 }, { invoice_number: memo, amount: -1000 }] });
    expect(await applied(late)).toEqual({ applied: [[b, '50.00'], [memo, '-20.00']], unapplied: '10.00' });

    const cuts = await reimport({ number: memo, customer_identifier: c, amount: -1500 });
    // 15.00 of the 30.00 used comes back: all from the later payment (20.00 → 5.00); its 10.00 of
    // unapplied credit pays for 10.00 of it, invoice b for the other 5.00.
    expect(cuts).toEqual([
      { payment: late, invoice_number: memo, from_cents: -2000, to_cents: -500 },
      { payment: late, invoice_number: b, from_cents: 5000, to_cents: 4500 },
    ]);
    expect(await applied(early)).toEqual({ applied: [[a, '50.00'], [memo, '-10.00']], unapplied: '0.00' });
    expect(await applied(late)).toEqual({ applied: [[b, '45.00'], [memo, '-5.00']], unapplied: '0.00' });
    expect(await invoice(memo)).toMatchObject({ owing_cents: 0 });
    expect(await invoice(b)).toMatchObject({ owing_cents: 500 });
    expect((await customer(c)).balance).toBe('$5.00');
    expect((await customer(c)).unapplied_payment).toBe('$0.00');
  });

  it('a fully used credit memo turned into an invoice: its credit is no longer used, and the invoice it paid is owed again', async () => {
    const c = uid('R');
    const [inv, memo, p] = [uid('INV'), uid('CM'), uid('P')];
    await post('invoice', { number: inv, customer_identifier: c, amount: 10000 });
    await post('invoice', { number: memo, customer_identifier: c, amount: -4000 });
    await post('payment', { identifier: p, customer_identifier: c, amount_cents: 6000, payment_amounts_attributes: [{ invoice_number: inv, amount: 10000 }, { invoice_number: memo, amount: -4000 }] });

    const cuts = await reimport({ number: memo, customer_identifier: c, amount: 4000 });
    expect(cuts).toEqual([
      { payment: p, invoice_number: memo, from_cents: -4000, to_cents: 0 },
      { payment: p, invoice_number: inv, from_cents: 10000, to_cents: 6000 },
    ]);
    // An invoice of 40.00 owes 40.00 (not 80.00); the one the payment paid owes the 40.00 of credit.
    expect(await invoice(memo)).toMatchObject({ amount_cents: 4000, owing_cents: 4000 });
    expect(await invoice(inv)).toMatchObject({ owing_cents: 4000 });
    expect(await applied(p)).toEqual({ applied: [[inv, '60.00']], unapplied: '0.00' });
    expect((await customer(c)).balance).toBe('$80.00');
  });

  it('a paid invoice turned into a credit memo: the payments on it are taken off whole, their unapplied credit', async () => {
    const c = uid('R');
    const [inv, p] = [uid('INV'), uid('P')];
    await post('invoice', { number: inv, customer_identifier: c, amount: 10000 });
    await post('payment', { identifier: p, customer_identifier: c, invoice_number: inv, amount_cents: 10000 });

    const cuts = await reimport({ number: inv, customer_identifier: c, amount: -5000 });
    expect(cuts).toEqual([{ payment: p, invoice_number: inv, from_cents: 10000, to_cents: 0 }]);
    // A -50.00 memo gives 50.00 of credit, not 150.00.
    expect(await invoice(inv)).toMatchObject({ amount_cents: -5000, owing_cents: -5000, status: 'CREDIT' });
    expect(await applied(p)).toEqual({ applied: [], unapplied: '100.00' });
    expect((await customer(c)).unapplied_payment).toBe('$100.00');
  });

  it('a change the payments still fit cuts nothing: a memo given more credit, an invoice raised', async () => {
    const c = uid('R');
    const [inv, memo, p] = [uid('INV'), uid('CM'), uid('P')];
    await post('invoice', { number: inv, customer_identifier: c, amount: 5000 });
    await post('invoice', { number: memo, customer_identifier: c, amount: -3000 });
    await post('payment', { identifier: p, customer_identifier: c, amount_cents: 2000, payment_amounts_attributes: [{ invoice_number: inv, amount: 5000 }, { invoice_number: memo, amount: -3000 }] });
    expect(await reimport({ number: memo, customer_identifier: c, amount: -4000 })).toEqual([]);
    expect(await reimport({ number: inv, customer_identifier: c, amount: 6000 })).toEqual([]);
    expect(await invoice(memo)).toMatchObject({ owing_cents: -1000 });
    expect(await invoice(inv)).toMatchObject({ owing_cents: 1000 });
    expect(await applied(p)).toEqual({ applied: [[inv, '50.00'], [memo, '-30.00']], unapplied: '0.00' });
  });
});

describe('each allocation pictures its invoice in served order', () => {
  const picture = async (ref: string) => (await payment(ref)).payment_amounts.map((a) => [a.amount, a.invoice_balance, a.invoice_amount_paid, a.short_pay_indicator]);
  const recordPicture = async (ref: string) => {
    const { payment_amounts } = (await ctx.api.get<{ payment_amounts: Array<Amount & { payment_reference: string }> }>('/api/exports/payment_amounts?list=true&limit=2500')).body;
    return payment_amounts.filter((a) => a.payment_reference === ref).map((a) => [a.amount, a.invoice_balance, a.invoice_amount_paid, a.short_pay_indicator]);
  };

  it('a payment served earlier arriving later takes its place: both pictures are the served ones, in the payment and in its amount records', async () => {
    const c = uid('C');
    const [ia, pa, pb] = [uid('IA'), uid('PA'), uid('PB')];
    await post('invoice', { number: ia, customer_identifier: c, amount: 10000, date: '2026-11-01' });
    await post('payment', { identifier: pb, customer_identifier: c, invoice_number: ia, amount_cents: 10000, date: '2026-11-25' });
    await post('payment', { identifier: pa, customer_identifier: c, invoice_number: ia, amount_cents: 6000, date: '2026-11-01' });
    expect(await invoice(ia)).toMatchObject({ owing_cents: 0, status: 'PAID' });
    expect(await picture(pa)).toEqual([['60.00', '40.00', '60.00', 'Y']]);
    expect(await picture(pb)).toEqual([['40.00', '0.00', '100.00', 'N']]);
    expect(await recordPicture(pa)).toEqual([['60.00', '40.00', '60.00', 'Y']]);
    expect(await recordPicture(pb)).toEqual([['40.00', '0.00', '100.00', 'N']]);
  });

  it('rearranged without a cut (the invoice had room for both), and after an invoice lowered cuts the one served last', async () => {
    const c = uid('C');
    const [ia, pa, pb] = [uid('IA'), uid('PA'), uid('PB')];
    await post('invoice', { number: ia, customer_identifier: c, amount: 10000 });
    await post('payment', { identifier: pb, customer_identifier: c, invoice_number: ia, amount_cents: 4000, date: '2026-11-25' });
    await post('payment', { identifier: pa, customer_identifier: c, invoice_number: ia, amount_cents: 3000, date: '2026-11-01' });
    expect(await picture(pa)).toEqual([['30.00', '70.00', '30.00', 'Y']]);
    expect(await picture(pb)).toEqual([['40.00', '30.00', '70.00', 'Y']]);
    // Lowered to 50.00: PB (served last) keeps 20.00, and each picture is of the invoice as it is now.
    await post('invoice', { number: ia, customer_identifier: c, amount: 5000, amount_override: true });
    expect(await picture(pa)).toEqual([['30.00', '20.00', '30.00', 'Y']]);
    expect(await picture(pb)).toEqual([['20.00', '0.00', '50.00', 'N']]);
    expect(await recordPicture(pb)).toEqual([['20.00', '0.00', '50.00', 'N']]);
  });
});
