import { afterEach, describe, expect, it } from 'vitest';
import { op, startGateway, VISA, type Harness } from '../helpers/gateway';
import { saleReference } from '../../src/engine/pay-links/pending';

/**
 * Partial refunds of a card sale that paid an invoice, over real HTTP: each refund takes exactly
 * its amount off the invoicing payment, in the refund's own unit of work, so the payment and the
 * invoice say so when the refund answers, whether the refunds come one at a time or race.
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
  payment_amounts: Array<{ invoice_number: string; amount: string }>;
};
type OwedAgain = { payments: Array<{ payment_reference: string; customer_identifier: string; invoices: Array<{ invoice_number: string; owed_again_cents: number }> }> };
const owedAgain = async (sale: string, amount?: number) => (await h.api.get<OwedAgain>(`/api/backoffice/transactions/${sale}/owed-again${amount ? `?amount_cents=${amount}` : ''}`)).body;
const cardPay = (amount: number, attempt: string) => ({ type: 'creditCard', amount_cents: amount, name: 'Ann Payer', card_number: VISA, expiry_month: 12, expiry_year: 2031, cvv: '123', postal_code: 'K1C2N6', attempt });
const owing = async (n: string) => (await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
const payment = async (ref: string) => (await h.api.get<PaymentView>(`/api/exports/payment/${ref}`)).body;
const cents = (amount: string) => Math.round(Number(amount) * 100);
const applied = (p: PaymentView) => p.payment_amounts.reduce((sum, a) => sum + cents(a.amount), 0);

/** An invoice (50.00 by default) paid through its pay link: the card sale's token, which is also its payment's reference. */
async function paidInvoice(number: string, amount = 5_000, discount = 0): Promise<string> {
  const extra = discount ? { discount_amount_cents: discount, discount_expiry_date: '2026-03-20' } : {};
  const made = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount, date: '2026-03-01', due_date: '2026-03-31', echo: 'pay_urls', ...extra });
  expect(made.status).toBe(201);
  const key = new URL(made.body.pay_url).pathname.replace('/pay/', '');
  const paid = await h.api.post<{ status: string; transaction: string }>(`/api/pay/${key}/payments`, cardPay(amount - discount, `attempt-${number}`), null);
  expect(paid.body.status).toBe('approved');
  expect(await owing(number)).toBe(0);
  return paid.body.transaction;
}

