import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHarness, basicAuth } from '../helpers/harness';
import { DISCOVER, VISA, VISA_DECLINE } from '../helpers/cards';
import { SALE_TOTAL, card, gatewayAuthorization, newSession, sale, tokenFor } from './helpers';

/**
 * The ecommerce API (/api/v2) over HTTP, operation by operation with its errors, in the
 * reference's shapes (every answer is checked against our OpenAPI document by the harness).
 */
const h = useHarness({ api: true });
type Err = { message: string; errors: Array<{ path: string; message: string; response_code?: string }> };

describe('sessions', () => {
  it('creates a session with the credentials in the body or as Basic, and refuses bad ones with 401', async () => {
    const res = await h.api.post<{ id: string }>('/api/v2/sessions', { gatewayAuthorization, options: {} }, null);
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const basic = await h.api.post('/api/v2/sessions', { options: {} }, basicAuth());
    expect(basic.status).toBe(201);
    const bad = await h.api.post<Err>('/api/v2/sessions', { gatewayAuthorization: { apiToken: gatewayAuthorization.apiToken, apiKey: 'wrong' }, options: {} }, null);
    expect(bad.status).toBe(401);
    expect(bad.body.message).toMatch(/authentication/i);
    const none = await h.api.post<Err>('/api/v2/sessions', { options: {} }, null);
    expect(none.status).toBe(401);
  });

  it('answers malformed requests 400 in the reference shape, naming the field', async () => {
    const res = await h.api.post<Err>('/api/v2/sessions', { gatewayAuthorization, options: { paymentTypes: [{ name: 'bitcoin' }] } }, null);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]!.path).toMatch(/^\/options\/paymentTypes\/0/);
    const noOptions = await h.api.post<Err>('/api/v2/sessions', { gatewayAuthorization }, null);
    expect(noOptions.status).toBe(400);
    expect(noOptions.body.errors.map((e) => e.path)).toContain('/options');
  });

  it('shows its options to the frame, with default labels, and expires after an hour (404)', async () => {
    const id = await newSession(h.api, { paymentTypes: [{ name: 'creditCard', promoted: true }, { name: 'ach', label: 'Bank' }], avsRules: { rejectAddressMismatch: true } });
    const res = await h.api.get<{ paymentTypes: Array<{ name: string; label: string }>; avsRules: unknown; expiresAt: string }>(`/api/v2/sessions/${id}`, null);
    expect(res.status).toBe(200);
    expect(res.body.paymentTypes.map((p) => [p.name, p.label])).toEqual([
      ['creditCard', 'Payment Card'],
      ['ach', 'Bank'],
    ]);
    expect(res.body.avsRules).toEqual({ rejectAddressMismatch: true });
    expect((await h.api.get<Err>('/api/v2/sessions/00000000-0000-4000-8000-000000000000', null)).status).toBe(404);
    h.t.clock.advance(61 * 60_000);
    const expired = await h.api.get<Err>(`/api/v2/sessions/${id}`, null);
    expect(expired.status).toBe(404);
    expect(expired.body.message).toMatch(/expired/);
  });
});

describe("the reference's own examples", () => {
  it('takes the PaymentTypes example as it is (its applePay field options name no field) and offers the four methods', async () => {
    const reference = JSON.parse(readFileSync('/work/shared/spec/reference/ecommerce-api-2.0.0.openapi.json', 'utf8')) as { components: { schemas: { PaymentTypes: { example: unknown } } } };
    const paymentTypes = reference.components.schemas.PaymentTypes.example;
    const id = await newSession(h.api, { paymentTypes });
    const res = await h.api.get<{ paymentTypes: Array<{ name: string }> }>(`/api/v2/sessions/${id}`, null);
    expect(res.status).toBe(200);
    expect(res.body.paymentTypes.map((p) => p.name).sort()).toEqual(['ach', 'applePay', 'creditCard', 'giftCard']);
  });
});

