import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import type { CustomerPage } from '../../src/shared/schemas/backoffice';
import { CUSTOMER_RANK, type RankData } from '../../src/engine/receivables/customer-rank';
import { recordsOfKind } from '../../src/engine/records';
import type { CustomerDoc } from '../../src/engine/receivables/types';

/**
 * A data folder made before the balance index existed: its customers have no rank until the first
 * list by balance ranks them, once; customers written since were ranked by their own writes.
 */
const h = useHarness({ api: true });

describe('the balance index of an older data folder', () => {
  it('ranks the customers stored before it at the first sorted request, and stops at those ranked by their writes', async () => {
    const core = h.t.engine.core;
    expect((await h.api.post('/api/imports/invoice', { number: 'RB-1', customer_identifier: 'RB-T', customer_name: 'Template', amount: 3000, date: '2026-02-20', due_date: '2026-03-20' })).status).toBeLessThan(300);
    const template = (await core.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: { identifier: 'RB-T' }, sort: [{ identifier: 'asc' }], limit: 1 }))[0]!;
    // Customers as an older version stored them: written without a rank.
    await core.mutate(async (tx) => {
      for (const [i, owing] of [[1, 9000], [2, 100]] as const) {
        const ledger = { ...template.data.ledger, open: Object.fromEntries(Object.entries(template.data.ledger.open).map(([k, v]) => [k, [v[0], v[1], owing, v[3]]])) };
        await tx.put('customers', { ...template, id: `OLD${i}`, identifier: `RB-OLD${i}`, data: { ...template.data, identifier: `RB-OLD${i}`, name: `Old ${i}`, ledger } }, { type: 'customer.created', entity: 'customer', key: `RB-OLD${i}` });
      }
    });
    // The template written again, and a new customer: both ranked by their own writes, after the old ones.
    expect((await h.api.post('/api/imports/customer', { identifier: 'RB-T', name: 'Template again' })).status).toBeLessThan(300);
    expect((await h.api.post('/api/imports/invoice', { number: 'RB-2', customer_identifier: 'RB-NEW', customer_name: 'New', amount: 500, date: '2026-02-20', due_date: '2026-03-20' })).status).toBeLessThan(300);
    expect((await recordsOfKind<RankData>(core, CUSTOMER_RANK)).map((r) => r.data.identifier).sort()).toEqual(['RB-NEW', 'RB-T']);

    const page = (await h.api.get<CustomerPage>('/api/backoffice/customers?sort=balance&q=RB-')).body;
    expect(page.items.map((c) => [c.identifier, c.balance_cents])).toEqual([['RB-OLD1', 9000], ['RB-T', 3000], ['RB-NEW', 500], ['RB-OLD2', 100]]);
    const ranks = await recordsOfKind<RankData>(core, CUSTOMER_RANK);
    expect(ranks.filter((r) => r.data.backfilled).map((r) => r.data.identifier).sort()).toEqual(['RB-OLD1', 'RB-OLD2']);
    // Once: the next sorted request writes nothing.
    const before = core.currentWatermark();
    await h.api.get('/api/backoffice/customers?sort=balance');
    expect(core.currentWatermark()).toBe(before);
  });
});
