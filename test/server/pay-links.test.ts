import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { op, startGateway, VISA, VISA_DECLINE, type Harness } from '../helpers/gateway';

/**
 * Click-to-pay over real HTTP: the pay_url an invoice import answers opens a page, the page's
 * operations pay that invoice's balance and nothing else, a retried press never charges twice, a
 * refund puts the invoice back owing, card testing on a link is stopped, and no number rests.
 */
let h: Harness;
afterEach(async () => {
  await h.close();
});

type Outcome = { status: string; transaction: string; attempts_left: number; payment_method: string; amount_cents: number; message: string };
type Payment = { payment_transaction_token: string; payment_amount: string; payment_method: string; status: string; payment_source: string; date: string };
const cardPay = (amount: number, attempt: string, number = VISA, expiry_year = 2031) => ({ type: 'creditCard', amount_cents: amount, name: 'Ann Payer', card_number: number, expiry_month: 12, expiry_year, cvv: '123', postal_code: 'K1C2N6', attempt });
type Tx = { wallet: string | null; credit_card: string | null; bank_account: string | null; sec_code: string | null; cvv_response: string | null };
const transaction = async (token: string) => (await h.api.get<Tx>(`/api/exports/transaction/${token}`)).body;

async function invoiceWithLink(number: string, amount: number): Promise<string> {
  await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware', contacts: [{ email: 'ap@acme.test', first_name: 'Ann' }] });
  const r = await h.api.post<{ pay_url: string; pay_urls: Record<string, string> }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount, date: '2026-03-01', due_date: '2026-03-31', echo: 'pay_urls' });
  expect(r.status).toBe(201);
  expect(r.body.pay_urls['ap@acme.test']).toContain(`${r.body.pay_url}?contact=`);
  return new URL(r.body.pay_url).pathname.replace('/pay/', '');
}

