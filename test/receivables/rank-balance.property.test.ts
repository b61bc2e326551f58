import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { customerListItem, primaryCurrency } from '../../src/engine/receivables/customer-view';
import { owingIn } from '../../src/engine/receivables/ledger';
import type { CustomerDoc, OpenItem } from '../../src/engine/receivables/types';

/**
 * The customer list sorts by a rank written with every customer write; the rank sums the open
 * items without aging them by date. Whatever the ledger and the day, it must be the balance the
 * list shows, or the list by balance would be out of order.
 */
describe('the customer rank balance', () => {
  const day = fc.integer({ min: 0, max: 3000 }).map((n) => new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
  const item = fc.tuple(day, fc.option(day, { nil: '' }), fc.integer({ min: -50_000, max: 50_000 }).filter((n) => n !== 0), fc.constantFrom('usd', 'cad', 'eur'));

  it('is the list balance (current plus past due) in the main currency, any day', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), item, { maxKeys: 40 }), day, fc.constantFrom('usd', 'cad'), (open, today, account) => {
        const currencies: Record<string, number> = {};
        for (const i of Object.values(open)) currencies[i[3]] = (currencies[i[3]] ?? 0) + 1;
        const doc = { id: 'c1', watermark: 1, identifier: 'C1', parent: '', data: { identifier: 'C1', name: 'C', contacts: [], ledger: { open: open as Record<string, OpenItem>, unapplied: { usd: 700 }, currencies, divisions: {} } } } as unknown as CustomerDoc;
        const listed = customerListItem(doc, { today, accountCurrency: account });
        expect(owingIn(doc.data.ledger, primaryCurrency(doc, account))).toBe(listed.balance_cents);
      }),
      { numRuns: 300 },
    );
  });
});
