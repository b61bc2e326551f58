import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse } from '../helpers/openapi-check';
import { TEST_KEY, TEST_TOKEN } from '../helpers/engine';
import { VISA, VISA_DECLINE, startGateway, type Harness } from './helpers';

/**
 * Replays what ActiveMerchant's adapter for this API (lib/active_merchant/billing/gateways/versa_pay.rb
 * and its unit and remote tests) sends, byte for byte in shape: its headers, its JSON (amounts as digit
 * strings, `expiry_year` a number, alpha-3 countries, `contact.email` possibly null), and reads the keys
 * it reads, deriving success, message, authorization and error code the way it does.
 */
type Json = Record<string, unknown>;

let h: Harness;
beforeAll(async () => {
  h = await startGateway();
});
afterAll(async () => {
  await h.close();
});

const authHeader = `Basic ${Buffer.from(`${TEST_TOKEN}:${TEST_KEY}`).toString('base64')}`;

async function commit(method: 'POST' | 'DELETE', path: string, post: unknown, operationError = false): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${h.api.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: authHeader },
    body: JSON.stringify(post),
  });
  const body = (await res.json()) as Json;
  expect(checkResponse(method, path, res.status, body)).toEqual([]);
  // The adapter parses bodies for 200..412 (approvals and declines are 200) and raises
  // ActiveMerchant::ResponseError on anything else: the spec makes operation errors 500.
  if (operationError) expect(res.status).toBe(500);
  else expect(res.status).toBe(200);
  return { status: res.status, body };
}