describe('tokens', () => {
  it('tokenizes a test card; refuses a bad number (412), a type the session does not take (403), missing fields (400)', async () => {
    const id = await newSession(h.api);
    const res = await h.api.post<{ token: string }>(`/api/v2/sessions/${id}/tokens`, card(VISA), null);
    expect(res.status).toBe(201);
    // The reference's FundToken: twelve letters and digits (a generated client refuses another length).
    expect(res.body.token).toMatch(/^[0-9A-Z]{12}$/);
    expect(res.text).not.toContain(VISA);
    const luhn = await h.api.post<Err>(`/api/v2/sessions/${id}/tokens`, card('4895281000000007'), null);
    expect(luhn.status).toBe(412);
    expect(luhn.text).not.toContain('4895281000000007');
    const ach = await h.api.post<Err>(`/api/v2/sessions/${id}/tokens`, { type: 'ach', accountNumber: '0000000016', routingNumber: '122105278' }, null);
    expect(ach.status).toBe(403);
    const missing = await h.api.post<Err>(`/api/v2/sessions/${id}/tokens`, { type: 'creditCard', accountNumber: VISA }, null);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]!.path).toBe('/expirationMonth');
    const unknown = await h.api.post<Err>(`/api/v2/sessions/00000000-0000-4000-8000-000000000000/tokens`, card(VISA), null);
    expect(unknown.status).toBe(404);
  });
});

