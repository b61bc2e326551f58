import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse } from '../helpers/openapi-check';
import { TEST_KEY, TEST_TOKEN } from '../helpers/harness';
import { VISA, VISA_DECLINE, startGateway, type Harness } from '../helpers/gateway';

/**
 * Replays what ActiveMerchant's adapter for this API (lib/active_merchant/billing/gateways/versa_pay.rb)
 * sends in its remote test's flows, in shape: its headers, its JSON (amounts as digit strings or numbers,
 * `expiry_year` a number, a zip sent as a JSON number, alpha-3 countries, `contact.email` possibly
 * null), and reads the keys it reads, deriving success, message, authorization and error code the way
 * it does. Each expectation is what the reference's sandbox answered the adapter's remote test (and
 * its unit test's canned responses), except where docs/compatibility.md says the spec makes us differ.
 */
type Json = Record<string, unknown>;

let h: Harness;
beforeAll(async () => {
  h = await startGateway();
});
afterAll(async () => {
  await h.close();
});

const basic = (token: string, key: string) => `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;

async function commit(method: 'POST' | 'DELETE', path: string, post: unknown, options: { status?: number; auth?: string } = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${h.api.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: options.auth ?? basic(TEST_TOKEN, TEST_KEY) },
    body: JSON.stringify(post),
  });
  const body = (await res.json()) as Json;
  expect(checkResponse(method, path, res.status, body)).toEqual([]);
  // Approvals and declines are 200; operation errors 500 (the spec's status for them).
  expect(res.status).toBe(options.status ?? 200);
  return { status: res.status, body };
}

// --- the adapter's readings of a response ---
type Tx = { action?: string; amount_in_cents?: number; avs_response?: string; cvv_response?: string; gateway_error_code?: string; gateway_error_message?: string; gateway_response?: { avs_response?: string; errors?: Record<string, unknown[]> } };
const first = (r: Json) => (r.transactions as Tx[] | undefined)?.[0];
const success = (r: Json) => r.success === true;
const present = (v: unknown) => (v === undefined || v === null || v === '' ? undefined : String(v));
function message(r: Json): string {
  if (success(r)) return 'Succeeded';
  const t = first(r);
  const errors = t?.gateway_response?.errors;
  const gatewayErrors = errors
    ? Object.entries(errors)
        .flatMap(([field, details]) => details.map((d) => (typeof d === 'object' && d ? Object.entries(d).map(([k, v]) => `[${field} - ${k}: ${(v as string[]).join(', ')}]`).join('') : `[${field} - ${String(d)}]`)))
        .join(' , ')
    : '';
  const wallets = r.wallets as { error?: string } | undefined;
  const parts: Array<[string, string | undefined]> = [
    ['errors', present((r.errors as string[] | undefined)?.join(', '))],
    ['error', present(r.error ?? (Array.isArray(wallets) ? undefined : wallets?.error))],
    ['gateway_error_message', present(t?.gateway_error_message)],
    ['gateway_response_errors', present(gatewayErrors)],
  ];
  return parts.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`).join(' | ');
}
function authorization(r: Json): string {
  const wallets = r.wallets as Array<{ token?: string; credit_cards?: Array<{ token?: string }> }> | undefined;
  const list = Array.isArray(wallets) ? wallets : undefined;
  const parts = [r.transaction as string | undefined, (r.wallet_token as string | undefined) ?? list?.[0]?.token, (r.fund_token as string | undefined) ?? list?.[0]?.credit_cards?.[0]?.token];
  return parts.filter(Boolean).join('|');
}
function errorCode(r: Json): string | undefined {
  if (success(r)) return undefined;
  const parts: Array<[string, string | undefined]> = [
    ['gateway_error_code', present(first(r)?.gateway_error_code)],
    ['response_code', present(r.response_code)],
  ];
  return parts.filter(([, v]) => v !== undefined).map(([k, v]) => `${k}: ${v}`).join(' | ');
}
const avs = (r: Json) => first(r)?.avs_response ?? first(r)?.gateway_response?.avs_response;
const cvv = (r: Json) => first(r)?.cvv_response;

