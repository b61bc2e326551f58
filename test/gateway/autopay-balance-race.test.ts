import { afterEach, describe, expect, it } from 'vitest';
import { card, startGateway, VISA, type Harness } from '../helpers/gateway';
import { saleReference } from '../../src/engine/pay-links/pending';

/**
 * An autopay run racing another change of the invoice's balance, over real HTTP: an ERP payment
 * import, a click-to-pay payment, or a payment's credit applied, sent 0-8 ms after the run
 * starts, the processor answering the autopay sale at once, 15 ms or a second later. Autopay's payment is
 * recorded only while the invoice owes what the sale was priced for, so it never leaves the
 * customer credit charged to the card: a balance that moved during the charge gets the sale voided
 * and the invoice reported skipped (GET /api/autopay skipped_invoices), charged at the next run.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

const TODAY = '2026-03-05';
type PaymentView = { unapplied_amount: string; payment_amount: string; payment_amounts: Array<{ invoice_number: string; amount: string }> };
type Skipped = { invoice_number: string; reason: string; message: string; transaction: string; date: string };
type Retrieved = { last_result: string | null; agreement_token: string; skipped_invoices: Skipped[] };
const cents = (amount: string) => Math.round(Number(amount) * 100);
const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const owing = async (n: string) => (await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
const payment = async (ref: string) => {
  const r = await h.api.get<PaymentView>(`/api/exports/payment/${ref}`);
  return r.status === 200 ? r.body : undefined;
};
const autopayOf = async (customer: string) => (await h.api.get<Retrieved>(`/api/autopay?customer_identifier=${customer}`)).body;
const cardPay = (amount: number, attempt: string) => ({ type: 'creditCard', amount_cents: amount, name: 'Ann Payer', card_number: VISA, expiry_month: 12, expiry_year: 2031, cvv: '123', postal_code: 'K1C2N6', attempt });

/** The autopay sale of the agreement today, if one was made: whether it stands or was voided. */
async function autopaySale(agreement: string) {
  const sale = await h.t.engine.gateway.recordByReference('sale', `autopay:${agreement}:${TODAY}:usd`);
  if (!sale?.outcome.approved) return 'none';
  return sale.state === 'cancelled' || sale.voided_by !== null ? 'voided' : { token: sale.token, amount: sale.amount_cents };
}

/**
 * The processor answers autopay's sale `ms` later, as one across a network does (other operations,
 * a pay link's sale too, as they are: it lands while autopay's is out).
 */
function slowProcessor(ms: number): () => void {
  const gateway = h.t.engine.gateway;
  const transact = gateway.transact.bind(gateway);
  gateway.transact = async (action, body, actor) => {
    const answer = await transact(action, body, actor);
    if (action === 'sale' && actor?.startsWith('autopay:')) await after(ms);
    return answer;
  };
  return () => {
    gateway.transact = transact;
  };
}

async function start() {
  h = await startGateway({ timezone: 'UTC' });
  h.t.clock.set(`${TODAY}T15:00:00Z`);
}

/** A customer of its own (an agreement runs once a day) owing one invoice due today, paid by autopay; its pay link key. */
async function customerOwing(id: string, amount: number): Promise<{ agreement: string; key: string }> {
  expect((await h.api.post('/api/imports/customer', { identifier: id, name: `${id} Ltd` })).status).toBe(201);
  const made = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number: `${id}-INV`, customer_identifier: id, amount, date: '2026-02-20', due_date: TODAY, echo: 'pay_urls' });
  expect(made.status).toBe(201);
  const wallet = await h.api.post<{ fund_token: string }>('/api/gateway/v1/wallets', { customer: id, credit_card: card() });
  expect(wallet.status).toBe(200);
  const agreement = await h.api.post<{ token: string }>('/api/autopay', { customer_identifier: id, fund_token: wallet.body.fund_token });
  expect(agreement.status).toBe(201);
  return { agreement: agreement.body.token, key: new URL(made.body.pay_url).pathname.replace('/pay/', '') };
}

