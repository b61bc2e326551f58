import { afterEach, describe, expect, it } from 'vitest';
import { op, startGateway, VISA, type Harness } from '../helpers/gateway';

/**
 * A pay link payment whose money the payer's bank took back, over real HTTP with the sandbox clock:
 * a card chargeback (the sandbox charges back an amount ending in .66 ten processing days after it
 * settles) or an ACH return (account 0000000024 comes back R01 three processing days later). All the
 * payment still kept is taken off it as a refund of it would be: the payment, its allocations (the
 * payment_amounts export) and the invoice's payments agree with what the invoice owes again.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

type PaymentView = {
  payment_amount: string;
  received_amount: string;
  refunds: Array<{ kind: string; amount: string; transaction_token: string | null; sale_transaction_token: string }>;
  unapplied_amount: string;
  status: string;
  status_reason: string;
  payment_amounts: Array<{ invoice_number: string; amount: string }>;
};
type AmountRecord = { payment_reference: string; amount: string; status: string };
type InvoiceView = { owing_cents: number; payments?: Array<{ amount: string; payment_amount: string }> };

const cents = (amount: string) => Math.round(Number(amount) * 100);
const sum = (amounts: Array<{ amount: string }>) => amounts.reduce((total, a) => total + cents(a.amount), 0);
const payment = async (ref: string) => (await h.api.get<PaymentView>(`/api/exports/payment/${ref}`)).body;
const invoice = async (n: string) => (await h.api.get<InvoiceView>(`/api/exports/invoice/${n}?options[payments]=true`)).body;
const amountRecords = async (ref: string) => (await h.api.get<{ payment_amounts: AmountRecord[] }>('/api/exports/payment_amounts?list=true&limit=2500')).body.payment_amounts.filter((a) => a.payment_reference === ref);

const cardPay = (amount: number, attempt: string) => ({ type: 'creditCard', amount_cents: amount, name: 'Ann Payer', card_number: VISA, expiry_month: 12, expiry_year: 2031, cvv: '123', postal_code: 'K1C2N6', attempt });
const achPay = (amount: number, attempt: string) => ({ type: 'ach', amount_cents: amount, name: 'Ann Payer', routing_number: '122105278', account_number: '0000000024', account_type: 'checking', check_type: 'personal', attempt });

/** An invoice paid in full through its pay link (a bank debit answers in_progress): the sale's token, which is also its payment's reference. */
async function paidInvoice(number: string, amount: number, pay: typeof cardPay | typeof achPay, answer = 'approved'): Promise<string> {
  const made = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount, date: '2026-03-01', due_date: '2026-03-31', echo: 'pay_urls' });
  expect(made.status).toBe(201);
  const key = new URL(made.body.pay_url).pathname.replace('/pay/', '');
  const paid = await h.api.post<{ status: string; transaction: string }>(`/api/pay/${key}/payments`, pay(amount, `attempt-${number}`), null);
  expect(paid.body.status).toBe(answer);
  expect((await invoice(number)).owing_cents).toBe(0);
  return paid.body.transaction;
}

/** What an ERP adding up the payment's allocations reads, beside what the invoice owes. */
async function standing(ref: string, number: string) {
  const p = await payment(ref);
  const inv = await invoice(number);
  return {
    status: p.status,
    payment_amount: p.payment_amount,
    received_amount: p.received_amount,
    applied: sum(p.payment_amounts),
    unapplied: p.unapplied_amount,
    amount_records: sum(await amountRecords(ref)),
    invoice_payments: sum(inv.payments ?? []),
    owing: inv.owing_cents,
  };
}

describe('a pay link payment whose money came back', () => {
  it('charged back after a partial refund: the chargeback takes what it kept off it, listed beside the refund', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-05T15:00:00Z');
    expect((await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware' })).status).toBeLessThan(300);
    const sale = await paidInvoice('CB-1', 20_066, cardPay);
    expect((await op<{ success: boolean }>(h.api, 'refund', { amount_cents: 5_000, transaction: sale })).body.success).toBe(true);
    expect(await standing(sale, 'CB-1')).toMatchObject({ status: 'PAID', payment_amount: '150.66', applied: 15_066, amount_records: 15_066, invoice_payments: 15_066, owing: 5_000 });

    expect((await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P16D' })).status).toBe(200);
    await h.t.engine.tick();
    const [chargeback] = (await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data);
    expect(chargeback).toMatchObject({ exception_type: 'chargeback', exception_amount_in_cents: 15_066, exception_transaction: { token: sale } });

    expect(await standing(sale, 'CB-1')).toEqual({ status: 'REVERSAL', payment_amount: '0.00', received_amount: '200.66', applied: 0, unapplied: '0.00', amount_records: 0, invoice_payments: 0, owing: 20_066 });
    const p = await payment(sale);
    expect(p.refunds.map((r) => [r.kind, r.amount, r.sale_transaction_token])).toEqual([
      ['refund', '50.00', sale],
      ['chargeback', '150.66', sale],
    ]);
    expect(p.refunds[1]!.transaction_token).toBeNull();
    expect(p.status_reason).toBe(chargeback!.exception_description);
    // Ticks repeat: the chargeback is taken off once.
    await h.t.engine.tick();
    expect((await payment(sale)).refunds).toHaveLength(2);
    expect((await invoice('CB-1')).owing_cents).toBe(20_066);
  });

  it('returned by the bank (ACH R01): ERROR (NSF), keeping nothing, the return listed', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-05T15:00:00Z');
    expect((await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware' })).status).toBeLessThan(300);
    const sale = await paidInvoice('RET-1', 7_000, achPay, 'in_progress');

    expect((await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P16D' })).status).toBe(200);
    await h.t.engine.tick();
    const [returned] = (await h.t.engine.gateway.settlement.exceptionsSince(0, 10)).map((e) => e.data);
    expect(returned).toMatchObject({ exception_type: 'return', return_code: 'R01', exception_transaction: { token: sale } });

    expect(await standing(sale, 'RET-1')).toEqual({ status: 'ERROR (NSF)', payment_amount: '0.00', received_amount: '70.00', applied: 0, unapplied: '0.00', amount_records: 0, invoice_payments: 0, owing: 7_000 });
    expect((await payment(sale)).refunds.map((r) => [r.kind, r.amount, r.transaction_token, r.sale_transaction_token])).toEqual([['return', '70.00', null, sale]]);
  });
});
