import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness, basicAuth, type ApiClient } from '../helpers/harness';
import { maskingStats } from '../../src/engine/security/card-data';

/**
 * Card-number masking reads every string of a request body, on the one thread that answers the
 * lanes. A body is held to its operation's sizes first (the body limit, then the schema's lengths
 * and counts), so a huge string is refused without being read for card numbers; what is kept is
 * still masked.
 */
const h = useHarness({ api: true });
let api: ApiClient;
beforeAll(() => {
  ({ api } = h);
});

const VISA = '4895281000000006';
const post = async (path: string, body: string, auth = basicAuth()) => {
  const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
};
/** Characters the masking read while `run` ran. */
const maskedDuring = async <T>(run: () => Promise<T>): Promise<{ result: T; read: number }> => {
  const before = maskingStats.characters;
  const result = await run();
  return { result, read: maskingStats.characters - before };
};

describe('request bodies are sized before they are masked', () => {
  it('refuses a comment over its 65,536 characters without reading it for card numbers', async () => {
    await api.post('/api/imports/customer', { identifier: 'C-BIG', name: 'Big' });
    const huge = '1 '.repeat(300_000);
    const { result, read } = await maskedDuring(() => post('/api/customers/C-BIG/comments', JSON.stringify({ comment: huge })));
    expect(result.status).toBe(412);
    expect(JSON.parse(result.text)).toMatchObject({ code: 'validation_failed', details: [{ field: 'comment', code: 'maxLength' }] });
    expect(read).toBeLessThan(huge.length);
  });

  it('refuses a huge unknown field name without reading it whole, and repeats only the start of it', async () => {
    const name = `${'1 '.repeat(200_000)}${VISA}`;
    const { result, read } = await maskedDuring(() => post('/api/customers/C-BIG/comments', JSON.stringify({ comment: 'hi', [name]: 1 })));
    expect(result.status).toBe(412);
    expect(JSON.parse(result.text)).toMatchObject({ code: 'validation_failed', details: [{ code: 'additionalProperties' }] });
    expect(result.text.length).toBeLessThan(2_000);
    expect(result.text).not.toContain(VISA);
    expect(read).toBeLessThan(name.length);
  });

  it("refuses a cashier's register body over 64 KB before reading it", async () => {
    const made = await api.post<{ link: string }>('/api/users', { email: 'bounds-cashier@x.test', role: 'cashier' });
    const { jwt } = (await api.post<{ jwt: string }>('/api/session/link', { link: made.body.link, password: 'Cashier-Password-123!' }, null)).body;
    const { result, read } = await maskedDuring(() => post('/api/pos/sales', JSON.stringify({ shift: 'S', notes: '1 '.repeat(2_500_000) }), `Bearer ${jwt}`));
    expect(result.status).toBe(413);
    expect(JSON.parse(result.text)).toMatchObject({ code: 'payload_too_large' });
    expect(read).toBeLessThan(1_000);
  });

  it('still masks a card number in a comment that fits, and refuses one in an identifier', async () => {
    const { result, read } = await maskedDuring(() => post('/api/customers/C-BIG/comments', JSON.stringify({ comment: `card ${VISA} on file` })));
    expect(result.status).toBe(201);
    expect(read).toBeGreaterThan(0);
    const stored = JSON.stringify((await api.get('/api/exports/comments?list=true')).body);
    expect(stored).toContain('card 489528******0006 on file');
    expect(stored).not.toContain(VISA);
    // Masked, the identifier holds `*`, which identifiers refuse: validated again after masking.
    const made = await post('/api/imports/customer', JSON.stringify({ identifier: VISA, name: 'Card as id' }));
    expect(made.status).toBe(412);
    expect(made.text).not.toContain(VISA);
  });
});
