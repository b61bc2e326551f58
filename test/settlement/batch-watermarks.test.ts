import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACH, MASTERCARD, card, op, startGateway, type Harness } from '../helpers/gateway';
import type { BatchView, ExceptionView } from '../../src/engine/settlement-reporting';

/**
 * A batch's answer changes after it closed: a card sale charged back (.66) and an ACH sale
 * returned R01 add exceptions to their batches days later, and a payment linked to a batched
 * transaction shows in the batch's transactions. Each change gives the batch a new watermark, so a
 * client polling `?watermark=` from what it last saw gets the batch again, with the change.
 */
let h: Harness;
const tx: Record<string, string> = {};
type Batch = BatchView & { exceptions: ExceptionView[] };
const since = async (watermark: number) => (await h.api.get<{ batches: Batch[] }>(`/api/gateway/v1/settlement/batches?list=true&watermark=${watermark}`)).body.batches;
const newest = (batches: Batch[]) => Math.max(0, ...batches.map((b) => b.watermark));

beforeAll(async () => {
  h = await startGateway();
  // Monday 2026-03-02 15:00 UTC, cut-off 23:00: a card sale to be charged back, one that is not, an ACH sale to be returned.
  const cb = await op(h.api, 'sale', { amount_cents: 5066, credit_card: card(MASTERCARD) });
  const plain = await op(h.api, 'sale', { amount_cents: 2500, credit_card: card() });
  const ach = await op(h.api, 'sale', { amount_cents: 7000, bank_account: { ...ACH, account_number: '0000000024' } });
  Object.assign(tx, { cb: cb.body.transaction, plain: plain.body.transaction, ach: ach.body.transaction });
});
afterAll(async () => {
  await h.close();
});

describe('a settlement batch that changes after it closed', () => {
  it('gets a new watermark when a return or a chargeback is added to it, so a watermark poller sees it again', async () => {
    // Tuesday: Monday's batches are closed, no exception yet.
    expect((await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P1D' })).status).toBe(200);
    const closed = await since(0);
    const cardBatch = closed.find((b) => b.payment_method_group === 'card')!;
    const bankBatch = closed.find((b) => b.payment_method_group === 'bank')!;
    expect(cardBatch.exceptions).toEqual([]);
    expect(bankBatch.exceptions).toEqual([]);
    const seen = newest(closed);

    // Three processing days on: the ACH return.
    expect((await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P3D' })).status).toBe(200);
    const afterReturn = await since(seen);
    expect(afterReturn.map((b) => b.token)).toEqual([bankBatch.token]);
    expect(afterReturn[0]!.watermark).toBeGreaterThan(seen);
    expect(afterReturn[0]!.exceptions.map((e) => [e.exception_type, e.exception_transaction.token])).toEqual([['return', tx.ach]]);
    // Nothing else in it changed: the same sums.
    expect(afterReturn[0]).toMatchObject({ sales_cents: bankBatch.sales_cents, deposit_amount_cents: bankBatch.deposit_amount_cents, transaction_count: 1 });

    // Ten processing days on: the chargeback.
    const seen2 = newest(afterReturn);
    expect((await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P14D' })).status).toBe(200);
    const afterChargeback = await since(seen2);
    expect(afterChargeback.map((b) => b.token)).toEqual([cardBatch.token]);
    expect(afterChargeback[0]!.watermark).toBeGreaterThan(seen2);
    expect(afterChargeback[0]!.exceptions.map((e) => [e.exception_type, e.exception_transaction.token])).toEqual([['chargeback', tx.cb]]);
    expect(afterChargeback[0]).toMatchObject({ sales_cents: 7566, transaction_count: 2, deposit_amount_cents: cardBatch.deposit_amount_cents });
    // Polled from there, nothing new.
    expect(await since(newest(afterChargeback))).toEqual([]);

    // The change is an event of the one stream (webhooks, sync, live updates read it).
    const events = await h.t.engine.core.eventsSince(seen, 1000);
    expect(events.filter((e) => e.type === 'settlement_batch.updated').map((e) => [e.key, (e.data as { reason: string }).reason])).toEqual([
      [bankBatch.token, 'return'],
      [cardBatch.token, 'chargeback'],
    ]);
  });

  it('gets a new watermark when a payment is linked to one of its transactions', async () => {
    const before = await since(0);
    const cardBatch = before.find((b) => b.transactions!.some((t) => t.token === tx.plain))!;
    expect(cardBatch.transactions!.find((t) => t.token === tx.plain)!.payments).toEqual([]);
    const seen = newest(before);
    await h.t.engine.gateway.linkPayment(tx.plain!, { identifier: tx.plain!, amount_cents: 2500 });
    const after = await since(seen);
    expect(after.map((b) => b.token)).toEqual([cardBatch.token]);
    expect(after[0]!.transactions!.find((t) => t.token === tx.plain)!.payments).toEqual([{ identifier: tx.plain, display_identifier: tx.plain, amount_cents: 2500 }]);
  });
});
