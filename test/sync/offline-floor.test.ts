import { afterEach, describe, expect, it } from 'vitest';
import { code, openRegister, type RegisterRig } from '../helpers/register';
import { openHarness, type Harness } from '../helpers/harness';
import { putRecord, recordsOfKind } from '../../src/engine/records';
import { applyPush } from '../../src/engine/sync/master';
import { OFFLINE_SPEND, type OfflineSpend } from '../../src/engine/sync/offline-floor';
import type { EngineCore } from '../../src/engine/core';

let lane: RegisterRig | undefined;
let hub: Harness | undefined;
afterEach(async () => {
  await lane?.close();
  await hub?.close();
  lane = hub = undefined;
});

const CARD = { card_number: '6277000033334444', pin: '4321' };

/** The lane as sync leaves it: paired with a hub, and the last call to it failed (or not). */
async function linkState(core: EngineCore, failing: boolean): Promise<void> {
  await core.mutate(async (tx) => {
    await putRecord(tx, 'sync_hub', 'hub', { url: 'http://127.0.0.1:9', laneid: '1' }, { type: 'sync_hub.paired', entity: 'sync_hub', key: '1' });
    const stream = { stream: 'lane_records', last_success_at: '2026-01-01T00:00:00.000Z', last_error: failing ? 'fetch failed' : null };
    await putRecord(tx, 'sync_peer', 'hub', { paused: false, streams: [stream] }, { type: 'sync.status', entity: 'sync', key: 'hub' });
  });
}

describe('gift cards spent while a lane cannot reach its hub', () => {
  it('are refused beyond the floor limit, recorded, and the excess across lanes is an exception on the hub', async () => {
    lane = await openRegister();
    const { engine } = lane.t;
    await engine.giftCards.load({ ...CARD, activated: true, load_amount_cents: 10_000 });
    expect(engine.register.settings().offline_floor).toEqual({ gift_card_cents: 2500, customer_credit_cents: 0 });

    // Paired and linked, but the hub (where the card's balance lives) does not answer: apart.
    await linkState(engine.core, false);
    const linked = await lane.sale('4002');
    expect(await code(lane.tender(linked, { type: 'gift_card', gift_card: CARD, amount_cents: 3000 }))).toBe('offline_floor_exceeded');
    expect((await lane.tender(linked, { type: 'cash' })).sale.status).toBe('paid');
    expect(await recordsOfKind(engine.core, OFFLINE_SPEND)).toHaveLength(0);

    // Apart: at most 25.00 of the card, over the offline period.
    await linkState(engine.core, true);
    const sale = await lane.sale('4002');
    expect(await code(lane.tender(sale, { type: 'gift_card', gift_card: CARD }))).toBe('offline_floor_exceeded');
    const first = await lane.tender(sale, { type: 'gift_card', gift_card: CARD, amount_cents: 2000 });
    expect(first.tender).toMatchObject({ status: 'approved', amount_cents: 2000 });
    expect(await code(lane.tender(sale, { type: 'gift_card', gift_card: CARD, amount_cents: 1000 }))).toBe('offline_floor_exceeded');
    const second = await lane.tender(sale, { type: 'gift_card', gift_card: CARD, amount_cents: 500 });
    expect(second.tender.status).toBe('approved');
    expect((await engine.giftCards.read(CARD)).balance).toBe(10_000 - 2500);
    const spends = await recordsOfKind<OfflineSpend>(engine.core, OFFLINE_SPEND);
    expect(spends.map((s) => [s.data.laneid, s.data.amount_cents, s.data.last4])).toEqual([['1', 2000, '4444'], ['1', 500, '4444']]);
    expect(JSON.stringify(spends)).not.toContain(CARD.card_number);

    // The hub: lane 1's spends are within the floor; lane 2 spent the same card while apart.
    hub = await openHarness({ api: true });
    const core = hub.t.engine.core;
    const row = (doc: object) => ({ newDocumentState: doc as Record<string, unknown> });
    expect(await applyPush(core, 'lane_records', '1', spends.map(row))).toMatchObject({ written: 2, refused: 0 });
    expect((await hub.t.engine.sync.resolutions(10)).exceptions).toEqual([]);
    const other: OfflineSpend = { ...spends[0]!.data, laneid: '2', tender: 'T2', sale: '2-000001', amount_cents: 1200 };
    const doc = { id: `${OFFLINE_SPEND}/2/T2`, kind: OFFLINE_SPEND, key: '2/T2', ref: other.card, watermark: 1, data: other };
    expect(await applyPush(core, 'lane_records', '3', [row(doc)])).toMatchObject({ written: 0, refused: 1 });
    expect(await applyPush(core, 'lane_records', '2', [row(doc)])).toMatchObject({ written: 1 });
    const excess = (await hub.t.engine.sync.resolutions(10)).exceptions.find((e) => e.reason === 'offline_floor_excess');
    expect(excess).toMatchObject({ card_last4: '4444', lanes: ['1', '2'], floor_cents: 2500, spent_cents: 3700, excess_cents: 1200 });
    const listed = await hub.api.get('/api/sync/resolutions');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('offline_floor_excess');
  });
});