/** Rounds with no race: the other change made once the run has ended, or before it starts. */
const AFTER_THE_RUN = Infinity;
const BEFORE_THE_RUN = -1;
/** The timings a round fires the other change at after the run starts, and how slow the processor is then; and once each way with no race. */
const ROUNDS = [
  ...Array.from({ length: 16 }, (_, i) => ({ delay: [0, 1, 2, 4, 8][i % 5]!, processorMs: i < 8 ? 0 : 15 })),
  // A processor a second away (a slow network): the other change surely lands during the charge,
  // however loaded the machine running this is, so each outcome is seen.
  { delay: 0, processorMs: 1_000 },
  { delay: 5, processorMs: 1_000 },
  { delay: AFTER_THE_RUN, processorMs: 0 },
  { delay: BEFORE_THE_RUN, processorMs: 0 },
];

/** Runs autopay and, `delay` ms after it started, the other change; the other change's answer. */
async function race<T>(delay: number, processorMs: number, other: () => Promise<T>): Promise<T> {
  const run = () => h.t.engine.autopay.runDue(h.t.clock.now());
  if (delay === BEFORE_THE_RUN) return other().then(async (answer) => (await run(), answer));
  const restore = slowProcessor(processorMs);
  try {
    const running = run();
    const [, answer] = await Promise.all([running, (delay === AFTER_THE_RUN ? running : after(delay)).then(other)]);
    return answer;
  } finally {
    restore();
  }
}

/** Autopay's outcome for the invoice: its payment recorded as priced, or its sale voided and the invoice reported skipped. */
async function autopayOutcome(id: string, agreement: string, seen: Record<string, number>) {
  const sale = await autopaySale(agreement);
  const view = await autopayOf(id);
  if (sale === 'none') {
    seen.nothingDue = (seen.nothingDue ?? 0) + 1;
    expect(view.last_result, id).toBe('nothing_due');
    return { charged: 0 };
  }
  if (sale === 'voided') {
    seen.skipped = (seen.skipped ?? 0) + 1;
    expect(view.last_result, id).toBe('skipped');
    expect(view.skipped_invoices, id).toEqual([expect.objectContaining({ invoice_number: `${id}-INV`, reason: 'balance_changed', date: TODAY })]);
    expect(view.skipped_invoices[0]!.message, id).toMatch(/changed|owed/);
    return { charged: 0 };
  }
  seen.recorded = (seen.recorded ?? 0) + 1;
  const p = await payment(sale.token);
  // Never credit charged to the card: all of it paid the invoice.
  expect(p && [cents(p.payment_amount), cents(p.unapplied_amount), p.payment_amounts.map((a) => [a.invoice_number, cents(a.amount)])], id).toEqual([sale.amount, 0, [[`${id}-INV`, sale.amount]]]);
  expect([view.last_result, view.skipped_invoices ?? []], id).toEqual(['approved', []]);
  return { charged: sale.amount };
}

