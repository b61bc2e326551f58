import { describe, expect, it } from 'vitest';
import { applyPush } from '../../src/engine/sync/master';
import { putRecord, getRecord } from '../../src/engine/records';
import type { SyncDoc } from '../../src/engine/sync/streams';
import { useHarness } from '../helpers/harness';
import { card, op, VISA } from '../helpers/gateway';

/**
 * A paired lane owns what it pushes, and nothing else: it may not rewrite a document the hub made
 * (a web or API sale's transaction) or one another lane owns, whatever owner the pushed copy names.
 */
const h = useHarness({ api: true });
const row = (doc: Record<string, unknown>) => ({ newDocumentState: doc });

describe('sync pushes', () => {
  it("refuse a lane's copy of a transaction the hub made", async () => {
    const sale = await op(h.api, 'sale', { amount_cents: 4200, credit_card: card(VISA) });
    const token = sale.body.transaction;
    const { core } = h.t.engine;
    const current = (await core.get<SyncDoc>('transactions', token))!;
    const forged = { ...current, data: { ...(current.data as object), state: 'cancelled', amount_cents: 1, laneid: '1' } };
    const outcome = await applyPush(core, 'transactions', '1', [row(forged), row({ ...current, data: { ...(current.data as object), state: 'cancelled' } })]);
    expect(outcome).toMatchObject({ written: 0, refused: 2 });
    expect(((await core.get<SyncDoc>('transactions', token))!.data as { state: string }).state).toBe(current.data && (current.data as { state: string }).state);
    // A new transaction made on another lane's terminal is not this lane's to push either.
    const foreign = { ...current, id: 'LANE2TX0000000001', data: { ...(current.data as object), token: 'LANE2TX0000000001', terminal: { laneid: '2' } } };
    expect(await applyPush(core, 'transactions', '1', [row(foreign)])).toMatchObject({ written: 0, refused: 1 });
  });

  it("refuse a lane's copy of another lane's sale, even when the copy names the pushing lane", async () => {
    const { core } = h.t.engine;
    await core.mutate((tx) => putRecord(tx, 'pos_sale', 'S-LANE2', { id: 'S-LANE2', laneid: '2', status: 'paid', total_cents: 5000 }, { type: 'pos_sale.updated', entity: 'pos_sale', key: 'S-LANE2' }));
    const current = (await core.get<SyncDoc>('records', 'pos_sale/S-LANE2'))!;
    const outcome = await applyPush(core, 'lane_records', '1', [row({ ...current, data: { ...(current.data as object), laneid: '1', status: 'voided' } })]);
    expect(outcome).toMatchObject({ written: 0, refused: 1 });
    expect((await getRecord<{ status: string; laneid: string }>(core, 'pos_sale', 'S-LANE2'))!.data).toMatchObject({ status: 'paid', laneid: '2' });
    // Its own new documents are taken as before.
    const mine = await applyPush(core, 'lane_records', '1', [row({ ...current, id: 'pos_sale/S-LANE1', key: 'S-LANE1', data: { id: 'S-LANE1', number: '1-000001', laneid: '1', status: 'paid', total_cents: 100 } })]);
    expect(mine).toMatchObject({ written: 1, refused: 0 });
  });

  it('refuse a new document that is not the pushing lane\'s own, and take the rest of the push', async () => {
    const { core } = h.t.engine;
    const sale = await op(h.api, 'sale', { amount_cents: 1500, credit_card: card(VISA) });
    const model = (await core.get<SyncDoc>('transactions', sale.body.transaction))!;
    const base = model.data as Record<string, unknown>;
    const exceptions = async () => (await core.find<SyncDoc>('records', { selector: { kind: 'sync_exception' } })).length;
    const before = await exceptions();

    // A new transaction naming no lane: no terminal, no order.
    const orphan = { ...model, id: 'NOLANETX00000001', data: { ...base, token: 'NOLANETX00000001', terminal: null, order: null } };
    // A new sale naming another lane (its laneid and its receipt number are lane 2's).
    const foreignSale = { id: 'pos_sale/S-FORGED2', kind: 'pos_sale', key: 'S-FORGED2', ref: '2/00000009', watermark: 0, data: { id: 'S-FORGED2', number: '2-000009', laneid: '2', status: 'paid', total_cents: 900 } };
    // A new order claiming this lane in its attributes, under a number without the lane's prefix.
    const order = { id: 'FORGEDORDER00001', watermark: 0, published: true, data: { identifier: 'FORGEDORDER00001', number: 'WEB-1001', amount_cents: 700, currency: 'USD', attributes: { pos_lane: '1' } } };
    const mine = { id: 'pos_sale/S-MINE1', kind: 'pos_sale', key: 'S-MINE1', ref: '1/00000002', watermark: 0, data: { id: 'S-MINE1', number: '1-000002', laneid: '1', status: 'paid', total_cents: 200 } };

    expect(await applyPush(core, 'transactions', '1', [row(orphan)])).toMatchObject({ written: 0, refused: 1 });
    expect(await applyPush(core, 'lane_records', '1', [row(foreignSale), row(mine)])).toMatchObject({ written: 1, refused: 1 });
    expect(await applyPush(core, 'orders', '1', [row(order)])).toMatchObject({ written: 0, refused: 1 });

    expect(await core.get('transactions', 'NOLANETX00000001')).toBeUndefined();
    expect(await core.get('records', 'pos_sale/S-FORGED2')).toBeUndefined();
    expect(await core.get('orders', 'FORGEDORDER00001')).toBeUndefined();
    expect(await core.get('records', 'pos_sale/S-MINE1')).toBeDefined();
    expect(await exceptions()).toBe(before + 3);
    expect((await getRecord<{ reason: string }>(core, 'sync_exception', '1:FORGEDORDER00001'))!.data.reason).toBe('not_lane_document');
  });
});
