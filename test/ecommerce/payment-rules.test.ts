import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { DISCOVER, MASTERCARD, VISA, VISA_DECLINE } from '../helpers/cards';
import { SALE_TOTAL, card, gatewayAuthorization, newSession, sale, tokenFor } from './helpers';

/**
 * The ecommerce API's money rules over HTTP: what a sale's payments may ask (no two entries that are
 * one payment, authorizations for cards only), what the transactions record (AVS and CVV answers),
 * the session's amount, and errors that name the request's own fields with a stable code.
 */
const h = useHarness({ api: true });
type Err = { message: string; code?: string; errors: Array<{ path: string; message: string }> };
type Payment = { transactionId: string; amount: number; avsResponseCode?: string };
type Tx = { token: string; action: string; amount_in_cents: number; avs_response: string | null; cvv_response: string | null; gateway_response: { avs_response: string | null; cvv_response: string | null } };

const ACH = { type: 'ach', accountHolder: 'Jane Smith', accountNumber: '0000000016', routingNumber: '122105278', accountType: 'checking', checkType: 'personal', currency: 'USD' };
const orderCount = async () => (await h.t.engine.orders.exportOrders({ after: 0, limit: 1000 })).length;

describe('payments of one sale request', () => {
  it('refuses two entries of payments[] that are the same payment (400 naming the second, nothing made or charged); a retry of the whole request answers the same transactions', async () => {
    const id = await newSession(h.api);
    const token = await tokenFor(h.api, id, card(VISA));
    const half = { type: 'creditCard', token, amount: 15.25, capture: true };
    const before = await orderCount();
    const twins = await h.api.post<Err>(`/api/v2/sessions/${id}/sales`, sale('DUP-1', { payments: [half, { ...half }] }), null);
    expect(twins.status).toBe(400);
    expect(twins.body.code).toBe('duplicate_payment');
    expect(twins.body.errors).toHaveLength(1);
    expect(twins.body.errors[0]!.path).toBe('/payments/1');
    expect(twins.body.message).toMatch(/one payment of the sum \(30\.5\)/);
    // Nothing was made: no order, so nothing charged and nothing finalized underpaid.
    expect(await orderCount()).toBe(before);

    // One payment of the sum is what the shop sends instead; two cards split the order, each charged.
    const other = await tokenFor(h.api, id, card(MASTERCARD));
    const body = sale('DUP-1', { payments: [half, { ...half, token: other }] });
    const split = await h.api.post<{ orderId: string; finalized: boolean; payments: Payment[] }>(`/api/v2/sessions/${id}/sales`, body, null);
    expect(split.status, split.text).toBe(201);
    expect(split.body.finalized).toBe(true);
    const ids = split.body.payments.map((p) => p.transactionId);
    expect(new Set(ids).size).toBe(2);
    const order = await h.t.engine.orders.view(split.body.orderId);
    expect(order!.transactions.map((t) => t.amount_in_cents)).toEqual([1525, 1525]);
    // The same request again is a retry: the same order and the same transactions, charged once.
    const again = await h.api.post<{ orderId: string; payments: Payment[] }>(`/api/v2/sessions/${id}/sales`, body, null);
    expect(again.status).toBe(201);
    expect(again.body.orderId).toBe(split.body.orderId);
    expect(again.body.payments.map((p) => p.transactionId)).toEqual(ids);
    expect((await h.t.engine.orders.view(split.body.orderId))!.transactions).toHaveLength(2);
  });

  it('refuses capture: false for a gift card or a bank account (400 naming capture, nothing charged); a card is authorized', async () => {
    await h.t.engine.giftCards.load({ card_number: '6035710000000001', pin: '1234', activated: true, load_amount_cents: 5000 });
    const id = await newSession(h.api, { paymentTypes: [{ name: 'creditCard' }, { name: 'giftCard' }, { name: 'ach' }] });
    const gift = await tokenFor(h.api, id, { type: 'giftCard', accountNumber: '6035710000000001', pin: '1234' });
    const before = await orderCount();
    const one = await h.api.post<Err>(`/api/v2/sessions/${id}/sales`, sale('AUTH-1', { payment: { type: 'giftCard', token: gift, amount: SALE_TOTAL, capture: false } }), null);
    expect(one.status).toBe(400);
    expect(one.body.code).toBe('authorization_unsupported');
    expect(one.body.errors[0]!.path).toBe('/payment/capture');
    expect(await orderCount()).toBe(before);
    expect((await h.api.get<{ balance: number }>(`/api/v2/sessions/${id}/balance/${gift}`, null)).body.balance).toBe(50);

    const ach = await tokenFor(h.api, id, ACH);
    const created = await h.api.post<{ orderId: string }>(`/api/v2/sessions/${id}/sales`, sale('AUTH-2'), null);
    const path = `/api/v2/sessions/${id}/sales/${created.body.orderId}/payments`;
    const byAch = await h.api.post<Err>(path, { gatewayAuthorization, type: 'ach', token: ach, amount: SALE_TOTAL, capture: false }, null);
    expect(byAch.status).toBe(400);
    expect(byAch.body.errors[0]!.path).toBe('/capture');
    expect((await h.t.engine.orders.view(created.body.orderId))!.transactions).toHaveLength(0);

    const c = await tokenFor(h.api, id, card(VISA));
    const byCard = await h.api.post<Payment>(path, { gatewayAuthorization, type: 'creditCard', token: c, amount: SALE_TOTAL, capture: false }, null);
    expect(byCard.status).toBe(201);
    expect((await h.t.engine.orders.view(created.body.orderId))!.transactions.map((t) => t.action)).toEqual(['authorize']);
  });
});