const payments = async () => (await h.api.get<{ payments: Payment[] }>('/api/exports/payments?list=true')).body.payments;
const owing = async (n: string) => (await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${n}`)).body.owing_cents;
const pay = (key: string, body: unknown) => h.api.post<Outcome & { code?: string }>(`/api/pay/${key}/payments`, body, null);

describe('click-to-pay links', () => {
  it('opens the invoice from its pay_url and pays its balance once, by card', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-05T15:00:00Z');
    const key = await invoiceWithLink('PL-1', 123_456);

    const page = await fetch(`${h.api.url}/pay/${key}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/ecommerce/pay.js');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('cache-control')).toBe('no-store');

    const view = await h.api.get<{ invoice: { number: string; owing_cents: number; status: string; currency: string }; customer: { name: string }; methods: string[] }>(`/api/pay/${key}`, null);
    expect(view.status).toBe(200);
    expect(view.body.invoice).toMatchObject({ number: 'PL-1', owing_cents: 123_456, status: 'owing', currency: 'USD' });
    expect(view.body.customer.name).toBe('Acme Hardware');
    expect(view.body.methods).toEqual(['creditCard', 'ach']);

    // The right id with a wrong token is answered as a key that names nothing.
    const [id] = key.split('-');
    const forged = await h.api.get<{ code: string }>(`/api/pay/${id}-AAAAAAAAAAAAAAAA`, null);
    expect(forged.status).toBe(404);
    expect(forged.body.code).toBe('pay_link_not_found');
    expect((await fetch(`${h.api.url}/pay/${id}-AAAAAAAAAAAAAAAA`)).status).toBe(404);

    // A balance other than the one shown is refused before anything is charged.
    const stale = await pay(key, cardPay(100, 'attempt-stale'));
    expect([stale.status, stale.body.code]).toEqual([409, 'amount_changed']);

    const declined = await pay(key, cardPay(123_456, 'attempt-1', VISA_DECLINE));
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ status: 'declined', attempts_left: 4 });
    expect(await owing('PL-1')).toBe(123_456);
    // The processor approves a security code the issuer says does not match (the sandbox's 345): the sale is voided, the payer declined.
    const wrongCode = await pay(key, { ...cardPay(123_456, 'attempt-cvv'), cvv: '345' });
    expect(wrongCode.body).toMatchObject({ status: 'declined', attempts_left: 3 });
    expect(wrongCode.body.message).toContain('security code');
    expect(await owing('PL-1')).toBe(123_456);
    expect((await h.api.get<{ state: string }>(`/api/exports/transaction/${wrongCode.body.transaction}`)).body.state).toBe('cancelled');

    const paid = await pay(key, cardPay(123_456, 'attempt-2'));
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'approved', amount_cents: 123_456, payment_method: 'Visa **0006' });
    // The receipt's date is the install's clock (a sandbox clock moved ahead), not the payer's.
    expect((paid.body as { paid_at?: string }).paid_at).toBe('2026-03-05T15:00:00.000Z');
    expect(await owing('PL-1')).toBe(0);
    // The gateway checked the security code, and the card is not kept for anyone to charge again.
    const sale = await transaction(paid.body.transaction);
    expect(sale.cvv_response).toBe('P');
    expect(sale.credit_card).toBeTruthy();
    const reuse = await h.api.post<{ success: boolean }>('/api/gateway/v1/orders/sale', { amount_cents: 777, currency: 'usd', fund_token: sale.credit_card });
    expect(reuse.body.success).toBe(false);

    // The page lost the answer and sent the same press again: the same sale, no second payment.
    const again = await pay(key, cardPay(123_456, 'attempt-2'));
    expect(again.body.transaction).toBe(paid.body.transaction);
    const once = await payments();
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ payment_transaction_token: paid.body.transaction, payment_amount: '1234.56', payment_method: 'Visa **0006', status: 'PAID', payment_source: 'ARC' });

    // A new press on a paid invoice charges nothing.
    const more = await pay(key, cardPay(123_456, 'attempt-3'));
    expect([more.status, more.body.code]).toEqual([409, 'invoice_not_owing']);
    expect((await h.api.get<{ invoice: { status: string } }>(`/api/pay/${key}`, null)).body.invoice.status).toBe('paid');
    expect(await payments()).toHaveLength(1);

    // The merchant refunds part of it: the invoice is owed again by that much, and the link takes it.
    expect((await op(h.api, 'refund', { amount_cents: 23_456, transaction: paid.body.transaction })).body.success).toBe(true);
    await h.t.engine.tick();
    expect(await owing('PL-1')).toBe(23_456);
    const view2 = await h.api.get<{ invoice: { owing_cents: number; status: string } }>(`/api/pay/${key}`, null);
    expect(view2.body.invoice).toMatchObject({ owing_cents: 23_456, status: 'owing' });
  });

  it('pays a USD invoice by bank account, in progress until the debit settles', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-05T15:00:00Z');
    const key = await invoiceWithLink('PL-ACH', 50_000);
    const r = await pay(key, { type: 'ach', amount_cents: 50_000, name: 'Acme Hardware', routing_number: '122105278', account_number: '0000000016', account_type: 'checking', check_type: 'business', attempt: 'attempt-ach' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'in_progress', payment_method: 'Bank account **0016' });
    expect(await owing('PL-ACH')).toBe(0);
    expect((await payments())[0]).toMatchObject({ status: 'IN PROGRESS' });
    // Authorized on a web page: a WEB entry, and the account is not kept either.
    const debit = await transaction(r.body.transaction);
    expect(debit.sec_code).toBe('WEB');
    expect(debit.bank_account).toBeTruthy();
    const reuse = await h.api.post<{ success: boolean }>('/api/gateway/v1/orders/sale', { amount_cents: 555, currency: 'usd', fund_token: debit.bank_account });
    expect(reuse.body.success).toBe(false);
  });

  it('pauses a link after five refused payments, and takes payments again a day after the first', async () => {
    h = await startGateway({ timezone: 'UTC' });
    h.t.clock.set('2026-03-05T15:00:00Z');
    const key = await invoiceWithLink('PL-TEST', 1_000);
    for (let i = 1; i <= 5; i++) {
      h.t.clock.set(`2026-03-05T15:0${i}:00Z`);
      // Declines (a made-up number too) and cards the gateway refuses outright (a past expiry) count alike.
      const r = await pay(key, i === 4 ? cardPay(1_000, 'probe-04', VISA, 2020) : cardPay(1_000, `probe-0${i}`, i % 2 ? VISA_DECLINE : '4111111111111112'));
      if (i === 4) expect([r.status, r.body.code]).toEqual([412, 'payment_method_refused']);
      else expect(r.body).toMatchObject({ status: 'declined', attempts_left: 5 - i });
    }
    const paused = await pay(key, cardPay(1_000, 'probe-06'));
    expect([paused.status, paused.body.code]).toEqual([409, 'pay_link_paused']);
    expect((await h.api.get<{ locked_until: string }>(`/api/pay/${key}`, null)).body.locked_until).toBe('2026-03-06T15:01:00.000Z');
    expect(await owing('PL-TEST')).toBe(1_000);

    h.t.clock.set('2026-03-06T15:01:30Z');
    const later = await pay(key, cardPay(1_000, 'probe-07'));
    expect(later.body.status).toBe('approved');
    expect(await owing('PL-TEST')).toBe(0);
  });

  it('takes the early-payment discount the ERP sent when the invoice is paid in full by its date, and not after', async () => {
    h = await startGateway({ timezone: 'America/Toronto' });
    expect((await h.api.patch('/api/account', { capabilities: { discounts: true } })).status).toBe(200);
    // 2/10 net 30: $1,000.00 with $20.00 off when paid by March 10 (Toronto).
    h.t.clock.set('2026-03-05T15:00:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware' });
    const link = async (number: string, expiry = '2026-03-10') => {
      const r = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount: 100_000, date: '2026-03-01', due_date: '2026-03-31', discount_rate: 0.02, discount_expiry_date: expiry, echo: 'pay_urls' });
      expect(r.status).toBe(201);
      return new URL(r.body.pay_url).pathname.replace('/pay/', '');
    };
    type View = { invoice: { owing_cents: number; discount_cents: number; discount_expiry_date: string | null; pay_cents: number; status: string } };
    const view = async (key: string) => (await h.api.get<View>(`/api/pay/${key}`, null)).body.invoice;
    const key = await link('PL-DISC');
    expect(await view(key)).toMatchObject({ owing_cents: 100_000, discount_cents: 2_000, discount_expiry_date: '2026-03-10', pay_cents: 98_000 });

    // The whole balance is not what the page asks for: refused, nothing charged.
    expect((await pay(key, cardPay(100_000, 'attempt-full'))).body.code).toBe('amount_changed');
    const paid = await pay(key, cardPay(98_000, 'attempt-disc'));
    expect(paid.body).toMatchObject({ status: 'approved', amount_cents: 98_000 });
    expect(paid.body.message).toContain('discount');
    expect(await owing('PL-DISC')).toBe(0);
    const [payment] = await payments();
    expect(payment).toMatchObject({ payment_amount: '980.00' });
    const amounts = (await h.api.get<{ payment_amounts: Array<{ invoice_number: string; amount: string; discount_amount: string }> }>(`/api/exports/payment/${paid.body.transaction}`)).body.payment_amounts;
    expect(amounts).toEqual([expect.objectContaining({ invoice_number: 'PL-DISC', amount: '980.00', discount_amount: '20.00' })]);
    expect((await transaction(paid.body.transaction)) as unknown).toMatchObject({ amount_in_cents: 98_000, payments: [{ amount_cents: 98_000 }] });

    // Refunded in full: the invoice owes its whole amount again, discount included.
    expect((await op(h.api, 'void', { transaction: paid.body.transaction })).body.success).toBe(true);
    await h.t.engine.tick();
    expect(await owing('PL-DISC')).toBe(100_000);

    // The ERP's payment of part of it lands while a card is charged for the discounted rest: the
    // money taken is recorded all the same, without the discount the invoice no longer gives, and
    // what it pays beyond the balance is the customer's credit (never a charge left unrecorded).
    const race = await link('PL-RACE');
    expect((await view(race)).pay_cents).toBe(98_000);
    expect((await h.api.post('/api/imports/payment', { identifier: 'CHQ-RACE', customer_identifier: 'PAYER1', amount_cents: 5_000, invoice_number: 'PL-RACE' })).status).toBe(201);
    const late = await h.t.engine.receivables.recordPayment({ customer_identifier: 'PAYER1', amount_cents: 98_000, channel: 'portal', invoices: [{ number: 'PL-RACE', amount_cents: 98_000, discount_cents: 2_000 }] });
    expect(late).toMatchObject({ payment_amount: '980.00', unapplied_amount: '30.00' });
    expect(late.payment_amounts).toEqual([expect.objectContaining({ invoice_number: 'PL-RACE', amount: '950.00', discount_amount: '0.00' })]);
    expect(await owing('PL-RACE')).toBe(0);
    // Nor does a caller name a discount of its own: more than the invoice gives is not taken.
    const bogus = await link('PL-BOGUS');
    await h.t.engine.receivables.recordPayment({ customer_identifier: 'PAYER1', amount_cents: 95_000, channel: 'portal', invoices: [{ number: 'PL-BOGUS', amount_cents: 95_000, discount_cents: 5_000 }] });
    expect(await owing('PL-BOGUS')).toBe(5_000);
    expect((await view(bogus)).discount_cents).toBe(0);

    // Part paid another way: the discount is for paying all of it early, so none is offered.
    const part = await link('PL-PART');
    expect((await h.api.post('/api/imports/payment', { identifier: 'CHQ-1', customer_identifier: 'PAYER1', amount_cents: 10_000, invoice_number: 'PL-PART' })).status).toBe(201);
    expect(await view(part)).toMatchObject({ owing_cents: 90_000, discount_cents: 0, pay_cents: 90_000 });

    // 11:30 pm on March 10 in Toronto (EDT since March 8) is March 11 in UTC: still the last day of the discount there.
    const lastDay = await link('PL-LATE');
    h.t.clock.set('2026-03-11T03:30:00Z');
    expect(await view(lastDay)).toMatchObject({ discount_cents: 2_000, pay_cents: 98_000 });
    h.t.clock.set('2026-03-11T04:30:00Z');
    expect(await view(lastDay)).toMatchObject({ discount_cents: 0, discount_expiry_date: null, pay_cents: 100_000 });
    // The page shown before midnight asks for the discounted amount: refused, the payer sees the new one.
    expect((await pay(lastDay, cardPay(98_000, 'attempt-late'))).body.code).toBe('amount_changed');
    expect((await pay(lastDay, cardPay(100_000, 'attempt-late-2'))).body).toMatchObject({ status: 'approved', amount_cents: 100_000 });
    expect(await owing('PL-LATE')).toBe(0);

    // Pay pressed at 11:59:59 pm on the last day, the sale answered after midnight: the payment is of
    // the day it was made, with its discount (not recorded without it, leaving $20.00 owed).
    const midnight = await link('PL-MID', '2026-03-11');
    h.t.clock.set('2026-03-12T03:59:59Z');
    expect((await view(midnight)).pay_cents).toBe(98_000);
    const gateway = h.t.engine.gateway;
    const transact = gateway.transact.bind(gateway);
    gateway.transact = async (...args) => {
      const answer = await transact(...args);
      h.t.clock.set('2026-03-12T04:00:30Z');
      return answer;
    };
    try {
      expect((await pay(midnight, cardPay(98_000, 'attempt-midnight'))).body).toMatchObject({ status: 'approved', amount_cents: 98_000 });
    } finally {
      gateway.transact = transact;
    }
    expect(await owing('PL-MID')).toBe(0);
    const [atMidnight] = (await payments()).filter((p) => p.payment_amount === '980.00' && p.date === '2026-03-11');
    expect(atMidnight).toBeDefined();
  });

  it('records a sale the processor took before a stop, as it was priced: on the payer\'s retry after the discount lapsed, and by a tick when nobody retries', async () => {
    h = await startGateway({ timezone: 'UTC' });
    expect((await h.api.patch('/api/account', { capabilities: { discounts: true } })).status).toBe(200);
    h.t.clock.set('2026-03-10T23:59:00Z');
    await h.api.post('/api/imports/customer', { identifier: 'PAYER1', name: 'Acme Hardware' });
    const link = async (number: string) => {
      const r = await h.api.post<{ pay_url: string }>('/api/imports/invoice', { number, customer_identifier: 'PAYER1', amount: 100_000, date: '2026-03-01', due_date: '2026-03-31', discount_rate: 0.02, discount_expiry_date: '2026-03-10', echo: 'pay_urls' });
      return new URL(r.body.pay_url).pathname.replace('/pay/', '');
    };
    const retried = await link('PL-STOP-1');
    const abandoned = await link('PL-STOP-2');
    /** The server stops once the processor has answered, before the payment is written. */
    const stopAfterSale = async (key: string, attempt: string) => {
      const receivables = h.t.engine.receivables;
      const record = receivables.recordPayment.bind(receivables);
      receivables.recordPayment = () => Promise.reject(new Error('the server stopped'));
      try {
        await expect(h.t.engine.payLinks.pay(key, cardPay(98_000, attempt) as Parameters<typeof h.t.engine.payLinks.pay>[1])).rejects.toThrow('the server stopped');
      } finally {
        receivables.recordPayment = record;
      }
      await h.restart();
    };
    await stopAfterSale(retried, 'attempt-stop-1');
    await stopAfterSale(abandoned, 'attempt-stop-2');
    expect(await owing('PL-STOP-1')).toBe(100_000);

    // Past midnight the discount is over, but the payer pressed Pay before it: the retry of that
    // press records the sale already taken, with its discount, and charges nothing more.
    h.t.clock.set('2026-03-11T00:00:30Z');
    const again = await pay(retried, cardPay(98_000, 'attempt-stop-1'));
    expect(again.body).toMatchObject({ status: 'approved', amount_cents: 98_000 });
    expect(await owing('PL-STOP-1')).toBe(0);
    const amounts = (await h.api.get<{ payment_amounts: Array<{ amount: string; discount_amount: string }>; date: string }>(`/api/exports/payment/${again.body.transaction}`)).body;
    expect(amounts.payment_amounts).toEqual([expect.objectContaining({ amount: '980.00', discount_amount: '20.00' })]);
    expect(amounts.date).toBe('2026-03-10');

    // Nobody comes back for the other: a tick records its sale once the press is minutes old.
    await h.t.engine.tick();
    expect(await owing('PL-STOP-2')).toBe(100_000);
    h.t.clock.set('2026-03-11T00:05:00Z');
    await h.t.engine.tick();
    expect(await owing('PL-STOP-2')).toBe(0);
    // One payment and one sale per press, each the discounted amount.
    const all = await payments();
    expect(all.map((p) => p.payment_amount)).toEqual(['980.00', '980.00']);
    const sales = await Promise.all(all.map((p) => transaction(p.payment_transaction_token)));
    expect(sales.map((t) => (t as unknown as { amount_in_cents: number }).amount_in_cents)).toEqual([98_000, 98_000]);
    // The abandoned press's page, opened again, shows it paid; the same press answers the same sale.
    expect((await h.api.get<{ invoice: { status: string } }>(`/api/pay/${abandoned}`, null)).body.invoice.status).toBe('paid');
    const replay = await pay(abandoned, cardPay(98_000, 'attempt-stop-2'));
    expect(replay.body).toMatchObject({ status: 'approved', transaction: all.find((p) => p.payment_transaction_token !== again.body.transaction)!.payment_transaction_token });
  });

  it('offers no way to pay an invoice over what one transaction takes', async () => {
    h = await startGateway({ timezone: 'UTC' });
    const key = await invoiceWithLink('PL-HUGE', 1_000_000_000);
    const view = await h.api.get<{ methods: string[]; invoice: { status: string } }>(`/api/pay/${key}`, null);
    expect(view.body).toMatchObject({ methods: [], invoice: { status: 'owing' } });
    const r = await pay(key, cardPay(1_000_000_000, 'attempt-huge'));
    expect([r.status, r.body.code]).toEqual([409, 'amount_too_large']);
  });

  it('keeps no card or account number in the data folder', async () => {
    h = await startGateway({ timezone: 'UTC', keep: true });
    h.t.clock.set('2026-03-05T15:00:00Z');
    const key = await invoiceWithLink('PL-PAN', 2_000);
    await pay(key, cardPay(2_000, 'attempt-pan-1', VISA_DECLINE));
    await pay(key, cardPay(2_000, 'attempt-pan-2', '4111111111111112'));
    expect((await pay(key, cardPay(2_000, 'attempt-pan-3'))).body.status).toBe('approved');
    const text: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else text.push(readFileSync(join(d, e.name)).toString('latin1'));
      }
    };
    walk(h.t.dir);
    const all = text.join('\n');
    for (const pan of [VISA, VISA_DECLINE, '4111111111111112']) expect(all).not.toContain(pan);
    expect(all).toContain('0006');
  });
});
