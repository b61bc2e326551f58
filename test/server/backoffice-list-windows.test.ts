import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import type { InvoicePage } from '../../src/shared/schemas/backoffice';

/**
 * The invoice list's windows over many rows: each window is one packed store read limited to its
 * width, and a sparse range (one customer among many) is covered by growing windows. Paging with
 * the cursor must give exactly the matching invoices, newest first, none twice, none left out.
 */
const h = useHarness({ api: true });
const COUNT = 2600;
const numberOf = (i: number) => `W${String(i).padStart(5, '0')}`;

async function all(qs: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let before: number | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const page: InvoicePage = (await h.api.get<InvoicePage>(`/api/backoffice/invoices?${qs}&limit=${limit}${before ? `&before=${before}` : ''}`)).body;
    seen.push(...page.items.map((i) => i.number));
    if (page.next === null) return seen;
    before = page.next;
  }
  throw new Error('paging did not end');
}

describe('back-office invoice list windows', () => {
  beforeAll(async () => {
    const inputs = [];
    for (let i = 0; i < COUNT; i++) {
      // Customer W-RARE has one invoice in 500; amounts cycle so one in seven is over $60.
      inputs.push({ number: numberOf(i), customer_identifier: i % 500 === 7 ? 'W-RARE' : `W-C${i % 40}`, amount: 1000 + (i % 7) * 1000, date: '2026-01-10', due_date: '2026-04-10' });
    }
    for (let from = 0; from < COUNT; from += 1000) await h.t.engine.receivables.importInvoices(inputs.slice(from, from + 1000));
  }, 60_000);

  it('pages a filter that keeps one row in seven through many windows', async () => {
    const expected = [...Array(COUNT).keys()].filter((i) => i % 7 === 6).reverse().map(numberOf);
    expect(await all('amount_min=6500', 50)).toEqual(expected);
  });

  it("finds a rare customer's invoices across the whole history", async () => {
    const expected = [...Array(COUNT).keys()].filter((i) => i % 500 === 7).reverse().map(numberOf);
    expect(await all('customer=W-RARE', 2)).toEqual(expected);
  });

  it('pages the whole list, newest first', async () => {
    const got = await all('status=all', 200);
    expect(got).toHaveLength(COUNT);
    expect(got[0]).toBe(numberOf(COUNT - 1));
    expect(new Set(got).size).toBe(COUNT);
  });
});