describe('what an ecommerce card transaction records', () => {
  it("stores the AVS answer for the sale's billing address and the CVV answer of the tokenized card, as a gateway sale of the same card does", async () => {
    const id = await newSession(h.api);
    // The sandbox's CVV 345 answers N; 234 Elm Street at 80801 answers AVS A.
    const token = await tokenFor(h.api, id, card(DISCOVER, { cardVerificationValue: '345' }));
    const billingAddress = { contactFirstName: 'Jane', contactLastName: 'Smith', address1: '234 Elm Street', city: 'Springfield', stateOrProvince: 'CO', postCode: '80801', country: 'US' };
    const res = await h.api.post<{ orderId: string; payment: Payment }>(`/api/v2/sessions/${id}/sales`, sale('AVS-1', { billingAddress, payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } }), null);
    expect(res.status, res.text).toBe(201);
    expect(res.body.payment.avsResponseCode).toBe('A');
    const exported = await h.api.get<{ transactions: Tx[] }>(`/api/exports/order/${res.body.orderId}`);
    expect(exported.status).toBe(200);
    const t = exported.body.transactions[0]!;
    expect([t.avs_response, t.cvv_response]).toEqual(['A', 'N']);
    expect([t.gateway_response.avs_response, t.gateway_response.cvv_response]).toEqual(['A', 'N']);
    const looked = await h.api.get<Tx>(`/api/gateway/v1/transaction/${res.body.payment.transactionId}`);
    expect([looked.body.avs_response, looked.body.cvv_response]).toEqual(['A', 'N']);

    // The gateway API's own sale of that card and address records the same.
    const direct = await h.api.post<{ transactions: Tx[] }>('/api/gateway/v1/orders/sale', {
      amount_cents: 500,
      credit_card: { name: 'Jane Smith', card_number: DISCOVER, expiry_month: '12', expiry_year: 2030, cvv: '345', address: { address_1: '234 Elm Street', city: 'Springfield', province: 'CO', postal_code: '80801', country: 'USA' } },
    });
    expect(direct.status, direct.text).toBe(200);
    expect([direct.body.transactions[0]!.avs_response, direct.body.transactions[0]!.cvv_response]).toEqual(['A', 'N']);
  });
});

describe("the session's amount", () => {
  it('is held to the sales\' money rule: the currency\'s decimals and more than zero (400 naming the option)', async () => {
    for (const amount of [30.505, 0]) {
      const res = await h.api.post<Err>('/api/v2/sessions', { gatewayAuthorization, options: { amount } }, null);
      expect(res.status, `${amount}: ${res.text}`).toBe(400);
      expect(res.body.errors[0]!.path).toBe('/options/amount');
    }
    expect((await h.api.post('/api/v2/sessions', { gatewayAuthorization, options: { amount: 30.5 } }, null)).status).toBe(201);
  });

  it("is in the account's currency, the one its sales are charged in: the frame is told it, another is refused", async () => {
    const made = await h.api.post<{ id: string }>('/api/v2/sessions', { gatewayAuthorization, options: { amount: 30.5 } }, null);
    expect((await h.api.get<{ currency?: string }>(`/api/v2/sessions/${made.body.id}`, null)).body.currency).toBe('USD');
    const euros = await h.api.post<Err>('/api/v2/sessions', { gatewayAuthorization, options: { amount: 30.5, currency: 'EUR' } }, null);
    expect([euros.status, euros.body.errors[0]!.path]).toEqual([400, '/options/currency']);
    expect((await h.api.post('/api/v2/sessions', { gatewayAuthorization, options: { currency: 'USD' } }, null)).status).toBe(201);
  });
});

