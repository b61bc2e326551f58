import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type Harness } from '../helpers/gateway';

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
  it('a wallet route answers its handler\'s 412 in the wallet shape, and a malformed request in the common one', async () => {
    const missing = await h.api.get('/api/gateway/v1/wallets/NOPE');
    expect(missing.status).toBe(412);
    expect(text(missing.body)).toBe(text({ wallet_token: null, fund_token: null, wallets: { error: 'wallet_not_found' }, error: (missing.body as { error: string }).error, code: 'wallet_not_found' }));

    const malformed = await h.api.post('/api/gateway/v1/wallets', { contact: 5 });
    expect(malformed.status).toBe(412);
    expect(Object.keys(malformed.body as object)).toEqual(['error', 'code', 'details']);
    expect((malformed.body as { code: string }).code).toBe('validation_failed');
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
