import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';

/** A refused request says what is wrong in words a person at the back office's forms reads, not the validator's. */
const h = useHarness({ api: true });
type Refusal = { error: string; code: string; errors?: unknown; details?: Array<{ field: string; message: string }> };

describe('validation messages in words', () => {
  it('names an empty field, a length, a bound and a type plainly', async () => {
    const empty = await h.api.post<Refusal>('/api/imports/customer', { identifier: '', name: 'Nobody' });
    expect(empty.status).toBeGreaterThanOrEqual(400);
    expect(empty.body.error).toMatch(/^identifier must not be empty/);
    expect(empty.body.error).not.toMatch(/NOT have fewer/);
    const tooLong = await h.api.post<Refusal>('/api/imports/customer', { identifier: 'X'.repeat(300), name: 'Long' });
    expect(tooLong.body.error).toMatch(/identifier must be at most \d+ characters long/);
    const notWhole = await h.api.post<Refusal>('/api/gateway/v1/orders/sale', { amount_cents: { a: 1 }, credit_card: 'CCNOPE' });
    expect(JSON.stringify(notWhole.body)).not.toMatch(/must be integer|must be string/);
    const limit = await h.api.get<Refusal>('/api/exports/customers?limit=0');
    expect(limit.status).toBe(400);
    expect(limit.body.error).toMatch(/limit must be 1 or more/);
  });

  it('says what a field that takes several forms expects, not each form it failed ("must be null")', async () => {
    // An amount taken as an integer or its digits, or not sent (null).
    const cents = await h.api.post<Refusal>('/api/imports/order', { identifier: 'SO-W1', amount_cents: 'abc', order_items: [{ identifier: 'I1', amount_cents: 12.5 }] });
    expect(cents.body.details?.map((d) => d.message)).toEqual([
      'amount_cents must be a whole number of cents (at most 11 digits)',
      'order_items.0.amount_cents must be a whole number of cents (at most 11 digits)',
    ]);
    // An object that failed inside: only what is wrong inside it, not "credit_card must be text" or "must be null".
    const month = await h.api.post<Refusal>('/api/gateway/v1/wallets', { credit_card: { name: 'A', card_number: '4895281000000006', expiry_month: 'Dec', expiry_year: 2030 } });
    expect(month.body.details?.map((d) => d.message)).toEqual(['credit_card.expiry_month must be a month number from 1 to 12']);
    // A choice of words: its words, not "must be equal to constant".
    const type = await h.api.get<Refusal>('/api/gateway/v1/wallets/search?type=phone&locator=x');
    expect(type.body.error).toBe('type must be one of email, customer, fund, vault');
    expect(JSON.stringify([cents.body, month.body, type.body])).not.toMatch(/must be null|equal to constant|must match pattern/);
  });
});