describe('token errors in the ecommerce request\'s terms', () => {
  it('names the field a refused card or bank account got wrong, in one message, with a stable code', async () => {
    const id = await newSession(h.api, { paymentTypes: [{ name: 'creditCard' }, { name: 'ach' }] });
    const url = `/api/v2/sessions/${id}/tokens`;
    const { cardVerificationValue: _cvv, ...noCvv } = card(VISA);
    const missing = await h.api.post<Err>(url, noCvv, null);
    expect(missing.status).toBe(412);
    expect(missing.body.code).toBe('cvv_required');
    expect(missing.body.errors).toEqual([{ path: '/cardVerificationValue', message: expect.stringMatching(/^cardVerificationValue/) as unknown as string }]);
    expect(missing.body.message).not.toMatch(/should be a number|too short|should be 3 digits/);

    const long = await h.api.post<Err>(url, card('48952810000000060000'), null);
    expect(long.status).toBe(412);
    expect(long.body.errors[0]!.path).toBe('/accountNumber');
    // The request's field names, not the wallets API's (credit_card.card_number).
    expect([long.body.message, ...long.body.errors.map((e) => e.message)].join(' ')).not.toMatch(/credit_card|card_number/);

    const routing = await h.api.post<Err>(url, { ...ACH, routingNumber: '122105279' }, null);
    expect(routing.status).toBe(412);
    expect(routing.body.errors[0]!.path).toBe('/routingNumber');
    expect([routing.body.message, ...routing.body.errors.map((e) => e.message)].join(' ')).not.toMatch(/bank_account|routing_number/);

    await h.t.engine.giftCards.load({ card_number: '6035710000000001', pin: '1234', activated: true, load_amount_cents: 1000 });
    const gifts = await newSession(h.api, { paymentTypes: [{ name: 'giftCard' }] });
    const wrongPin = await h.api.post<Err>(`/api/v2/sessions/${gifts}/tokens`, { type: 'giftCard', accountNumber: '6035710000000001', pin: '9999' }, null);
    expect(wrongPin.status).toBe(412);
    expect([wrongPin.body.code, wrongPin.body.errors[0]!.path]).toEqual(['gift_card_declined', '/accountNumber']);

    const declining = await h.api.post<Err>(url, card(VISA_DECLINE), null);
    expect(declining.status).toBe(412);
    expect(declining.body.code).toBe('payment_method_verification_failed');
    expect(declining.body.message).toMatch(/verification failed/i);
  });
});

describe('gift card numbers tried in the payment frame', () => {
  it('answers an unknown number, a wrong PIN and a card not activated alike, and stops a session after 10 misses', async () => {
    await h.t.engine.giftCards.load({ card_number: '6035710000000019', pin: '4321', activated: true, load_amount_cents: 2500 });
    await h.t.engine.giftCards.load({ card_number: '6035710000000027', pin: '4321', activated: false, load_amount_cents: 2500 });
    const session = await newSession(h.api, { paymentTypes: [{ name: 'giftCard' }] });
    const token = (accountNumber: string, pin: string) => h.api.post<Err>(`/api/v2/sessions/${session}/tokens`, { type: 'giftCard', accountNumber, pin }, null);
    const answers = [await token('6035710000009999', '4321'), await token('6035710000000019', '0000'), await token('6035710000000027', '4321')];
    // Nothing in the answer tells a card that exists from one that does not.
    expect(new Set(answers.map((a) => JSON.stringify([a.status, a.body])))).toHaveLength(1);
    expect([answers[0]!.status, answers[0]!.body.code]).toEqual([412, 'gift_card_declined']);
    for (let i = 3; i < 10; i++) expect((await token(`60357100000${String(i).padStart(5, '0')}`, '4321')).body.code).toBe('gift_card_declined');
    // The eleventh try on this session is refused whatever it names, the right card and PIN too.
    const stopped = await token('6035710000000019', '4321');
    expect([stopped.status, stopped.body.code]).toEqual([412, 'gift_card_tries_exceeded']);
    // Another session takes the card.
    const next = await newSession(h.api, { paymentTypes: [{ name: 'giftCard' }] });
    const ok = await h.api.post<{ token: string }>(`/api/v2/sessions/${next}/tokens`, { type: 'giftCard', accountNumber: '6035710000000019', pin: '4321' }, null);
    expect(ok.status).toBe(201);
  });
});

