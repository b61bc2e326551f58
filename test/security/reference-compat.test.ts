import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { card, VISA } from '../helpers/gateway';
import { ECOMMERCE_REFERENCE, referenceProblems } from '../helpers/reference-check';
import { card as frameCard, gatewayAuthorization, sale as shopSale, SALE_TOTAL } from '../ecommerce/helpers';

/**
 * Common operations answered as a client generated from the reference document parses them: each
 * answer is checked against the reference's own response schema for that operation and status
 * (fields the schema does not require may be null; its enums and formats are descriptions, see
 * reference-check.ts). Where the reference's schema contradicts its own examples, the examples win
 * and the field is named below (the real service answers as its examples do):
 * - a transaction's `credit_card` is the fund token string (schema: an object);
 * - `payment_from_bank_account` / `payment_from_credit_card` are booleans (schema: strings);
 * - a wallet card's `address` has the example's fields, not the request Address's required ones;
 * - whoami's `merchant_accounts[].acceptable_cards` is an array of brands (schema: a string, which
 *   its own description calls "an array of accepted credit cards").
 */
const h = useHarness({ api: true });
const EXAMPLES_WIN = [/\/credit_card$/, /\/payment_from_(bank_account|credit_card)$/, /\/credit_cards\/\d+\/address$/, /\/merchant_accounts\/\d+\/acceptable_cards$/];

/** Where the spec (which wins) says otherwise than the reference's schema: a response code's `code` is an integer (spec: "`code` (integer)"; the reference's example is 100 too). */
const SPEC_WINS: Record<string, RegExp> = { '/api/reference_data/v1/response_codes': /^\/\d+\/code$/ };

async function expectReferenceShape(method: string, referencePath: string, path: string, body?: unknown) {
  const res = await h.api.request(method, path, body === undefined ? {} : { body });
  const problems = referenceProblems(method, referencePath, res.status, res.body).filter((p) => {
    const pointer = p.split(' ')[0]!;
    if (SPEC_WINS[referencePath]?.test(pointer)) return false;
    return !EXAMPLES_WIN.some((re) => re.test(pointer)) && !/must be null|must match a schema in anyOf/.test(p);
  });
  expect(problems, `${method} ${path} ${res.status}`).toEqual([]);
  return res;
}

