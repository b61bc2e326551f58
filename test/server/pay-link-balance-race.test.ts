import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, VISA, type Harness } from '../helpers/gateway';
import { saleReference } from '../../src/engine/pay-links/pending';

/**
 * A click-to-pay payment racing another change of its invoice's balance, over real HTTP: an ERP
 * payment import, or a payment's credit applied to the invoice, sent 0-8 ms after Pay. The card
 * is never charged more than the invoice owes when the payment is written. Whichever lands first
 * wins: the ERP payment or credit first, the link answers 409 `amount_changed` and its sale, if
 * the processor took it, is voided (nothing charged); the link first, the ERP payment is its own
 * unapplied credit (the credit application is refused, the credit left as it was). A sale taken
 * before a stop is given back the same way when the balance moved before it could be recorded.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

type Outcome = { status: string; transaction: string; amount_cents: number; code?: string };
type PaymentView = { unapplied_amount: string; payment_amount: string; payment_amounts: Array<{ invoice_number: string; amount: string; discount_amount: string }> };
const cardPay = (amount: number, attempt: string) => ({ type: 'creditCard', amount_cents: amount, name: 'Ann Payer', card_number: VISA, expiry_month: 12, expiry_year: 2031, cvv: '123', postal_code: 'K1C2N6', attempt });
const pay = (key: string, body: unknown) => h.api.post<Outcome>(`/api/pay/${key}/payments`, body, null);
const owing = async (n: string) => (await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
const payment = async (ref: string) => (await h.api.get<PaymentView>(`/api/exports/payment/${ref}`)).body;
const cents = (amount: string) => Math.round(Number(amount) * 100);
const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function invoiceWithLink(number: string, amount: number, discount?: number): Promise<string> {
  const extra = discount ? { discount_amount_cents: discount, discount_expiry_date: '2026-03-20' } : {};
  const r = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount, date: '2026-03-01', due_date: '2026-03-31', echo: 'pay_urls', ...extra });
  expect(r.status).toBe(201);
  return new URL(r.body.pay_url).pathname.replace('/pay/', '');
}

/** Whether the gateway's sale for this press stands; a sale taken and voided is counted in `voided`. */
async function saleStands(invoice: string, attempt: string, voided: { count: number }): Promise<boolean> {
  const sale = await h.t.engine.gateway.recordByReference('sale', saleReference(invoice, attempt));
  if (sale?.outcome.approved && sale.state === 'cancelled') voided.count++;
  return sale !== undefined && sale.outcome.approved && sale.voided_by === null && sale.state !== 'cancelled';
}

/** The processor answers a sale `ms` later, as one across a network does (other operations as they are). */
function slowProcessor(ms: number): () => void {
  const gateway = h.t.engine.gateway;
  const transact = gateway.transact.bind(gateway);
  gateway.transact = async (action, ...rest) => {
    const answer = await transact(action, ...rest);
    if (action === 'sale') await after(ms);
    return answer;
  };
  return () => {
    gateway.transact = transact;
  };
}

