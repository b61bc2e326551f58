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
    const mine = await applyPush(core, 'lane_records', '1', [row({ ...current, id: 'pos_sale/S-LANE1', key: 'S-LANE1', data: { id: 'S-LANE1', laneid: '1', status: 'paid', total_cents: 100 } })]);
    expect(mine).toMatchObject({ written: 1, refused: 0 });
  });
});