// --- the adapter's requests ---
const thisYear = 2026; // the test engine's clock: 2026-03-02
const address = { address1: '456 My Street', address2: 'Apt 1', company: 'Widgets Inc', city: 'Ottawa', state: 'ON', zip: 'K1C2N6' as string | number, phone: '(555)555-5555' };
type Address = typeof address;
type Card = { number: string; verification?: string | null; month?: number; year?: number };
const goodCard: Card = { number: VISA, verification: '123', month: 12, year: thisYear + 1 };
const matchCvvCard: Card = { ...goodCard, verification: '234' };
const declineCard: Card = { number: VISA_DECLINE, verification: '123', month: 9, year: thisYear + 1 };
const expiredCard: Card = { number: VISA, verification: '123', month: 9, year: thisYear - 1 };

function creditCard(c: Card, billing: Address | null) {
  return {
    name: 'Longbob Longsen',
    expiry_month: String(c.month ?? 12).padStart(2, '0'),
    expiry_year: c.year ?? thisYear + 1,
    card_number: c.number,
    cvv: c.verification ?? null,
    ...(billing ? { address: { address_1: billing.address1, city: billing.city, province: billing.state, postal_code: billing.zip, country: 'CAN' } } : {}),
  };
}
function order(money: number, email: string, billing: Address | null) {
  return {
    identifier: 'ABCDF',
    number: crypto.randomUUID(),
    date: '2026-03-02',
    draft: false,
    amount_cents: String(money),
    currency: 'USD',
    ...(billing
      ? {
          billing_name: billing.company,
          billing_address: billing.address1,
          billing_address2: billing.address2,
          billing_city: billing.city,
          billing_country: 'CAN',
          billing_email: email,
          billing_telephone: billing.phone,
          billing_postalcode: billing.zip,
          billing_state_province: billing.state,
        }
      : {}),
  };
}
function transact(money: number, c: Card, billing: Address | null = address, email = 'john.smith@test.com') {
  return { contact: { email }, amount_cents: String(money), currency: 'USD', order: order(money, email, billing), credit_card: creditCard(c, billing) };
}
const orders = (action: string) => `/api/gateway/v1/orders/${action}`;

