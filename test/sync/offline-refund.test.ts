import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/harness';
import { putRecord } from '../../src/engine/records';
import { OFFLINE_SPEND, refundOfflineSpendInTx, type OfflineSpend } from '../../src/engine/sync/offline-floor';
import { debitOfflineSpendInTx } from '../../src/engine/wallets/gift-cards';

/**
 * The hub's side of a lane refunding a gift card tender it took apart from the hub's copy: the
 * money goes back to the card at most once per refund and never beyond what the spend took.
 * (test/sync/gift-cards-shop.test.ts runs it between real installs.)
 */
describe("the hub's refund of a lane's offline gift card spend", () => {
  let t: TestEngine;
  let token: string;
  beforeAll(async () => {
    t = await openTestEngine();
    token = (await t.engine.giftCards.load({ card_number: '6277000012340001', activated: 'true', load_amount_cents: 5000 })).token;
  });
  afterAll(() => t.close());

  const balance = async () => (await t.engine.giftCards.read({ card_number: '6277000012340001' })).balance;
  const refund = (tender: string, amount: number, reference: string) => t.engine.core.mutate((tx) => refundOfflineSpendInTx(tx, '2', { tender, amount_cents: amount, reference }));
  const spend = (tender: string, amount: number): OfflineSpend => ({ laneid: '2', card: 'c', last4: '0001', sale: 's1', tender, amount_cents: amount, currency: 'usd', token, offline_since: null, at: new Date().toISOString() });

  it('waits for the spend to reach the hub, then credits up to what it took, once per reference', async () => {
    await expect(refund('T1', 1000, 'lane-2-R1')).rejects.toMatchObject({ code: 'offline_spend_not_synced' });
    // As a push delivers it (master.ts debits the card then): the card is at 3000.
    await t.engine.core.mutate(async (tx) => {
      await putRecord(tx, OFFLINE_SPEND, '2/T1', spend('T1', 2000), { type: 'pos_offline_spend.created', entity: OFFLINE_SPEND, key: '2/T1' }, 'c');
      await debitOfflineSpendInTx(tx, token, 2000);
    });
    expect(await balance()).toBe(3000);
    await refund('T1', 1500, 'lane-2-R1');
    expect(await balance()).toBe(4500);
    // The same refund again (its answer lost): nothing more.
    await refund('T1', 1500, 'lane-2-R1');
    expect(await balance()).toBe(4500);
    // Another refund of the same tender: only what is left of the 20.00.
    await expect(refund('T1', 600, 'lane-2-R2')).rejects.toMatchObject({ code: 'refund_exceeds_payment' });
    await refund('T1', 500, 'lane-2-R2');
    expect(await balance()).toBe(5000);
    // Another lane's tender of the same id is not this lane's spend.
    await expect(t.engine.core.mutate((tx) => refundOfflineSpendInTx(tx, '3', { tender: 'T1', amount_cents: 100, reference: 'lane-3-R1' }))).rejects.toMatchObject({ code: 'offline_spend_not_synced' });
    expect(await balance()).toBe(5000);
  });
});
