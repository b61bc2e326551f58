import { afterEach, describe, expect, it } from 'vitest';
import { card, startGateway, VISA_DECLINE, type Harness } from '../helpers/gateway';
import { checkResponse } from '../helpers/openapi-check';

/**
 * What turning autopay on charges at once, asked before it is turned on (GET /api/autopay/preview),
 * is what the agreement's first run then charges; and a charge autopay could not make (its card
 * removed, a decline) is kept on the agreement for the customer's page, not only logged.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

type Preview = { as_of_date: string; charges: Array<{ currency: string; amount_cents: number; invoices: Array<{ invoice_number: string; due_date: string; amount_cents: number }> }> };
type Failure = { date: string; currency: string; amount_cents: number; invoices: string[]; cause: string; code: string | null; message: string | null; transaction: string | null };
type Retrieved = { last_result: string | null; fund_display: string | null; fund_problem: string | null; last_failures: Failure[]; autopays: unknown[] };
type PaymentView = { payment_amount: string; currency: string; payment_amounts: Array<{ invoice_number: string; amount: string }> };

async function customerWithInvoices(identifier: string, invoices: Array<[number: string, due: string, cents: number, extra?: Record<string, unknown>]>) {
  expect((await h.api.post('/api/imports/customer', { identifier, name: `${identifier} Ltd` })).status).toBe(201);
  for (const [number, due, amount, extra] of invoices) {
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: identifier, amount, date: '2025-11-01', due_date: due, ...extra })).status).toBe(201);
  }
}

const walletOf = async (customer: string, number?: string) => (await h.api.post<{ wallet_token: string; fund_token: string }>('/api/gateway/v1/wallets', { customer, credit_card: card(number) })).body;

describe('autopay preview', () => {
  it('answers the overdue and due invoices a new agreement charges at once, per currency, as its first run then charges them', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-10T12:00:00Z');
    await customerWithInvoices('LATE01', [
      ['OD-1', '2025-12-01', 500_000],
      ['OD-2', '2026-01-15', 400_000],
      ['OD-3', '2026-03-10', 250_000],
      ['OD-CAD', '2026-02-01', 7_000, { currency: 'CAD' }],
      ['LATER', '2026-04-01', 9_900],
      ['MANUAL', '2026-01-01', 1_234, { auto_debit: 'N' }],
    ]);
    const { fund_token } = await walletOf('LATE01');

    const res = await h.api.get<Preview>('/api/autopay/preview?customer_identifier=LATE01');
    expect(res.status).toBe(200);
    expect(checkResponse('GET', '/api/autopay/preview', res.status, res.body)).toEqual([]);
    expect(res.body.as_of_date).toBe('2026-03-10');
    const usd = res.body.charges.find((c) => c.currency === 'USD')!;
    expect(usd.amount_cents).toBe(1_150_000);
    expect(usd.invoices.map((i) => [i.invoice_number, i.due_date, i.amount_cents])).toEqual([
      ['OD-1', '2025-12-01', 500_000],
      ['OD-2', '2026-01-15', 400_000],
      ['OD-3', '2026-03-10', 250_000],
    ]);
    expect(res.body.charges.find((c) => c.currency === 'CAD')).toMatchObject({ amount_cents: 7_000, invoices: [{ invoice_number: 'OD-CAD' }] });
    expect(res.body.charges).toHaveLength(2);
    // Asking charged nothing and made nothing.
    await h.t.engine.tick();
    expect((await h.api.get<{ payments: unknown[] }>('/api/exports/payments?list=true')).body.payments).toEqual([]);

    expect((await h.api.post('/api/autopay', { customer_identifier: 'LATE01', fund_token })).status).toBe(201);
    await h.t.engine.tick();
    const payments = (await h.api.get<{ payments: PaymentView[] }>('/api/exports/payments?list=true')).body.payments;
    const charged = payments.map((p) => [p.currency.toUpperCase(), Math.round(Number(p.payment_amount) * 100), p.payment_amounts.map((a) => a.invoice_number)]);
    // The run tried every sale the preview named: this account takes no CAD, so that one is kept as not made.
    const failed = (await h.api.get<Retrieved>('/api/autopay?customer_identifier=LATE01')).body.last_failures;
    expect(failed).toMatchObject([{ currency: 'CAD', cause: 'refused', code: 'unsupported_currency' }]);
    const tried = [...charged, ...failed.map((f) => [f.currency, f.amount_cents, f.invoices])];
    expect(tried.sort()).toEqual(res.body.charges.map((c) => [c.currency, c.amount_cents, c.invoices.map((i) => i.invoice_number)]).sort());
    // Once they are paid, a new agreement would charge only what is left.
    expect((await h.api.get<Preview>('/api/autopay/preview?customer_identifier=LATE01')).body.charges.map((c) => c.currency)).toEqual(['CAD']);
  });

  it('follows the agreement references and the early-payment discount as the run does; an unknown customer is a 412', async () => {
    h = await startGateway({ timezone: 'UTC' });
    expect((await h.api.patch('/api/account', { capabilities: { discounts: true } })).status).toBe(200);
    h.t.clock.set('2026-03-05T09:00:00Z');
    await customerWithInvoices('REF01', [
      ['P-1', '2026-03-01', 10_000, { auto_debit_reference: 'POL-1' }],
      ['P-2', '2026-03-02', 20_000, { auto_debit_reference: 'POL-2', discount_amount_cents: 500, discount_expiry_date: '2026-03-05' }],
      ['GEN', '2026-03-03', 30_000],
    ]);
    const { fund_token } = await walletOf('REF01');
    const only = await h.api.get<Preview>('/api/autopay/preview?customer_identifier=REF01&autopay_reference=POL-2');
    expect(only.body.charges).toEqual([{ currency: 'USD', amount_cents: 19_500, invoices: [{ invoice_number: 'P-2', due_date: '2026-03-02', amount_cents: 19_500 }] }]);
    // A specific agreement on POL-1 claims P-1: a general one made next leaves it to that one.
    expect((await h.api.post('/api/autopay', { customer_identifier: 'REF01', fund_token, autopay_reference: 'POL-1' })).status).toBe(201);
    await h.t.engine.tick();
    const general = await h.api.get<Preview>('/api/autopay/preview?customer_identifier=REF01');
    expect(general.body.charges[0]!.invoices.map((i) => i.invoice_number)).toEqual(['P-2', 'GEN']);
    expect(general.body.charges[0]!.amount_cents).toBe(49_500);

    const unknown = await h.api.get<{ code: string }>('/api/autopay/preview?customer_identifier=NOBODY');
    expect(unknown.status).toBe(412);
    expect(unknown.body.code).toBe('customer_not_found');
  });
});

describe('autopay charges not made', () => {
  it('a removed card: the agreement says it cannot charge, names the card by brand and last four, and keeps the refused charge; reminders go out again', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-01T12:00:00Z');
    await customerWithInvoices('GONE01', [['G-1', '2026-03-03', 42_000]]);
    expect((await h.api.post('/api/imports/customer', { identifier: 'GONE01', name: 'GONE01 Ltd', contacts: [{ email: 'ap@gone01.test' }] })).status).toBe(201);
    await h.api.post('/api/invitations', { identifier: 'GONE01', email: 'ap@gone01.test' });
    const wallet = await walletOf('GONE01');
    expect((await h.api.post('/api/autopay', { customer_identifier: 'GONE01', fund_token: wallet.fund_token })).status).toBe(201);
    const before = await h.api.get<Retrieved>('/api/autopay?customer_identifier=GONE01');
    expect(before.body).toMatchObject({ fund_display: 'Visa **0006', fund_problem: null, last_failures: [] });
    expect((await h.api.post<{ scheduled: number }>('/api/notifications/remind/G-1', {})).body.scheduled).toBe(1);

    expect((await h.api.delete(`/api/gateway/v1/wallets/${wallet.wallet_token}/methods/${wallet.fund_token}`)).status).toBe(200);
    const removed = await h.api.get<Retrieved>('/api/autopay?customer_identifier=GONE01');
    expect(removed.status).toBe(201);
    expect(checkResponse('GET', '/api/autopay', removed.status, removed.body)).toEqual([]);
    expect(removed.body).toMatchObject({ fund_display: 'Visa **0006', fund_problem: 'removed' });
    expect(removed.body.autopays).toHaveLength(1);
    // Autopay can no longer pay it: the invoice is not counted as scheduled, so its reminder goes out.
    expect((await h.api.post<{ scheduled: number }>('/api/notifications/remind/G-1', {})).body.scheduled).toBe(0);

    const events: string[] = [];
    const off = h.t.engine.core.bus.subscribe((e) => void events.push(e.type));
    h.t.clock.set('2026-03-03T09:00:00Z');
    await h.t.engine.tick();
    off();
    const after = await h.api.get<Retrieved>('/api/autopay?customer_identifier=GONE01');
    expect(after.body.last_result).toBe('error');
    expect(after.body.last_failures).toEqual([{ date: '2026-03-03', currency: 'USD', amount_cents: 42_000, invoices: ['G-1'], cause: 'method_removed', code: 'payment_method_inactive', message: null, transaction: null }]);
    expect(events).toContain('autopay.charge_failed');
    expect((await h.api.get<{ owing_cents: number }>('/api/exports/invoice/G-1')).body.owing_cents).toBe(42_000);
  });

  it('a decline is kept with its sale and the issuer\'s words; a later run with nothing failing clears it', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-02T12:00:00Z');
    await customerWithInvoices('DECL01', [['D-1', '2026-03-02', 4_001]]);
    const { fund_token } = await walletOf('DECL01', VISA_DECLINE);
    expect((await h.api.post('/api/autopay', { customer_identifier: 'DECL01', fund_token })).status).toBe(201);
    await h.t.engine.tick();
    const declined = await h.api.get<Retrieved>('/api/autopay?customer_identifier=DECL01');
    expect(declined.body.last_result).toBe('declined');
    expect(declined.body.last_failures).toHaveLength(1);
    expect(declined.body.last_failures[0]).toMatchObject({ date: '2026-03-02', amount_cents: 4_001, invoices: ['D-1'], cause: 'declined' });
    expect(declined.body.last_failures[0]!.transaction).toEqual(expect.any(String));
    expect(declined.body.last_failures[0]!.message).toEqual(expect.any(String));

    // Paid by other means: the next day's run has nothing to charge, and nothing failed.
    expect((await h.api.post('/api/imports/payment', { identifier: 'CHEQUE-1', customer_identifier: 'DECL01', amount_cents: 4_001, date: '2026-03-02', invoice_number: 'D-1', external_payment_type: 'cheque' })).status).toBe(201);
    h.t.clock.set('2026-03-03T12:00:00Z');
    await h.t.engine.tick();
    const cleared = await h.api.get<Retrieved>('/api/autopay?customer_identifier=DECL01');
    expect(cleared.body).toMatchObject({ last_result: 'nothing_due', last_failures: [] });
  });
});