describe('ActiveMerchant VersaPay adapter, replayed against the reference sandbox answers', () => {
  it('authorize, then capture all or part of it', async () => {
    const auth = await commit('POST', orders('auth'), transact(500, goodCard));
    expect(success(auth.body)).toBe(true);
    expect(message(auth.body)).toBe('Succeeded');
    expect(auth.body.order).toBe('ABCDF');
    expect(authorization(auth.body)).toBe(auth.body.transaction);
    expect(first(auth.body)?.action).toBe('authorize');
    expect(errorCode(auth.body)).toBeUndefined();
    expect(auth.body.response_code).toBe(100);
    const cap = await commit('POST', orders('capture'), { amount_cents: 500, transaction: auth.body.transaction });
    expect(message(cap.body)).toBe('Succeeded');
    expect(cap.body.order).toBe(auth.body.order);
    expect(first(cap.body)?.action).toBe('capture');
    expect(authorization(cap.body)).toBe(cap.body.transaction);

    const other = await commit('POST', orders('auth'), transact(500, goodCard));
    const partial = await commit('POST', orders('capture'), { amount_cents: 400, transaction: other.body.transaction });
    expect(message(partial.body)).toBe('Succeeded');
    expect(first(partial.body)).toMatchObject({ action: 'capture', amount_in_cents: 400 });
  });

  it('a declined card or a declining amount: the verify, 567.005 DECLINED, response code 999', async () => {
    for (const [action, money] of [
      ['auth', 500],
      ['auth', 501],
      ['sale', 500],
      ['sale', 501],
    ] as const) {
      const res = await commit('POST', orders(action), transact(money, declineCard));
      const label = `${action} ${money}`;
      expect(success(res.body), label).toBe(false);
      expect(message(res.body), label).toBe('gateway_error_message: DECLINED | gateway_response_errors: [gateway - DECLINED]');
      expect(errorCode(res.body), label).toBe('gateway_error_code: 567.005 | response_code: 999');
      expect(res.body.order, label).toBe('ABCDF');
      expect(authorization(res.body), label).toBe(res.body.transaction);
      // As the unit test's canned decline lists it: one transaction, the verify, for no money.
      expect(res.body.transactions, label).toHaveLength(1);
      expect(first(res.body), label).toMatchObject({
        action: 'verify',
        state: 'declined',
        amount_in_cents: 0,
        step_types: ['TransactionSteps::CardVerifyStep'],
        gateway_error_code: '567.005',
        gateway_error_message: 'DECLINED',
        gateway_authorization_response: '567.005: DECLINED',
        authorization_response: '200',
        credit_card_bin: '426428',
        credit_card_masked_number: 'XXXXXXXXXXXX4500',
        credit_card_brand: 'visa',
        gateway_response: { errors: { gateway: ['DECLINED'] }, gateway_status: 'failure', authorization_response: '567.005: DECLINED', error_code: '567.005', message: 'DECLINED' },
      });
    }
  });

  it('purchase; refund and void of it; credit', async () => {
    const sale = await commit('POST', orders('sale'), transact(500, goodCard));
    expect(message(sale.body)).toBe('Succeeded');
    expect(first(sale.body)?.action).toBe('sale');
    expect(authorization(sale.body)).toBe(sale.body.transaction);
    const refund = await commit('POST', orders('refund'), { amount_cents: 500, transaction: sale.body.transaction });
    expect(message(refund.body)).toBe('Succeeded');
    expect(refund.body.order).toBe('ABCDF');
    expect(first(refund.body)?.action).toBe('refund');
    const auth = await commit('POST', orders('auth'), transact(500, goodCard));
    const voided = await commit('POST', orders('void'), { transaction: auth.body.transaction });
    expect(message(voided.body)).toBe('Succeeded');
    expect(first(voided.body)?.action).toBe('void');
    expect(voided.body.order).toBe('ABCDF');
    const credit = await commit('POST', orders('credit'), transact(500, goodCard));
    expect(message(credit.body)).toBe('Succeeded');
    expect(first(credit.body)?.action).toBe('credit');
  });

  it('void or refund of an unknown transaction: order_not_found, response code 250, nothing else', async () => {
    for (const action of ['void', 'refund']) {
      const res = await commit('POST', orders(action), action === 'void' ? { transaction: '123456' } : { amount_cents: 500, transaction: '123456' }, { status: 500 });
      expect(res.body).toEqual({ success: false, errors: ['order_not_found'], response_code: 250 });
      expect(message(res.body)).toBe('errors: order_not_found');
      expect(errorCode(res.body)).toBe('response_code: 250');
    }
  });

  it('no billing address: fund_address_unspecified, response code 999', async () => {
    const res = await commit('POST', orders('sale'), transact(500, goodCard, null), { status: 500 });
    expect(res.body).toEqual({ success: false, errors: ['fund_address_unspecified'], response_code: 999 });
    expect(message(res.body)).toBe('errors: fund_address_unspecified');
    expect(errorCode(res.body)).toBe('response_code: 999');
  });

  it('a card past its expiry (purchase, credit): the vault has no token for it', async () => {
    for (const action of ['sale', 'credit']) {
      const res = await commit('POST', orders(action), transact(500, expiredCard), { status: 500 });
      expect(message(res.body), action).toBe('errors: Validation failed: Credit card gateway token not found');
      expect(errorCode(res.body), action).toBe('response_code: 999');
    }
  });

  it('verify answers AVS and CVV; AVS N (a zip sent as a JSON number) fails with Failed AVS Check only', async () => {
    const processed = await commit('POST', orders('verify'), transact(0, goodCard));
    expect(message(processed.body)).toBe('Succeeded');
    expect(processed.body.order).toBe('ABCDF');
    expect(authorization(processed.body)).toBe(processed.body.transaction);
    expect(first(processed.body)?.action).toBe('verify');
    expect(cvv(processed.body)).toBe('P');
    // The reference's sandbox answers D for this Ottawa address; the spec's table says Y for any zip it
    // does not list (docs/compatibility.md).
    expect(avs(processed.body)).toBe('Y');
    const match = await commit('POST', orders('verify'), transact(0, matchCvvCard));
    expect(message(match.body)).toBe('Succeeded');
    expect(cvv(match.body)).toBe('M');

    const elm = { ...address, address1: '234 Elm Street', zip: 80803 };
    const noMatch = await commit('POST', orders('verify'), transact(0, matchCvvCard, elm));
    expect(success(noMatch.body)).toBe(false);
    expect(message(noMatch.body)).toBe('gateway_response_errors: [gateway - Failed AVS Check]');
    expect(avs(noMatch.body)).toBe('N');
    expect(cvv(noMatch.body)).toBe('M');
  });

  it('a CVV that fails validation: the reference\'s sentence, for a purchase and for a wallet', async () => {
    const cases: Array<[string | null, string]> = [
      [null, "CVV can't be blank, CVV should be a number, CVV too short (minimum is 3 characters), CVV should be 3 digits"],
      ['', "CVV can't be blank, CVV should be a number, CVV too short (minimum is 3 characters), CVV should be 3 digits"],
      ['12a', 'CVV should be a number, CVV should be 3 digits'],
      ['12', 'CVV too short (minimum is 3 characters), CVV should be 3 digits'],
    ];
    for (const [verification, sentence] of cases) {
      const sale = await commit('POST', orders('sale'), transact(500, { ...goodCard, verification }), { status: 500 });
      expect(message(sale.body), String(verification)).toBe(`errors: Validation failed: ${sentence}`);
      expect(errorCode(sale.body)).toBe('response_code: 999');
      const store = await commit('POST', '/api/gateway/v1/wallets', { contact: { email: 'john.smith@test.com' }, credit_card: creditCard({ ...goodCard, verification }, address) }, { status: 412 });
      expect(store.body).toMatchObject({ wallet_token: null, fund_token: null, wallets: { error: `Validation failed: ${sentence}` } });
      expect(message(store.body), String(verification)).toBe(`error: Validation failed: ${sentence}`);
      expect(authorization(store.body)).toBe('');
    }
  });

  it('store, purchase with the stored token, unstore', async () => {
    const store = await commit('POST', '/api/gateway/v1/wallets', { contact: { email: 'john.smith@test.com' }, credit_card: creditCard(goodCard, address) });
    const wallets = store.body.wallets as Array<{ token: string; credit_cards: Array<{ token: string }> }>;
    expect(store.body.wallet_token).toBe(wallets[0]!.token);
    expect(store.body.fund_token).toBe(wallets[0]!.credit_cards[0]!.token);
    const token = authorization(store.body);
    expect(token).toBe(`${store.body.wallet_token}|${store.body.fund_token}`);
    const [walletToken, fundToken] = token.split('|');
    const { credit_card: _card, ...withToken } = transact(500, goodCard);
    const sale = await commit('POST', orders('sale'), { ...withToken, fund_token: fundToken });
    expect(message(sale.body)).toBe('Succeeded');
    expect(first(sale.body)?.action).toBe('sale');
    const unstore = await commit('DELETE', `/api/gateway/v1/wallets/${walletToken}/methods/${fundToken}`, {});
    expect(unstore.body).toEqual({ fund_token: fundToken });
    expect(authorization(unstore.body)).toBe(fundToken);
    const after = await commit('POST', orders('sale'), { ...withToken, fund_token: fundToken }, { status: 500 });
    expect(message(after.body)).toBe('errors: payment_method_inactive');
  });

  it('bad credentials: the reference sandbox\'s sentence', async () => {
    const res = await commit('POST', orders('auth'), transact(500, goodCard), { status: 401, auth: basic('bad_token', 'bad_key') });
    expect(res.body.error).toBe('Please log in or create an account to continue.');
    expect(message(res.body)).toBe('error: Please log in or create an account to continue.');
  });
});