// --- the adapter's readings of a response ---
type Tx = { action?: string; avs_response?: string; cvv_response?: string; gateway_error_code?: string; gateway_error_message?: string; gateway_response?: { avs_response?: string; errors?: Record<string, unknown[]> } };
const first = (r: Json) => (r.transactions as Tx[] | undefined)?.[0];
const success = (r: Json) => r.success === true;
function message(r: Json): string {
  if (success(r)) return 'Succeeded';
  const t = first(r);
  const errors = t?.gateway_response?.errors;
  const gatewayErrors = errors
    ? Object.entries(errors)
        .flatMap(([field, details]) => details.map((d) => (typeof d === 'object' && d ? Object.entries(d).map(([k, v]) => `[${field} - ${k}: ${(v as string[]).join(', ')}]`).join('') : `[${field} - ${String(d)}]`)))
        .join(' , ')
    : '';
  const parts: Array<[string, string | undefined]> = [
    ['errors', (r.errors as string[] | undefined)?.join(', ') || undefined],
    ['gateway_error_message', t?.gateway_error_message || undefined],
    ['gateway_response_errors', gatewayErrors || undefined],
  ];
  return parts.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`).join(' | ');
}
function authorization(r: Json): string {
  const wallets = r.wallets as Array<{ token?: string; credit_cards?: Array<{ token?: string }> }> | undefined;
  const parts = [r.transaction as string | undefined, (r.wallet_token as string | undefined) ?? wallets?.[0]?.token, (r.fund_token as string | undefined) ?? wallets?.[0]?.credit_cards?.[0]?.token];
  return parts.filter(Boolean).join('|');
}
const errorCode = (r: Json) => (success(r) ? undefined : first(r)?.gateway_error_code);
const avs = (r: Json) => first(r)?.avs_response ?? first(r)?.gateway_response?.avs_response;
const cvv = (r: Json) => first(r)?.cvv_response;

// --- the adapter's requests ---
const year = 2030;
const address = { address1: '456 My Street', address2: 'Apt 1', company: 'Widgets Inc', city: 'Ottawa', state: 'ON', zip: 'K1C2N6', phone: '(555)555-5555' };
function creditCard(number: string, verification = '123', street = address.address1, zip = address.zip) {
  return { name: 'Longbob Longsen', expiry_month: '12', expiry_year: year, card_number: number, cvv: verification, address: { address_1: street, city: address.city, province: address.state, postal_code: zip, country: 'CAN' } };
}
function order(orderId: string, money: number, email: string | null) {
  return {
    identifier: orderId,
    number: '25e0293a-d1d2-4ba9-ad5e-b322a4fb2e8c',
    date: '2026-03-02',
    draft: false,
    amount_cents: String(money),
    currency: 'USD',
    billing_name: address.company,
    billing_address: address.address1,
    billing_address2: address.address2,
    billing_city: address.city,
    billing_country: 'CAN',
    ...(email ? { billing_email: email } : {}),
    billing_telephone: address.phone,
    billing_postalcode: address.zip,
    billing_state_province: address.state,
  };
}
function transact(money: number, payment: Json, email: string | null = 'john.smith@test.com', orderId = 'ABCDF') {
  return { contact: { email }, amount_cents: String(money), currency: 'USD', order: order(orderId, money, email), ...payment };
}

describe('ActiveMerchant VersaPay adapter, replayed', () => {
  it('authorize then capture', async () => {
    const auth = await commit('POST', '/api/gateway/v1/orders/auth', transact(500, { credit_card: creditCard(VISA) }));
    expect(success(auth.body)).toBe(true);
    expect(message(auth.body)).toBe('Succeeded');
    expect(auth.body.order).toBe('ABCDF');
    expect(first(auth.body)?.action).toBe('authorize');
    expect(errorCode(auth.body)).toBeUndefined();
    const cap = await commit('POST', '/api/gateway/v1/orders/capture', { amount_cents: 500, transaction: auth.body.transaction });
    expect(success(cap.body)).toBe(true);
    expect(cap.body.order).toBe(auth.body.order);
    expect(first(cap.body)?.action).toBe('capture');
    expect(authorization(cap.body)).toBe(cap.body.transaction);
  });

  it('purchase, refund, void and credit', async () => {
    const sale = await commit('POST', '/api/gateway/v1/orders/sale', transact(500, { credit_card: creditCard(VISA) }, null));
    expect(success(sale.body)).toBe(true);
    expect(first(sale.body)?.action).toBe('sale');
    const refund = await commit('POST', '/api/gateway/v1/orders/refund', { amount_cents: 100, transaction: sale.body.transaction });
    expect(success(refund.body)).toBe(true);
    const other = await commit('POST', '/api/gateway/v1/orders/sale', transact(700, { credit_card: creditCard(VISA) }));
    const voided = await commit('POST', '/api/gateway/v1/orders/void', { transaction: other.body.transaction });
    expect(success(voided.body)).toBe(true);
    expect(first(voided.body)?.action).toBe('void');
    const credit = await commit('POST', '/api/gateway/v1/orders/credit', transact(300, { credit_card: creditCard(VISA) }));
    expect(success(credit.body)).toBe(true);
    expect(first(credit.body)?.action).toBe('credit');
  });

  it('declined card: failure, the verify transaction, its error code and message', async () => {
    for (const action of ['auth', 'sale']) {
      const res = await commit('POST', `/api/gateway/v1/orders/${action}`, transact(500, { credit_card: creditCard(VISA_DECLINE) }));
      expect(success(res.body)).toBe(false);
      expect(res.body.order).toBe('ABCDF');
      expect(authorization(res.body)).toBe(res.body.transaction);
      expect(first(res.body)?.action).toBe('verify');
      expect(message(res.body)).toBe('gateway_error_message: DECLINED | gateway_response_errors: [gateway - DECLINED]');
      expect(errorCode(res.body)).toBe('do_not_honor');
      expect(Number.isInteger(res.body.response_code)).toBe(true);
    }
  });

  it('verify returns AVS and CVV results; AVS N fails', async () => {
    const processed = await commit('POST', '/api/gateway/v1/orders/verify', transact(0, { credit_card: creditCard(VISA, '123') }));
    expect(success(processed.body)).toBe(true);
    expect(first(processed.body)?.action).toBe('verify');
    expect(cvv(processed.body)).toBe('P');
    expect(avs(processed.body)).toBe('Y');
    const match = await commit('POST', '/api/gateway/v1/orders/verify', transact(0, { credit_card: creditCard(VISA, '234') }));
    expect(cvv(match.body)).toBe('M');
    const noMatch = await commit('POST', '/api/gateway/v1/orders/verify', transact(0, { credit_card: creditCard(VISA, '234', '234 Elm Street', '80803') }));
    expect(success(noMatch.body)).toBe(false);
    expect(avs(noMatch.body)).toBe('N');
    expect(cvv(noMatch.body)).toBe('M');
    expect(message(noMatch.body)).toContain('gateway_response_errors: [gateway - Failed AVS Check]');
  });

  it('store, purchase with the stored token, unstore', async () => {
    const store = await commit('POST', '/api/gateway/v1/wallets', { contact: { email: 'john.smith@test.com' }, credit_card: creditCard(VISA) });
    const wallets = store.body.wallets as Array<{ token: string; credit_cards: Array<{ token: string }> }>;
    expect(store.body.wallet_token).toBe(wallets[0]!.token);
    expect(store.body.fund_token).toBe(wallets[0]!.credit_cards[0]!.token);
    const token = authorization(store.body);
    expect(token).toBe(`${store.body.wallet_token}|${store.body.fund_token}`);
    const [walletToken, fundToken] = token.split('|');
    const sale = await commit('POST', '/api/gateway/v1/orders/sale', transact(500, { fund_token: fundToken }));
    expect(success(sale.body)).toBe(true);
    const unstore = await commit('DELETE', `/api/gateway/v1/wallets/${walletToken}/methods/${fundToken}`, {});
    expect(unstore.body).toEqual({ fund_token: fundToken });
    const after = await commit('POST', '/api/gateway/v1/orders/sale', transact(500, { fund_token: fundToken }), true);
    expect(success(after.body)).toBe(false);
    expect(message(after.body)).toBe('errors: payment_method_inactive');
  });
});