describe('sales', () => {
  it('sells by card in one step: an order finalized, the same gateway transaction as everywhere, retries charge once', async () => {
    const id = await newSession(h.api);
    const token = await tokenFor(h.api, id, card(VISA));
    const body = sale('SO-1', { payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } });
    const res = await h.api.post<{ orderId: string; finalized: boolean; payment: Record<string, unknown> }>(`/api/v2/sessions/${id}/sales`, body, null);
    expect(res.status).toBe(201);
    expect(res.body.finalized).toBe(true);
    expect(res.body.payment).toMatchObject({ accountNumberLastFour: '0006', accountType: 'Visa', token, amount: SALE_TOTAL, avsResponseCode: 'Y' });
    const again = await h.api.post<{ orderId: string }>(`/api/v2/sessions/${id}/sales`, body, null);
    expect(again.body.orderId).toBe(res.body.orderId);
    const order = await h.t.engine.orders.view(res.body.orderId);
    // The order's countries are 3-letter ISO, as the ERP reads every other order's (the frame sent US).
    expect(order).toMatchObject({ number: 'SO-1', amount_cents: 3050, draft: false, currency: 'usd', billing_country: 'USA', shipping_country: 'USA' });
    expect(order!.transactions).toHaveLength(1);
    expect(order!.transactions[0]).toMatchObject({ action: 'sale', amount_in_cents: 3050, state: 'completed' });
    const view = await h.api.get<{ token: string }>(`/api/gateway/v1/transaction/${String(res.body.payment.transactionId)}`);
    expect(view.status).toBe(200);
    const other = await h.api.post<Err>(`/api/v2/sessions/${id}/sales`, sale('SO-1', { taxAmount: 2 }), null);
    expect(other.status).toBe(400);
    expect(other.body.errors[0]!.path).toBe('/orderNumber');
  });

  it('refuses to tokenize the always-declining card (412, verification failed)', async () => {
    const id = await newSession(h.api);
    const res = await h.api.post<Err>(`/api/v2/sessions/${id}/tokens`, card(VISA_DECLINE), null);
    expect(res.status).toBe(412);
    expect(res.body.message).toMatch(/verification failed/i);
  });

  it('answers a decline 402 with the response code; the order stays unfinalized and takes another payment', async () => {
    const id = await newSession(h.api);
    const token = await tokenFor(h.api, id, card(VISA));
    // 30.01: an amount ending in .01 declines in the sandbox.
    const res = await h.api.post<Err & { orderId: string }>(`/api/v2/sessions/${id}/sales`, sale('SO-2', { taxAmount: 0.96, payment: { type: 'creditCard', token, amount: 30.01, capture: true } }), null);
    expect(res.status).toBe(402);
    expect(res.body.errors[0]).toMatchObject({ path: '/payment', response_code: '999' });
    // Paid in two parts that do not end in .01.
    for (const amount of [29.5, 0.51]) {
      const pay = await h.api.post<{ amount: number }>(`/api/v2/sessions/${id}/sales/${res.body.orderId}/payments`, { gatewayAuthorization, type: 'creditCard', token, amount, capture: true }, null);
      expect(pay.status, JSON.stringify(pay.body)).toBe(201);
    }
    const published = async () => JSON.stringify((await h.api.get('/api/exports/orders/published?list=true&limit=1000')).body);
    expect(await published()).not.toContain(res.body.orderId);
    const fin = await h.api.patch<{ finalized: boolean }>(`/api/v2/sessions/${id}/sales/${res.body.orderId}`, { gatewayAuthorization }, null);
    expect(fin.status).toBe(202);
    expect(fin.body.finalized).toBe(true);
    // Finalized: the order is published, for the ERP that polls published orders.
    expect(await published()).toContain(res.body.orderId);
    const after = await h.api.post<Err>(`/api/v2/sessions/${id}/sales/${res.body.orderId}/payments`, { gatewayAuthorization, type: 'creditCard', token, amount: 1, capture: true }, null);
    expect(after.status).toBe(400);
  });

  it("applies the session's AVS rules to the sandbox's AVS answer (402, nothing charged)", async () => {
    const id = await newSession(h.api, { avsRules: { rejectAddressMismatch: true } });
    const token = await tokenFor(h.api, id, card(VISA));
    const billing = { address1: '234 Elm Street', city: 'Denver', postCode: '80803', country: 'US' };
    const res = await h.api.post<Err & { orderId: string }>(`/api/v2/sessions/${id}/sales`, sale('SO-3', { billingAddress: billing, payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } }), null);
    expect(res.status).toBe(402);
    expect(res.body.errors[0]!.response_code).toBe('203');
    expect(res.body.message).toMatch(/AVS N/);
    expect((await h.t.engine.orders.view(res.body.orderId))!.transactions).toHaveLength(0);
    // Without the rule the same address pays.
    const open = await newSession(h.api);
    const t2 = await tokenFor(h.api, open, card(VISA));
    const ok = await h.api.post(`/api/v2/sessions/${open}/sales`, sale('SO-3', { billingAddress: billing, payment: { type: 'creditCard', token: t2, amount: SALE_TOTAL, capture: true } }), null);
    expect(ok.status).toBe(201);
  });

  it('pays by ACH, and authorizes a card when capture is false', async () => {
    const id = await newSession(h.api, { paymentTypes: [{ name: 'creditCard' }, { name: 'ach' }] });
    const token = await tokenFor(h.api, id, { type: 'ach', accountHolder: 'Jane Smith', accountNumber: '0000000016', routingNumber: '122105278', accountType: 'checking', checkType: 'personal', currency: 'USD' });
    const res = await h.api.post<{ orderId: string; payment: Record<string, unknown> }>(`/api/v2/sessions/${id}/sales`, sale('SO-4', { payment: { type: 'ach', token, amount: SALE_TOTAL, capture: true } }), null);
    expect(res.status, res.text).toBe(201);
    expect(res.body.payment).toMatchObject({ accountNumberLastFour: '0016', accountType: 'Checking' });
    const tx = (await h.t.engine.orders.view(res.body.orderId))!.transactions[0]!;
    expect(tx).toMatchObject({ payment_method: 'bank_account', state: 'in_progress' });
    const c = await tokenFor(h.api, id, card(VISA));
    const auth = await h.api.post<{ orderId: string }>(`/api/v2/sessions/${id}/sales`, sale('SO-5', { payment: { type: 'creditCard', token: c, amount: SALE_TOTAL, capture: false } }), null);
    expect((await h.t.engine.orders.view(auth.body.orderId))!.transactions[0]).toMatchObject({ action: 'authorize' });
  });

  it('takes two partial payments: a gift card pays its balance, a card the rest, then the sale is finalized', async () => {
    await h.t.engine.giftCards.load({ card_number: '6035710000000001', pin: '1234', activated: true, load_amount_cents: 1000 });
    const id = await newSession(h.api, { paymentTypes: [{ name: 'creditCard' }, { name: 'giftCard' }], amount: SALE_TOTAL });
    const gift = await tokenFor(h.api, id, { type: 'giftCard', accountNumber: '6035710000000001', pin: '1234' });
    expect(gift).toMatch(/^[0-9A-Z]{12}$/);
    const wrongPin = await h.api.post<Err>(`/api/v2/sessions/${id}/tokens`, { type: 'giftCard', accountNumber: '6035710000000001', pin: '9999' }, null);
    expect(wrongPin.status).toBe(412);
    const balance = await h.api.get<{ balance: number }>(`/api/v2/sessions/${id}/balance/${gift}`, null);
    expect(balance.body).toEqual({ balance: 10 });
    const cardToken = await tokenFor(h.api, id, card(VISA));
    expect((await h.api.get(`/api/v2/sessions/${id}/balance/${cardToken}`, null)).status).toBe(404);

    const created = await h.api.post<{ orderId: string; finalized: boolean }>(`/api/v2/sessions/${id}/sales`, sale('SO-6'), null);
    expect(created.body.finalized).toBe(false);
    const path = `/api/v2/sessions/${id}/sales/${created.body.orderId}/payments`;
    const first = await h.api.post<{ amount: number }>(path, { gatewayAuthorization, type: 'giftCard', token: gift, amount: SALE_TOTAL, capture: true }, null);
    expect(first.status).toBe(201);
    expect(first.body.amount).toBe(10);
    const over = await h.api.post<Err>(path, { gatewayAuthorization, type: 'creditCard', token: cardToken, amount: 25, capture: true }, null);
    expect(over.status).toBe(400);
    const second = await h.api.post<{ amount: number }>(path, { gatewayAuthorization, type: 'creditCard', token: cardToken, amount: 20.5, capture: true }, null);
    expect(second.body.amount).toBe(20.5);
    const fin = await h.api.patch<{ finalized: boolean }>(`/api/v2/sessions/${id}/sales/${created.body.orderId}`, { gatewayAuthorization }, null);
    expect(fin.status).toBe(202);
    const order = await h.t.engine.orders.view(created.body.orderId);
    expect(order!.draft).toBe(false);
    expect(order!.transactions.map((t) => [t.payment_method, t.amount_in_cents])).toEqual([
      ['gift_card', 1000],
      ['credit_card', 2050],
    ]);
    expect((await h.api.patch(`/api/v2/sessions/${id}/sales/NOSUCHSALE`, { gatewayAuthorization }, null)).status).toBe(404);
    expect((await h.api.patch(`/api/v2/sessions/${id}/sales/${created.body.orderId}`, {}, null)).status).toBe(401);
  });

  it('refuses a sale whose total or a line amount is over what an order holds (400 invalid_amount naming the field), charging nothing; a payment over what one transaction takes too', async () => {
    const id = await newSession(h.api);
    const token = await tokenFor(h.api, id, card(VISA));
    const before = h.t.engine.core.currentWatermark();
    const cases: Array<[Record<string, unknown>, string]> = [
      // 999,999,999.00 x 1,000,000: 10^17 cents, beyond a safe integer (was stored as amount_cents null and took payments).
      [{ lines: [{ number: 'X', description: 'x', price: 999_999_999, quantity: 1_000_000 }] }, '/lines/0'],
      // One cent over the 11 digits of an order's amount_cents, from a line.
      [{ lines: [{ number: 'X', description: 'x', price: 100_000_000, quantity: 1_000 }] }, '/lines/0'],
      // Each line within it, the total not.
      [{ lines: [{ number: 'A', description: 'a', price: 999_999_999, quantity: 1 }, { number: 'B', description: 'b', price: 1, quantity: 1 }] }, '/lines'],
      [{ lines: [{ number: 'A', description: 'a', price: 999_999_999, quantity: 1 }], shippingAmount: 1 }, '/lines'],
      // Negative past the limit.
      [{ lines: [{ number: 'A', description: 'a', price: 1, quantity: 1 }, { number: 'B', description: 'b', price: -999_999_999, quantity: 1_000 }] }, '/lines/1'],
    ];
    for (const [i, [extra, path]] of cases.entries()) {
      const res = await h.api.post<Err & { code?: string }>(`/api/v2/sessions/${id}/sales`, { ...sale(`SO-BIG-${i}`, { payment: { type: 'creditCard', token, amount: 50, capture: true } }), shippingAmount: 0, taxAmount: 0, ...extra }, null);
      expect([res.status, res.body.errors?.[0]?.path], `case ${i}`).toEqual([400, path]);
      expect(res.body.errors[0]!.message, `case ${i}`).toMatch(/999,999,999\.99/);
    }
    // The engine's code for an amount over the limit (the ecommerce shape carries only path and message).
    const [first] = cases[0]!;
    await expect(h.t.engine.ecommerce.createSale(id, { ...sale('SO-BIG-E'), ...first } as never, 'test')).rejects.toMatchObject({ code: 'invalid_amount', details: [{ field: '/lines/0' }] });
    expect(h.t.engine.core.currentWatermark()).toBe(before);

    // At the limit the sale is taken and holds its exact total (several payments pay it: one takes at most 9,999,999.99).
    const max = await h.api.post<{ orderId: string; finalized: boolean }>(`/api/v2/sessions/${id}/sales`, { ...sale('SO-MAX'), shippingAmount: 0, taxAmount: 0, lines: [{ number: 'A', description: 'a', price: 999_999_999, quantity: 1 }] }, null);
    expect(max.status).toBe(201);
    expect((await h.t.engine.orders.view(max.body.orderId))!.amount_cents).toBe(99_999_999_900);
    const path = `/api/v2/sessions/${id}/sales/${max.body.orderId}/payments`;
    const tooMuch = await h.api.post<Err>(path, { gatewayAuthorization, type: 'creditCard', token, amount: 10_000_000, capture: true }, null);
    expect([tooMuch.status, tooMuch.body.errors?.[0]?.path]).toEqual([400, '/amount']);
    const most = await h.api.post<{ amount: number }>(path, { gatewayAuthorization, type: 'creditCard', token, amount: 9_999_999.99, capture: true }, null);
    expect([most.status, most.body.amount]).toEqual([201, 9_999_999.99]);
  });

  it('refuses a token made on another session, and a sale without lines', async () => {
    const a = await newSession(h.api);
    const b = await newSession(h.api);
    const token = await tokenFor(h.api, a, card(VISA));
    const res = await h.api.post<Err>(`/api/v2/sessions/${b}/sales`, sale('SO-7', { payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } }), null);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]!.path).toBe('/payment/token');
    const noLines = await h.api.post<Err>(`/api/v2/sessions/${b}/sales`, { ...sale('SO-8'), lines: [] }, null);
    expect(noLines.status).toBe(400);
  });
});

