import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { card, DISCOVER, MASTERCARD, op, VISA, type TxBody } from '../helpers/gateway';
import { card as ecommerceCard, gatewayAuthorization, newSession, sale, SALE_TOTAL, tokenFor } from '../ecommerce/helpers';

/**
 * Money moves fired at once, over real HTTP: the engine must never approve more than there is
 * (refunds past the sale, a second capture, a gift card spent twice), and must refuse amounts that
 * are not a positive whole number of cents.
 */
const h = useHarness({ api: true });
const approved = (results: Array<{ body: TxBody }>) => results.filter((r) => r.body.success);
const sumOf = (results: Array<{ body: TxBody }>) => approved(results).reduce((s, r) => s + (r.body.transactions[0]?.amount_in_cents ?? 0), 0);

describe('concurrent money moves', () => {
  it('five refunds of 600 fired at once on a sale of 1000: one is approved', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 1000, credit_card: card(VISA) });
    expect(sale.body.success).toBe(true);
    const results = await Promise.all(Array.from({ length: 5 }, () => op(h.api, 'refund', { transaction: sale.body.transaction, amount_cents: 600 })));
    expect(approved(results)).toHaveLength(1);
    const all = await Promise.all(Array.from({ length: 4 }, () => op(h.api, 'refund', { transaction: sale.body.transaction })));
    expect(sumOf(all)).toBe(400);
  });

  it('three captures of one authorization fired at once: one is approved', async () => {
    const auth = await op(h.api, 'auth', { amount_cents: 2500, credit_card: card(VISA) });
    expect(auth.body.success).toBe(true);
    const results = await Promise.all(Array.from({ length: 3 }, () => op(h.api, 'capture', { transaction: auth.body.transaction, amount_cents: 2500 })));
    expect(approved(results)).toHaveLength(1);
  });

  it('a void and a refund of the same sale fired at once: never both', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 1500, credit_card: card(VISA) });
    const [voided, refunded] = await Promise.all([op(h.api, 'void', { transaction: sale.body.transaction }), op(h.api, 'refund', { transaction: sale.body.transaction })]);
    expect([voided.body.success, refunded.body.success].filter(Boolean)).toHaveLength(1);
  });

  it('a gift card of 5000 paying four sales of 3000 at once pays at most 5000', async () => {
    const GC = { card_number: '4775419990420272', expiry_month: '12', expiry_year: '2049', pin: '1234' };
    const loaded = await h.api.post<{ token: string }>('/api/gateway/v1/gift_card', { ...GC, activated: 'true', load_amount_cents: 5000 });
    expect(loaded.status).toBeLessThan(300);
    const results = await Promise.all(Array.from({ length: 4 }, () => op(h.api, 'sale', { amount_cents: 3000, gift_card: GC })));
    expect(sumOf(results)).toBeLessThanOrEqual(5000);
    const read = await h.api.post<{ balance: number }>('/api/gateway/v1/gift_card/read', GC);
    expect(read.body.balance).toBe(5000 - sumOf(results));
    expect(read.body.balance).toBeGreaterThanOrEqual(0);
  });
});

describe('captures and refunds within what was authorized and captured', () => {
  it('refuses a capture above the authorization and a refund above a partial capture', async () => {
    const auth = await op(h.api, 'auth', { amount_cents: 1000, credit_card: card(VISA) });
    expect((await op<{ success: boolean }>(h.api, 'capture', { transaction: auth.body.transaction, amount_cents: 1001 })).body.success).toBe(false);
    const captured = await op(h.api, 'capture', { transaction: auth.body.transaction, amount_cents: 600 });
    expect(captured.body.success).toBe(true);
    const capture = captured.body.transaction;
    expect((await op<{ success: boolean }>(h.api, 'refund', { transaction: capture, amount_cents: 601 })).body.success).toBe(false);
    const results = await Promise.all([1, 2, 3].map(() => op(h.api, 'refund', { transaction: capture, amount_cents: 400 })));
    expect(sumOf(results)).toBe(400);
  });
});

describe('amounts that are not money', () => {
  it('refuses a refund above what was sold, and negative, fractional, zero and overflowing amounts', async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 1000, credit_card: card(VISA) });
    const over = await op<{ success: boolean }>(h.api, 'refund', { transaction: sale.body.transaction, amount_cents: 1001 });
    expect(over.body.success).toBe(false);
    // Refused as bad input (400), or as the reference refuses a gateway operation: 500 {success: false, errors}.
    const refused = (res: { status: number; body: { success?: boolean; errors?: string[] } }) =>
      res.status === 400 || (res.status === 500 && res.body.success === false && Array.isArray(res.body.errors));
    for (const amount of [-100, 0, 10.5, 1e15, '"1e3"', '"-5"', '"NaN"', '9007199254740993', '[]', '{}']) {
      const refund = await h.api.request<{ success?: boolean; errors?: string[] }>('POST', '/api/gateway/v1/orders/refund', { raw: `{"transaction":"${sale.body.transaction}","amount_cents":${amount}}` });
      expect(refused(refund), `refund ${amount}`).toBe(true);
      const charge = await h.api.request<{ success?: boolean; errors?: string[] }>('POST', '/api/gateway/v1/orders/sale', { raw: `{"credit_card":${JSON.stringify(card(VISA))},"amount_cents":${amount}}` });
      expect(refused(charge), `sale ${amount}`).toBe(true);
    }
    const left = await op(h.api, 'refund', { transaction: sale.body.transaction });
    expect(left.body.transactions[0]!.amount_in_cents).toBe(1000);
  });
});

describe('concurrent ecommerce payments', () => {
  it('three card payments of the whole sale fired at once on one sale: one is charged, the others refused', async () => {
    const id = await newSession(h.api, { amount: SALE_TOTAL });
    const created = await h.api.post<{ orderId: string }>(`/api/v2/sessions/${id}/sales`, sale('SO-RACE'), null);
    expect(created.status).toBe(201);
    const path = `/api/v2/sessions/${id}/sales/${created.body.orderId}/payments`;
    const tokens = [await tokenFor(h.api, id, ecommerceCard(VISA)), await tokenFor(h.api, id, ecommerceCard(MASTERCARD)), await tokenFor(h.api, id, ecommerceCard(DISCOVER))];
    const answers = await Promise.all(tokens.map((token) => h.api.post(path, { gatewayAuthorization, type: 'creditCard', token, amount: SALE_TOTAL, capture: true }, null)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400]);
    const order = await h.t.engine.orders.view(created.body.orderId);
    expect(order!.transactions.filter((t) => t.state === 'completed').reduce((s, t) => s + t.amount_in_cents, 0)).toBe(SALE_TOTAL * 100);
  });
});
