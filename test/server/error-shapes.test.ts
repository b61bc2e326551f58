import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { card, startGateway, VISA, type Harness } from '../helpers/gateway';
import { GATEWAY_ERROR_HEADER, readGatewayErrorHeader } from '../../src/shared/error-header';

// The reference's own error shapes, chosen per route (RouteDef.errorShape, src/server/errors.ts):
// the exact text of each body, key order included, since clients print every key they find.
let h: Harness;
beforeEach(async () => {
  h = await startGateway();
});
afterEach(async () => {
  await h.close();
});

const text = (body: unknown) => JSON.stringify(body);

describe('error shapes per route', () => {
  it('a wallet route answers its handler\'s 412 in the wallet shape, and a request failing its schema too', async () => {
    const missing = await h.api.get('/api/gateway/v1/wallets/NOPE');
    expect(missing.status).toBe(412);
    expect(text(missing.body)).toBe(text({ wallet_token: null, fund_token: null, wallets: { error: 'wallet_not_found' }, error: (missing.body as { error: string }).error, code: 'wallet_not_found' }));

    // A client of the reference reads `wallets.error` of every wallet 412, a type error in the request included.
    const message = 'credit_card.expiry_month must be a month number from 1 to 12';
    const walletShape = (status: number, body: unknown) => {
      expect(status).toBe(412);
      expect(text(body)).toBe(
        text({ wallet_token: null, fund_token: null, wallets: { error: 'validation_failed' }, error: message, code: 'validation_failed', details: [{ field: 'credit_card.expiry_month', code: 'type', message }] }),
      );
    };
    const dec = await h.api.post('/api/gateway/v1/wallets', { credit_card: card(VISA, { expiry_month: 'Dec' }) });
    walletShape(dec.status, dec.body);
    const wallet = await h.api.post<{ wallet_token: string }>('/api/gateway/v1/wallets', {});
    const addDec = await h.api.post(`/api/gateway/v1/wallets/${wallet.body.wallet_token}/methods`, { credit_card: card(VISA, { expiry_month: 'Dec' }) });
    walletShape(addDec.status, addDec.body);
    const longToken = await h.api.get(`/api/gateway/v1/wallets/${'W'.repeat(41)}`);
    expect(longToken.status).toBe(412);
    expect(Object.keys(longToken.body as object)).toEqual(['wallet_token', 'fund_token', 'wallets', 'error', 'code', 'details']);
    expect(longToken.body).toMatchObject({ wallets: { error: 'validation_failed' }, code: 'validation_failed' });
    const contact = await h.api.post('/api/gateway/v1/wallets', { contact: 5 });
    expect(contact.status).toBe(412);
    expect(contact.body).toMatchObject({ wallet_token: null, fund_token: null, wallets: { error: 'validation_failed' } });
  });

  it('a gateway operation answers a request failing its schema as every other operation error: 500, success false, errors, response_code 999', async () => {
    const operationError = text({ success: false, errors: ['validation_failed'], response_code: 999 });
    const sale = (extra: Record<string, unknown>) => h.api.post('/api/gateway/v1/orders/sale', { amount_cents: 500, order: 'SO-1', credit_card: card(), ...extra });
    for (const bad of [{ amount_cents: 'abc' }, { amount_cents: { cents: 5 } }, { sec_code: 'XYZ' }, { industry: 'bazaar' }]) {
      const res = await sale(bad);
      expect([res.status, text(res.body)], JSON.stringify(bad)).toEqual([500, operationError]);
    }
    for (const action of ['verify', 'auth', 'capture', 'refund', 'void', 'credit']) {
      const res = await h.api.post(`/api/gateway/v1/orders/${action}`, { amount_cents: 'abc', transaction: 'NOPE' });
      expect([res.status, text(res.body)], action).toEqual([500, operationError]);
    }
    const terminal = await h.api.post('/api/gateway/v1/terminal', { laneid: '1', command: 'SelfDestruct' });
    expect([terminal.status, text(terminal.body)]).toEqual([500, operationError]);
    const read = await h.api.post('/api/gateway/v1/gift_card/read', { pin: '1234' });
    expect([read.status, text(read.body)]).toEqual([500, operationError]);
    const load = await h.api.post('/api/gateway/v1/gift_card', { card_number: '6000000000001', load_amount_cents: 'lots' });
    expect([load.status, text(load.body)]).toEqual([500, operationError]);
    const unparsable = await h.api.request('POST', '/api/gateway/v1/orders/sale', { raw: '{"amount_cents": 5' });
    expect([unparsable.status, text(unparsable.body)]).toEqual([500, text({ success: false, errors: ['invalid_json'], response_code: 999 })]);
  });

  it('a gateway operation error carries the engine\'s words in a header of ours, its body the reference\'s exactly', async () => {
    const words = (res: { headers: Headers }) => readGatewayErrorHeader(res.headers.get(GATEWAY_ERROR_HEADER));
    await h.api.post('/api/gateway/v1/gift_card', { card_number: '6277000012345678', pin: '2468', activated: 'true', load_amount_cents: 1000 });
    const wrongPin = await h.api.post('/api/gateway/v1/gift_card', { card_number: '6277000012345678', pin: '1111', load_amount_cents: 1000 });
    expect([wrongPin.status, text(wrongPin.body)]).toEqual([500, text({ success: false, errors: ['incorrect_pin'], response_code: 999 })]);
    expect(words(wrongPin)).toEqual({ error: 'The PIN does not match this gift card', code: 'incorrect_pin' });
    // A request failing its schema: the field it names, as the common shape's details do.
    const lots = await h.api.post('/api/gateway/v1/gift_card', { card_number: '6277000012345678', load_amount_cents: 'lots' });
    expect(text(lots.body)).toBe(text({ success: false, errors: ['validation_failed'], response_code: 999 }));
    expect(words(lots)).toMatchObject({ code: 'validation_failed', details: [{ field: 'load_amount_cents' }] });
    // Plain ASCII on the wire, whatever the words hold; a card number in them masked as in any error.
    const raw = wrongPin.headers.get(GATEWAY_ERROR_HEADER)!;
    expect(raw).toMatch(/^[\x21-\x7e]+$/);
    const sale = await h.api.post('/api/gateway/v1/orders/sale', { amount_cents: 500, gift_card: '6277000012345678' });
    expect(JSON.stringify(words(sale) ?? {})).not.toContain('6277000012345678');
    // Other shapes carry no such header: their body has the words already.
    expect((await h.api.get('/api/gateway/v1/wallets/NOPE')).headers.get(GATEWAY_ERROR_HEADER)).toBeNull();
  });

  it('other routes keep answering a request failing its schema in the common shape', async () => {
    const view = await h.api.get(`/api/gateway/v1/transaction/${'T'.repeat(241)}`);
    expect(view.status).toBe(400);
    expect(Object.keys(view.body as object)).toEqual(['error', 'code', 'details']);
    const order = await h.api.post('/api/imports/order', { identifier: 'SO-2', amount_cents: 'abc' });
    expect(order.status).toBe(412);
    expect(order.body).toEqual({
      error: 'amount_cents must be a whole number of cents (at most 11 digits)',
      code: 'validation_failed',
      details: [{ field: 'amount_cents', code: 'type', message: 'amount_cents must be a whole number of cents (at most 11 digits)' }],
    });
    const method = await h.api.patch('/api/gateway/v1/wallets/NOPE/methods/NOPE', { credit_card: { expiry_month: 'Dec' } });
    expect(method.status).toBe(412);
    expect(Object.keys(method.body as object)).toEqual(['error', 'code', 'details']);
  });

  it('update_identifier answers its handler\'s 412 with `importer` last, and a malformed request without it', async () => {
    const missing = await h.api.post('/api/imports/customers/NOBODY/update_identifier', { new_identifier: 'SOMEONE' });
    expect(missing.status).toBe(412);
    expect(Object.keys(missing.body as object)).toEqual(['error', 'code', 'importer']);
    expect((missing.body as { importer: string }).importer).toBe('{:customer=>["not found."]}');

    const malformed = await h.api.post('/api/imports/customers/NOBODY/update_identifier', {});
    expect(malformed.status).toBe(412);
    expect(Object.keys(malformed.body as object)).toEqual(['error', 'code', 'details']);
  });

  it('the gateway shape holds on any route, and other routes keep the common one', async () => {
    const unknownOrder = await h.api.post('/api/gateway/v1/orders/capture', { amount_cents: 500, transaction: 'NOPE' });
    expect(unknownOrder.status).toBe(500);
    expect(Object.keys(unknownOrder.body as object)).toEqual(['success', 'errors', 'response_code']);

    const method = await h.api.patch('/api/gateway/v1/wallets/NOPE/methods/NOPE', { expiry_month: 1 });
    expect(method.status).toBe(412);
    expect(Object.keys(method.body as object)).not.toContain('wallets');
  });
});