describe('retries and card data', () => {
  it('charges once when the same sale is sent several times at once', async () => {
    const id = await newSession(h.api);
    const token = await tokenFor(h.api, id, card(VISA));
    const body = sale('SO-R', { payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } });
    const answers = await Promise.all([1, 2, 3].map(() => h.api.post<{ orderId: string; payment: { transactionId: string } }>(`/api/v2/sessions/${id}/sales`, body, null)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.orderId)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.payment.transactionId)).size).toBe(1);
    expect((await h.t.engine.orders.view(answers[0]!.body.orderId))!.transactions).toHaveLength(1);
  });

  it('keeps no card number or security code at rest: not in the database, its journal or the logs', async () => {
    const id = await newSession(h.api);
    const token = await tokenFor(h.api, id, card(DISCOVER, { cardVerificationValue: '987' }));
    await h.api.post(`/api/v2/sessions/${id}/sales`, sale('SO-P', { payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } }), null);
    await h.api.post(`/api/v2/sessions/${id}/tokens`, card('6011000990911112'), null);
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else files.push(readFileSync(p).toString('latin1'));
      }
    };
    walk(h.t.dir);
    for (const text of files) {
      expect(text).not.toContain(DISCOVER);
      expect(text).not.toContain('6011000990911112');
      expect(text).not.toContain('"987"');
    }
  });
});

