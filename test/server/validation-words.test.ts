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
});