describe('an autopay run racing another change of the balance', () => {
  it('never records credit charged to the card when an ERP payment lands during the charge: the sale is voided and the invoice skipped', async () => {
    await start();
    const seen: Record<string, number> = {};
    for (const [i, c] of ROUNDS.entries()) {
      const id = `ERP${i}`;
      const { agreement } = await customerOwing(id, 5_300);
      const imported = await race(c.delay, c.processorMs, () => h.api.post('/api/imports/payment', { identifier: `ERP-${i}`, customer_identifier: id, amount_cents: 2_000, invoice_number: `${id}-INV` }));
      expect(imported.status, id).toBe(201);
      const { charged } = await autopayOutcome(id, agreement, seen);
      const erpCredit = cents((await payment(`ERP-${i}`))!.unapplied_amount);
      if (charged === 0) expect([erpCredit, await owing(`${id}-INV`)], id).toEqual([0, 3_300]);
      // Autopay charged all of it (the ERP payment, later, is its own credit) or what the ERP payment left.
      else expect([charged, erpCredit, await owing(`${id}-INV`)], id).toEqual(charged === 5_300 ? [5_300, 2_000, 0] : [3_300, 0, 0]);
    }
    // The ERP payment landed during the charge and the sale was given back, and autopay also came first.
    expect(seen.skipped).toBeGreaterThan(0);
    expect(seen.recorded).toBeGreaterThan(0);
  });

  it('never charges twice when the invoice is paid through its pay link during the run: one of the two sales is voided', async () => {
    await start();
    const seen: Record<string, number> = {};
    for (const [i, c] of ROUNDS.entries()) {
      const id = `LINK${i}`;
      const { agreement, key } = await customerOwing(id, 4_100);
      const link = await race(c.delay, c.processorMs, () => h.api.post<{ status: string; code?: string; transaction?: string }>(`/api/pay/${key}/payments`, cardPay(4_100, `attempt-${i}`), null));
      const { charged } = await autopayOutcome(id, agreement, seen);
      if (charged) {
        // Autopay came first: the link found nothing owed, or its sale was voided.
        expect(link.status, id).toBe(409);
        expect(['amount_changed', 'invoice_not_owing'], id).toContain(link.body.code);
        const linkSale = await h.t.engine.gateway.recordByReference('sale', saleReference(`${id}-INV`, `attempt-${i}`));
        expect(linkSale === undefined || !linkSale.outcome.approved || linkSale.state === 'cancelled', id).toBe(true);
      } else {
        expect(link.body.status, id).toBe('approved');
        expect(cents((await payment(link.body.transaction!))!.unapplied_amount), id).toBe(0);
      }
      expect(await owing(`${id}-INV`), id).toBe(0);
    }
    expect(seen.skipped).toBeGreaterThan(0);
    expect(seen.recorded).toBeGreaterThan(0);
  });

  it("never charges an invoice a payment's credit paid during the run: the sale is voided, or the credit application is refused", async () => {
    await start();
    const seen: Record<string, number> = {};
    for (const [i, c] of ROUNDS.entries()) {
      const id = `CHQ${i}`;
      const { agreement } = await customerOwing(id, 4_000);
      expect((await h.api.post('/api/imports/payment', { identifier: `CHQ-${i}`, customer_identifier: id, amount_cents: 4_000 })).status).toBe(201);
      const applied = await race(c.delay, c.processorMs, () => h.api.post<{ code?: string }>(`/api/receivables/payments/CHQ-${i}/applications`, { applications: [{ invoice_number: `${id}-INV`, amount_cents: 4_000 }] }));
      const { charged } = await autopayOutcome(id, agreement, seen);
      const cheque = (await payment(`CHQ-${i}`))!;
      if (charged) {
        expect([applied.status, applied.body.code], id).toEqual([412, 'more_than_owing']);
        expect(cents(cheque.unapplied_amount), id).toBe(4_000);
      } else {
        expect(applied.status, id).toBe(200);
        expect(cents(cheque.unapplied_amount), id).toBe(0);
      }
      expect(await owing(`${id}-INV`), id).toBe(0);
    }
    expect(seen.skipped).toBeGreaterThan(0);
    expect(seen.recorded).toBeGreaterThan(0);
  });

  it('gives back a sale taken before a stop when the balance moved before the run was retried, and charges the rest the next day', async () => {
    await start();
    const { agreement } = await customerOwing('STOP', 5_300);
    // The server stops once the processor has answered, before the payment is written.
    const port = h.t.engine.autopay.receivables()!;
    const record = port.recordPayment.bind(port);
    port.recordPayment = () => Promise.reject(new Error('the server stopped'));
    try {
      await h.t.engine.autopay.runDue(h.t.clock.now());
    } finally {
      port.recordPayment = record;
    }
    const taken = await autopaySale(agreement);
    expect(taken).toMatchObject({ amount: 5_300 });
    // Meanwhile the ERP paid part of it; the retried run finds today's sale priced on the old balance.
    expect((await h.api.post('/api/imports/payment', { identifier: 'ERP-STOP', customer_identifier: 'STOP', amount_cents: 1_000, invoice_number: 'STOP-INV' })).status).toBe(201);
    h.t.clock.set(`${TODAY}T15:00:20Z`);
    await h.t.engine.autopay.runDue(h.t.clock.now());
    expect(await autopaySale(agreement)).toBe('voided');
    expect(await payment((taken as { token: string }).token)).toBeUndefined();
    expect(await owing('STOP-INV')).toBe(4_300);
    const view = await autopayOf('STOP');
    expect(view.last_result).toBe('skipped');
    expect(view.skipped_invoices).toEqual([expect.objectContaining({ invoice_number: 'STOP-INV', reason: 'balance_changed', transaction: (taken as { token: string }).token })]);
    expect(view.skipped_invoices[0]!.message).toContain('owes $43.00 now: the charge of $53.00 was voided');

    // The next day's run charges what it owes then, and no longer reports it skipped.
    h.t.clock.set('2026-03-06T09:00:00Z');
    await h.t.engine.autopay.runDue(h.t.clock.now());
    expect(await owing('STOP-INV')).toBe(0);
    expect(await autopayOf('STOP')).toMatchObject({ last_result: 'approved', skipped_invoices: [] });
  });
});