describe('wallets', () => {
  it("creates a wallet; the session's frame adds, edits and removes its entries as the options allow", async () => {
    const w = await h.api.post<{ walletId: string }>('/api/v2/wallets', { gatewayAuthorization }, null);
    expect(w.status).toBe(201);
    expect((await h.api.post('/api/v2/wallets', {}, null)).status).toBe(401);
    const walletId = w.body.walletId;
    expect(walletId).toMatch(/^[0-9A-Z]{12}$/);
    const id = await newSession(h.api, { wallet: { id: walletId, allowAdd: true, allowEdit: true, allowDelete: false } });
    const token = await tokenFor(h.api, id, card(VISA, { addToWallet: true }));
    const view = await h.api.get<{ wallet: { id: string; creditCardTokens: Array<Record<string, unknown>> } }>(`/api/v2/sessions/${id}`, null);
    expect(view.body.wallet.creditCardTokens).toEqual([expect.objectContaining({ token, accountNumberLastFour: '0006', brand: 'visa', editable: true })]);
    const entry = `/api/v2/sessions/${id}/wallet/${walletId}/creditcards/${token}`;
    expect((await h.api.patch(entry, { accountHolder: 'J Smith', expirationYear: 2031 }, null)).status).toBe(202);
    const after = await h.api.get<{ wallet: { creditCardTokens: Array<Record<string, unknown>> } }>(`/api/v2/sessions/${id}`, null);
    expect(after.body.wallet.creditCardTokens[0]).toMatchObject({ accountHolder: 'J Smith', expirationYear: 2031 });
    expect((await h.api.delete(entry, undefined, null)).status).toBe(403);
    expect((await h.api.patch(`/api/v2/sessions/${id}/wallet/${walletId}/bankaccounts/${token}`, { accountHolder: 'x' }, null)).status).toBe(404);
    const deletable = await newSession(h.api, { wallet: { id: walletId, allowDelete: true } });
    expect((await h.api.delete(`/api/v2/sessions/${deletable}/wallet/${walletId}/creditcards/${token}`, undefined, null)).status).toBe(202);
    const gone = await h.api.get<{ wallet: { creditCardTokens: unknown[] } }>(`/api/v2/sessions/${deletable}`, null);
    expect(gone.body.wallet.creditCardTokens).toEqual([]);
    // Bank accounts of the wallet: edited and removed the same way.
    const both = await newSession(h.api, { paymentTypes: [{ name: 'ach' }], wallet: { id: walletId, allowEdit: true, allowDelete: true } });
    const bank = await tokenFor(h.api, both, { type: 'ach', accountHolder: 'Jane Smith', accountNumber: '0000000016', routingNumber: '122105278', addToWallet: true });
    expect(bank).toMatch(/^[0-9A-Z]{12}$/);
    const bankEntry = `/api/v2/sessions/${both}/wallet/${walletId}/bankaccounts/${bank}`;
    expect((await h.api.patch(bankEntry, { accountHolder: 'Jane Q Smith' }, null)).status).toBe(202);
    const banks = await h.api.get<{ wallet: { bankAccountTokens: Array<Record<string, unknown>> } }>(`/api/v2/sessions/${both}`, null);
    expect(banks.body.wallet.bankAccountTokens).toEqual([expect.objectContaining({ token: bank, accountHolder: 'Jane Q Smith', routingNumber: '122105278', accountNumberLastFour: '0016' })]);
    expect((await h.api.delete(bankEntry, undefined, null)).status).toBe(202);
    expect((await h.api.delete(bankEntry, undefined, null)).status).toBe(404);
    // A wallet card pays a sale on a session of that wallet.
    const c2 = await tokenFor(h.api, deletable, card(VISA, { addToWallet: true }));
    const paid = await h.api.post(`/api/v2/sessions/${deletable}/sales`, sale('SO-W', { payment: { type: 'creditCard', token: c2, amount: SALE_TOTAL, capture: true } }), null);
    expect(paid.status).toBe(201);
  });
});