async function start() {
  h = await startGateway({ timezone: 'UTC' });
  h.t.clock.set('2026-03-05T15:00:00Z');
  expect((await h.api.patch('/api/account', { capabilities: { discounts: true } })).status).toBe(200);
  expect((await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware' })).status).toBeLessThan(300);
}

/** A round with no race: the other change is sent once the link has answered. */
const AFTER_THE_LINK = Infinity;
const fireAfter = (delay: number, link: Promise<unknown>) => (delay === AFTER_THE_LINK ? link : after(delay));

/** The timings a round fires the other change at after Pay, and how slow the processor is then. */
const ROUNDS = Array.from({ length: 16 }, (_, i) => ({ delay: [0, 1, 2, 4, 8][i % 5]!, processorMs: i < 8 ? 0 : 15 }));

describe('a click-to-pay payment racing another change of the balance', () => {
  it('never charges more than the invoice owes when an ERP payment lands during the charge: the link is 409 with its sale voided, or the ERP payment is credit', async () => {
    await start();
    const seen = { linkFirst: 0, erpFirst: 0 };
    const voided = { count: 0 };
    const cases = [
      ...ROUNDS.map((r) => ({ ...r, amount: 5_300, discount: 0, erp: 5_300 })),
      // An early-payment discount: the link charges 9,500 of 10,000 while the ERP pays 3,000.
      ...ROUNDS.map((r) => ({ ...r, amount: 10_000, discount: 500, erp: 3_000 })),
    ];
    // And once each way with no race at all: the import well before Pay, and well after it.
    cases.push({ delay: -1, processorMs: 0, amount: 5_300, discount: 0, erp: 5_300 }, { delay: AFTER_THE_LINK, processorMs: 0, amount: 5_300, discount: 0, erp: 5_300 });
    for (const [i, c] of cases.entries()) {
      const number = `RACE-${i}`;
      const key = await invoiceWithLink(number, c.amount, c.discount);
      const charge = c.amount - c.discount;
      const erp = { identifier: `ERP-${i}`, customer_identifier: 'PAYER1', amount_cents: c.erp, invoice_number: number };
      const restore = slowProcessor(c.processorMs);
      let link, imported;
      try {
        if (c.delay < 0) {
          imported = await h.api.post('/api/imports/payment', erp);
          link = await pay(key, cardPay(charge, `attempt-a-${i}`));
        } else {
          const paid = pay(key, cardPay(charge, `attempt-a-${i}`));
          [link, imported] = await Promise.all([paid, fireAfter(c.delay, paid).then(() => h.api.post('/api/imports/payment', erp))]);
        }
      } finally {
        restore();
      }
      expect(imported.status, `round ${i}`).toBe(201);
      const erpPayment = await payment(`ERP-${i}`);
      if (link.status === 409) {
        seen.erpFirst++;
        // The ERP payment came first: the link charged nothing (no sale, or its sale voided). Landed
        // before Pay was checked, a payment of all of it leaves nothing to pay.
        expect(link.body.code, `round ${i}`).toBe(c.erp === c.amount && link.body.code === 'invoice_not_owing' ? 'invoice_not_owing' : 'amount_changed');
        expect(await saleStands(number, `attempt-a-${i}`, voided), `round ${i}`).toBe(false);
        expect(cents(erpPayment.unapplied_amount), `round ${i}`).toBe(0);
        expect(await owing(number), `round ${i}`).toBe(c.amount - c.erp);
      } else {
        seen.linkFirst++;
        // The link came first and paid exactly the balance; the ERP payment found nothing owed.
        expect(link.body, `round ${i}`).toMatchObject({ status: 'approved', amount_cents: charge });
        const card = await payment(link.body.transaction);
        expect(cents(card.unapplied_amount), `round ${i}`).toBe(0);
        expect(card.payment_amounts, `round ${i}`).toEqual([expect.objectContaining({ invoice_number: number, amount: (charge / 100).toFixed(2), discount_amount: (c.discount / 100).toFixed(2) })]);
        expect(cents(erpPayment.unapplied_amount), `round ${i}`).toBe(c.erp);
        expect(await owing(number), `round ${i}`).toBe(0);
      }
    }
    // Both orders happened, and some ERP payments landed while the processor had the sale (the
    // slow processor's rounds and the late import make sure of each).
    expect(seen.erpFirst).toBeGreaterThan(0);
    expect(seen.linkFirst).toBeGreaterThan(0);
    expect(voided.count).toBeGreaterThan(0);
    // A 409 for a balance that moved is not the payer's refusal: the links are not paused.
    const view = await h.api.get<{ locked_until: string | null }>(`/api/pay/${await invoiceWithLink('RACE-LAST', 100)}`, null);
    expect(view.body.locked_until).toBeNull();
  });

  it("never charges an invoice a payment's credit paid during the charge: the link is 409 with its sale voided, or the credit application is refused", async () => {
    await start();
    const seen = { linkFirst: 0, creditFirst: 0 };
    const voided = { count: 0 };
    // And once with no race: the credit applied well after the link paid.
    for (const [i, c] of [...ROUNDS, { delay: AFTER_THE_LINK, processorMs: 0 }].entries()) {
      const number = `CREDIT-${i}`;
      const key = await invoiceWithLink(number, 4_000);
      // A cheque with $40.00 not yet applied to anything.
      expect((await h.api.post('/api/imports/payment', { identifier: `CHQ-${i}`, customer_identifier: 'PAYER1', amount_cents: 4_000 })).status).toBe(201);
      const restore = slowProcessor(c.processorMs);
      let link, applied;
      try {
        const paid = pay(key, cardPay(4_000, `attempt-c-${i}`));
        [link, applied] = await Promise.all([
          paid,
          fireAfter(c.delay, paid).then(() => h.api.post<{ code?: string }>(`/api/receivables/payments/CHQ-${i}/applications`, { applications: [{ invoice_number: number, amount_cents: 4_000 }] })),
        ]);
      } finally {
        restore();
      }
      const cheque = await payment(`CHQ-${i}`);
      if (link.status === 409) {
        seen.creditFirst++;
        expect(link.body.code, `round ${i}`).toBe('amount_changed');
        expect(await saleStands(number, `attempt-c-${i}`, voided), `round ${i}`).toBe(false);
        expect(applied.status, `round ${i}`).toBe(200);
        expect(cents(cheque.unapplied_amount), `round ${i}`).toBe(0);
      } else {
        seen.linkFirst++;
        expect(link.body, `round ${i}`).toMatchObject({ status: 'approved', amount_cents: 4_000 });
        expect(cents((await payment(link.body.transaction)).unapplied_amount), `round ${i}`).toBe(0);
        expect([applied.status, applied.body.code], `round ${i}`).toEqual([412, 'more_than_owing']);
        expect(cents(cheque.unapplied_amount), `round ${i}`).toBe(4_000);
      }
      expect(await owing(number), `round ${i}`).toBe(0);
    }
    expect(seen.creditFirst).toBeGreaterThan(0);
    expect(seen.linkFirst).toBeGreaterThan(0);
    expect(voided.count).toBeGreaterThan(0);
  });

  it('gives back a sale taken before a stop when the balance moved before it was recorded: voided on the retry, refunded by a tick past the cut-off', async () => {
    await start();
    const retried = await invoiceWithLink('STOP-1', 5_300);
    const abandoned = await invoiceWithLink('STOP-2', 5_300);
    /** The server stops once the processor has answered, before the payment is written. */
    const stopAfterSale = async (key: string, attempt: string) => {
      const receivables = h.t.engine.receivables;
      const record = receivables.recordPayment.bind(receivables);
      receivables.recordPayment = () => Promise.reject(new Error('the server stopped'));
      try {
        await expect(h.t.engine.payLinks.pay(key, cardPay(5_300, attempt) as Parameters<typeof h.t.engine.payLinks.pay>[1])).rejects.toThrow('the server stopped');
      } finally {
        receivables.recordPayment = record;
      }
      await h.restart();
    };
    await stopAfterSale(retried, 'attempt-stop-1');
    await stopAfterSale(abandoned, 'attempt-stop-2');
    // Meanwhile the ERP paid part of each.
    for (const n of ['STOP-1', 'STOP-2']) expect((await h.api.post('/api/imports/payment', { identifier: `ERP-${n}`, customer_identifier: 'PAYER1', amount_cents: 1_000, invoice_number: n })).status).toBe(201);

    // The payer's retry of the same press: 409, the sale voided, nothing recorded.
    const again = await pay(retried, cardPay(5_300, 'attempt-stop-1'));
    expect([again.status, again.body.code]).toEqual([409, 'amount_changed']);
    const first = await h.t.engine.gateway.recordByReference('sale', saleReference('STOP-1', 'attempt-stop-1'));
    expect(first?.state).toBe('cancelled');
    expect(await owing('STOP-1')).toBe(4_300);
    // Not a refusal, and no longer pending: the same press again is priced anew and refused before any sale.
    const view = await h.api.get<{ locked_until: string | null; invoice: { pay_cents: number } }>(`/api/pay/${retried}`, null);
    expect(view.body).toMatchObject({ locked_until: null, invoice: { pay_cents: 4_300 } });
    expect((await pay(retried, cardPay(5_300, 'attempt-stop-1'))).body.code).toBe('amount_changed');

    // Nobody retries the other; by the time a tick finds it the day's batch has gone: refunded in full.
    h.t.clock.set('2026-03-06T15:00:00Z');
    await h.t.engine.tick();
    const second = await h.t.engine.gateway.recordByReference('sale', saleReference('STOP-2', 'attempt-stop-2'));
    expect(second).toMatchObject({ refunded_cents: 5_300 });
    expect(await owing('STOP-2')).toBe(4_300);
    const cards = (await h.api.get<{ payments: Array<{ payment_source: string }> }>('/api/exports/payments?list=true')).body.payments.filter((p) => p.payment_source === 'ARC');
    expect(cards).toEqual([]);
    // Concluded once: a later tick gives nothing back twice.
    await h.t.engine.tick();
    expect(await h.t.engine.gateway.recordByReference('sale', saleReference('STOP-2', 'attempt-stop-2'))).toMatchObject({ refunded_cents: 5_300 });
  });
});