async function start() {
  h = await startGateway({ timezone: 'UTC' });
  h.t.clock.set('2026-03-05T15:00:00Z');
  expect((await h.api.patch('/api/account', { capabilities: { discounts: true } })).status).toBe(200);
  expect((await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware' })).status).toBeLessThan(300);
}

const refund = (transaction: string) => op<{ success: boolean }>(h.api, 'refund', { amount_cents: 500, transaction });

describe('partial refunds of a card sale that paid an invoice', () => {
  it('takes each refund of 5.00 off the payment when the refund answers, down to a reversal of nothing', async () => {
    await start();
    const sale = await paidInvoice('ONE-1');
    for (let n = 1; n <= 10; n++) {
      expect((await refund(sale)).body.success).toBe(true);
      const p = await payment(sale);
      // No tick and no wait: the refund's own unit of work took it off.
      expect([cents(p.payment_amount), applied(p), await owing('ONE-1')], `refund ${n}`).toEqual([5_000 - 500 * n, 5_000 - 500 * n, 500 * n]);
      expect(p.status, `refund ${n}`).toBe(n < 10 ? 'PAID' : 'REVERSAL');
    }
    expect(cents((await payment(sale)).unapplied_amount)).toBe(0);
    // A tick following the refunds again changes nothing.
    await h.t.engine.tick();
    expect([cents((await payment(sale)).payment_amount), await owing('ONE-1')]).toEqual([0, 5_000]);
    // What it received stays said, beside each refund taken off it.
    const p = await payment(sale);
    expect(p.received_amount).toBe('50.00');
    expect(p.refunds.map((r) => [r.kind, r.amount, r.sale_transaction_token])).toEqual(Array(10).fill(['refund', '5.00', sale]));
    expect(new Set(p.refunds.map((r) => r.transaction_token)).size).toBe(10);
    expect(p.refunds.every((r) => r.transaction_token && r.transaction_token !== sale)).toBe(true);
  });

  it('ten refunds of 5.00 racing leave the payment nothing applied and the invoice owing 50.00, every time', async () => {
    await start();
    for (let round = 0; round < 3; round++) {
      const number = `RACE-${round}`;
      const sale = await paidInvoice(number);
      const answers = await Promise.all(Array.from({ length: 10 }, () => refund(sale)));
      expect(answers.map((a) => a.body.success), `round ${round}`).toEqual(Array(10).fill(true));
      const p = await payment(sale);
      expect({ status: p.status, amount: cents(p.payment_amount), applied: applied(p), unapplied: cents(p.unapplied_amount), owing: await owing(number) }, `round ${round}`).toEqual({ status: 'REVERSAL', amount: 0, applied: 0, unapplied: 0, owing: 5_000 });
    }
  });

  it('a refund made while the sale was not yet recorded, or recorded but not yet linked to it (a stop between), comes off the payment once it is', async () => {
    await start();
    const engine = () => h.t.engine;
    /** The server stops at `step` of the press: after the processor answered and before the payment is written, or after it is written and before it is linked to its sale. */
    const stopAt = async (step: 'record' | 'link', number: string) => {
      const made = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount: 5_000, date: '2026-03-01', due_date: '2026-03-31', echo: 'pay_urls' });
      const key = new URL(made.body.pay_url).pathname.replace('/pay/', '');
      const target = step === 'record' ? engine().receivables : engine().gateway;
      const name = step === 'record' ? 'recordPayment' : 'linkPayment';
      const real = (target as unknown as Record<string, unknown>)[name];
      (target as unknown as Record<string, unknown>)[name] = () => Promise.reject(new Error('the server stopped'));
      try {
        await expect(engine().payLinks.pay(key, cardPay(5_000, `attempt-${number}`) as Parameters<ReturnType<typeof engine>['payLinks']['pay']>[1])).rejects.toThrow('the server stopped');
      } finally {
        (target as unknown as Record<string, unknown>)[name] = real;
      }
      return key;
    };
    const [unrecorded, unlinked] = [await stopAt('record', 'STOP-REC'), await stopAt('link', 'STOP-LINK')];
    await h.restart();
    // The merchant refunds 5.00 of each sale before either press is concluded.
    for (const number of ['STOP-REC', 'STOP-LINK']) {
      const sale = await engine().gateway.recordByReference('sale', saleReference(number, `attempt-${number}`));
      expect((await refund(sale!.token)).body.success, number).toBe(true);
    }
    expect(await owing('STOP-LINK')).toBe(0);
    // The payer's retry concludes each press: the sale is recorded (or was) and linked, less its refund.
    const concluded: Record<string, unknown> = {};
    for (const [key, number] of [[unrecorded, 'STOP-REC'], [unlinked, 'STOP-LINK']] as const) {
      const again = await h.api.post<{ status: string; transaction: string }>(`/api/pay/${key}/payments`, cardPay(5_000, `attempt-${number}`), null);
      const p = await payment(again.body.transaction);
      concluded[number] = [again.body.status, cents(p.payment_amount), applied(p), await owing(number)];
    }
    expect(concluded).toEqual({ 'STOP-REC': ['approved', 4_500, 4_500, 500], 'STOP-LINK': ['approved', 4_500, 4_500, 500] });
    // Taken off when linked, the refund is still said, with the sale it gave back of.
    for (const number of ['STOP-REC', 'STOP-LINK']) {
      const sale = await engine().gateway.recordByReference('sale', saleReference(number, `attempt-${number}`));
      const p = await payment(sale!.token);
      expect([p.received_amount, p.refunds.map((r) => [r.kind, r.amount, r.sale_transaction_token])], number).toEqual(['50.00', [['refund', '5.00', sale!.token]]]);
    }
    // A tick following the refunds again changes nothing more.
    await h.t.engine.tick();
    expect([await owing('STOP-REC'), await owing('STOP-LINK')]).toEqual([500, 500]);
  });

  it('refunded in full, a payment that took an early-payment discount leaves its invoice owing all of it, the discount too', async () => {
    await start();
    // 95.00 charged for a 100.00 invoice with 5.00 off.
    const sale = await paidInvoice('DISC-1', 10_000, 500);
    expect((await op(h.api, 'refund', { amount_cents: 4_000, transaction: sale })).body.success).toBe(true);
    expect([cents((await payment(sale)).payment_amount), await owing('DISC-1')]).toEqual([5_500, 4_000]);
    expect((await op(h.api, 'refund', { amount_cents: 5_500, transaction: sale })).body.success).toBe(true);
    const p = await payment(sale);
    expect([p.status, cents(p.payment_amount), applied(p), await owing('DISC-1')]).toEqual(['REVERSAL', 0, 0, 10_000]);
  });

  it('says before a refund or void which invoices it puts back owing, and by how much, as the refund then does', async () => {
    await start();
    // 95.00 charged for a 100.00 invoice with 5.00 off.
    const sale = await paidInvoice('ASK-1', 10_000, 500);
    const asked = await owedAgain(sale, 4_000);
    expect(asked.payments.map((p) => [p.payment_reference, p.customer_identifier, p.invoices])).toEqual([[sale, 'PAYER1', [{ invoice_number: 'ASK-1', display_number: 'ASK-1', owed_again_cents: 4_000 }]]]);
    // Nothing changed by asking.
    expect(await owing('ASK-1')).toBe(0);
    expect((await op(h.api, 'refund', { amount_cents: 4_000, transaction: sale })).body.success).toBe(true);
    expect(await owing('ASK-1')).toBe(4_000);
    // The rest refunded reverses the payment, its discount back on the invoice too.
    expect((await owedAgain(sale, 5_500)).payments[0]!.invoices).toEqual([{ invoice_number: 'ASK-1', display_number: 'ASK-1', owed_again_cents: 6_000 }]);
    expect((await op(h.api, 'refund', { amount_cents: 5_500, transaction: sale })).body.success).toBe(true);
    expect(await owing('ASK-1')).toBe(10_000);
    expect((await owedAgain(sale, 100)).payments).toEqual([]);
    // A void of a sale not yet batched: all of it.
    const other = await paidInvoice('ASK-2');
    expect((await owedAgain(other)).payments[0]!.invoices).toEqual([{ invoice_number: 'ASK-2', display_number: 'ASK-2', owed_again_cents: 5_000 }]);
    expect((await h.api.get(`/api/backoffice/transactions/NOPE-1/owed-again`)).status).toBe(404);
  });
});