describe('Apple Pay merchant validation', () => {
  it('answers a simulated merchant session in the sandbox and a clear 400 in production', async () => {
    const id = await newSession(h.api);
    const body = { validationUrl: 'https://apple-pay-gateway.apple.com/paymentservices/startSession', applePayConfig: { merchantIdentifier: 'merchant.com.example', displayName: 'Shop', initiativeContext: 'shop.example' } };
    const res = await h.api.post<{ pspId: string; domainName: string }>(`/api/v2/sessions/${id}/applepay-validatemerchant`, body, null);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pspId: 'LANEWAYSANDBOX', domainName: 'shop.example' });
    await h.t.engine.account.update({ environment: 'production' });
    try {
      const prod = await h.api.post<Err>(`/api/v2/sessions/${id}/applepay-validatemerchant`, body, null);
      expect(prod.status).toBe(400);
      expect(prod.body.message).toMatch(/merchant identity certificate/);
      const token = await h.api.post<Err>(`/api/v2/sessions/${id}/tokens`, card(VISA), null);
      expect(token.status).toBe(503);
    } finally {
      await h.t.engine.account.update({ environment: 'sandbox' });
    }
  });
});

describe('settings', () => {
  it('stores the origins allowed to frame the payment page (credentials needed)', async () => {
    expect((await h.api.get('/api/ecommerce/settings', null)).status).toBe(401);
    const put = await h.api.put<{ allowedOrigins: string[] }>('/api/ecommerce/settings', { allowedOrigins: ['https://Shop.example', 'http://127.0.0.1:*'] });
    expect(put.body.allowedOrigins).toEqual(['https://shop.example', 'http://127.0.0.1:*']);
    expect(await h.t.engine.ecommerce.frameAncestors()).toEqual(['http://localhost:*', 'https://localhost:*', 'https://shop.example', 'http://127.0.0.1:*']);
    expect((await h.api.put('/api/ecommerce/settings', { allowedOrigins: ['javascript:alert(1)'] })).status).toBe(400);
    await h.api.put('/api/ecommerce/settings', { allowedOrigins: [] });
  });

  it("answers what the sandbox allows besides the setting and the script a shop's page loads (the Payment frame screen shows both)", async () => {
    await h.api.put('/api/ecommerce/settings', { allowedOrigins: ['https://shop.example'] });
    const view = await h.api.get<{ allowedOrigins: string[]; sandboxOrigins: string[]; clientScriptUrl: string }>('/api/ecommerce/settings');
    expect(view.body).toEqual({ allowedOrigins: ['https://shop.example'], sandboxOrigins: ['http://localhost:*', 'https://localhost:*'], clientScriptUrl: expect.stringMatching(/\/client\.js$/) as unknown });
    await h.api.put('/api/ecommerce/settings', { allowedOrigins: [] });
  });

  it('stores a site once however it is written: its host in lower case, the default port left out (https://Shop.Example:443 is https://shop.example)', async () => {
    type View = { allowedOrigins: string[] };
    const put = await h.api.put<View>('/api/ecommerce/settings', { allowedOrigins: ['https://shop.example', 'https://Shop.Example:443', 'http://SHOP.example:80', 'http://shop.example:8080', 'https://shop.example:08443', 'https://shop.example:*'] });
    expect(put.status).toBe(200);
    expect(put.body.allowedOrigins).toEqual(['https://shop.example', 'http://shop.example', 'http://shop.example:8080', 'https://shop.example:8443', 'https://shop.example:*']);
    // Added as the back office adds one (the list read, the site typed appended): merged, not listed twice.
    const again = await h.api.put<View>('/api/ecommerce/settings', { allowedOrigins: [...put.body.allowedOrigins, 'https://SHOP.EXAMPLE:443'] });
    expect(again.body.allowedOrigins).toEqual(put.body.allowedOrigins);
    expect((await h.api.get<View>('/api/ecommerce/settings')).body.allowedOrigins).toEqual(put.body.allowedOrigins);
    expect(await h.t.engine.ecommerce.frameAncestors()).toEqual(['http://localhost:*', 'https://localhost:*', ...put.body.allowedOrigins]);
    // A port no site can have is refused beside its entry (the screen shows it beside the field), the list kept.
    const bad = await h.api.put<{ code: string; details: Array<{ field: string; message: string }> }>('/api/ecommerce/settings', { allowedOrigins: ['https://shop.example', 'https://shop.example:99999'] });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_origin');
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'allowedOrigins.1', message: expect.stringMatching(/^allowedOrigins\.1 has port 99999, which no site has: a port is 1 to 65535/) as unknown })]);
    expect((await h.api.get<View>('/api/ecommerce/settings')).body.allowedOrigins).toEqual(put.body.allowedOrigins);
    await h.api.put('/api/ecommerce/settings', { allowedOrigins: [] });
  });

  it('words a site that is not an origin for the person who typed it, naming the entry', async () => {
    const before = (await h.api.get<{ allowedOrigins: string[] }>('/api/ecommerce/settings')).body.allowedOrigins;
    const res = await h.api.put<{ code: string; details: Array<{ field: string; message: string }> }>('/api/ecommerce/settings', { allowedOrigins: ['https://shop.example', 'https://shop.example/checkout'] });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'allowedOrigins.1', message: expect.stringMatching(/^allowedOrigins\.1 must be a site: .*no path/) as unknown })]);
    expect((await h.api.get<{ allowedOrigins: string[] }>('/api/ecommerce/settings')).body.allowedOrigins).toEqual(before);
  });
});
