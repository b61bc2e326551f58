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

type PaymentView = { payment_amount: string; unapplied_amount: string; status: string; payment_amounts: Array<{ invoice_number: string; amount: string }> };
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
});