describe('answers as clients generated from the reference read them', () => {
  it('identity, customers, invoices and payments', async () => {
    await expectReferenceShape('GET', '/api/whoami', '/api/whoami');
    await expectReferenceShape('POST', '/api/imports/customer', '/api/imports/customer', { identifier: 'C-REF', name: 'Acme', email: 'a@acme.test', contacts: [{ email: 'ap@acme.test' }] });
    await expectReferenceShape('GET', '/api/exports/customer/{identifier}', '/api/exports/customer/C-REF');
    await expectReferenceShape('GET', '/api/exports/customers', '/api/exports/customers?watermark=0');
    await expectReferenceShape('POST', '/api/imports/invoice', '/api/imports/invoice', { number: 'I-REF', customer_identifier: 'C-REF', amount: 5000, line_items: [{ description: 'x', amount: 5000 }] });
    await expectReferenceShape('GET', '/api/exports/invoice/{number_or_id}', '/api/exports/invoice/I-REF');
    await expectReferenceShape('GET', '/api/exports/open_invoices', '/api/exports/open_invoices?watermark=0');
    await expectReferenceShape('POST', '/api/imports/payment', '/api/imports/payment', { identifier: 'P-REF', invoice_number: 'I-REF', amount_cents: 1200, customer_identifier: 'C-REF' });
    await expectReferenceShape('GET', '/api/exports/payment/{reference_or_token}', '/api/exports/payment/P-REF');
    await expectReferenceShape('GET', '/api/exports/payments', '/api/exports/payments?watermark=0');
  });

  it('order transactions, wallets, gift cards and reference data', async () => {
    const sale = await expectReferenceShape('POST', '/api/gateway/v1/orders/sale', '/api/gateway/v1/orders/sale', { amount_cents: 1000, order: { identifier: 'O-REF' }, credit_card: card(VISA) });
    const tx = (sale.body as { transaction: string }).transaction;
    await expectReferenceShape('POST', '/api/gateway/v1/orders/refund', '/api/gateway/v1/orders/refund', { transaction: tx, amount_cents: 100 });
    await expectReferenceShape('POST', '/api/gateway/v1/orders/refund', '/api/gateway/v1/orders/refund', { transaction: tx, amount_cents: 100_000 });
    await expectReferenceShape('GET', '/api/gateway/v1/transactions/{token}', `/api/gateway/v1/transactions/${tx}`);
    await expectReferenceShape('GET', '/api/exports/transaction/{token_or_reference}', `/api/exports/transaction/${tx}`);
    await expectReferenceShape('GET', '/api/exports/order/{identifier}', '/api/exports/order/O-REF');
    const wallet = await expectReferenceShape('POST', '/api/gateway/v1/wallets', '/api/gateway/v1/wallets', { customer: { identifier: 'C-REF' }, credit_card: card(VISA) });
    await expectReferenceShape('GET', '/api/gateway/v1/wallets/{wallet_token}', `/api/gateway/v1/wallets/${(wallet.body as { wallet_token: string }).wallet_token}`);
    const gift = { card_number: '4775419990420272', expiry_month: '12', expiry_year: '2049', pin: '1234' };
    await expectReferenceShape('POST', '/api/gateway/v1/gift_card', '/api/gateway/v1/gift_card', { ...gift, activated: 'true', load_amount_cents: 5000 });
    await expectReferenceShape('GET', '/api/reference_data/v1/response_codes', '/api/reference_data/v1/response_codes');
    await expectReferenceShape('GET', '/api/reference_data/v1/country_codes', '/api/reference_data/v1/country_codes');
    await expectReferenceShape('GET', '/api/reference_data/v1/bin/{bin}', '/api/reference_data/v1/bin/489528');
  });

  it('the ecommerce API (/api/v2) as its own reference document describes it', async () => {
    const check = async (method: string, referencePath: string, path: string, body?: unknown) => {
      const res = await h.api.request(method, `/api/v2${path}`, { auth: null, ...(body === undefined ? {} : { body }) });
      expect(referenceProblems(method, referencePath, res.status, res.body, ECOMMERCE_REFERENCE), `${method} ${path} ${res.status}`).toEqual([]);
      return res.body as Record<string, string>;
    };
    const { id } = await check('POST', '/sessions', '/sessions', { gatewayAuthorization, options: { paymentTypes: [{ name: 'creditCard' }, { name: 'giftCard' }] } });
    await check('POST', '/sessions', '/sessions', { gatewayAuthorization: { apiToken: 'x', apiKey: 'y' }, options: {} });
    await check('GET', '/sessions/{id}', `/sessions/${id}`);
    const { token } = await check('POST', '/sessions/{id}/tokens', `/sessions/${id}/tokens`, frameCard(VISA));
    await check('POST', '/sessions/{id}/tokens', `/sessions/${id}/tokens`, frameCard('4111111111111112'));
    await check('POST', '/wallets', '/wallets', { gatewayAuthorization });
    const { orderId } = await check('POST', '/sessions/{id}/sales', `/sessions/${id}/sales`, shopSale('SO-COMPAT', { payment: { type: 'creditCard', token, amount: SALE_TOTAL, capture: true } }));
    await check('PATCH', '/sessions/{id}/sales/{saleid}', `/sessions/${id}/sales/${orderId}`, { gatewayAuthorization });
    await check('POST', '/sessions/{id}/sales', `/sessions/${id}/sales`, { ...shopSale('SO-DECLINE'), lines: [{ number: 'X', description: 'x', price: 40.01, quantity: 1 }], payment: { type: 'creditCard', token, amount: 40.01, capture: true } });
  });
});
