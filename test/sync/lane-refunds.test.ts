import { describe, expect, it } from 'vitest';
import { applyPush, ownerOfStored } from '../../src/engine/sync/master';
import { applyHubReversalInTx, serveRefundClaim } from '../../src/engine/sync/lane-refunds';
import { streamNamed, type SyncDoc } from '../../src/engine/sync/streams';
import type { Tx } from '../../src/engine/core';
import { useHarness } from '../helpers/harness';
import { card, op, VISA } from '../helpers/gateway';

/**
 * The hub's side of refunds of a lane's payments (docs/sync.md, "Refunds of a lane's payments"),
 * in one engine standing for the hub: pushes of lane 2's payment and refunds, the hub's own
 * refunds of it, and the lane's claims. Refunds are child transactions: a pushed version of the
 * payment never takes away a refund the hub made, and money given back past what it took is a
 * sync exception. Over real HTTP with a real lane: test/serial/lane-hub-refunds.test.ts.
 */
const h = useHarness({ api: true });
const row = (doc: Record<string, unknown>) => ({ newDocumentState: doc });
const STREAM = streamNamed('transactions')!;
const ownerOf = (tx: Tx, doc: SyncDoc) => ownerOfStored(tx, STREAM, doc);
type Data = Record<string, unknown> & { refunded_cents: number; token: string };

const TERMINAL = { laneid: '2', entry_mode: 'chip', aid: null, application_label: null, tvr: null, tsi: null, cardholder_verification: 'pin', authorization_code: null, signature: null, reversal: null };
let seq = 0;
/** Lane 2's card payment of `amount` as its push carries it (a copy of a hub sale, made the lane's by its terminal). */
async function lanePayment(amount: number): Promise<SyncDoc> {
  const sale = await op(h.api, 'sale', { amount_cents: amount, credit_card: card(VISA) });
  const model = (await h.t.engine.core.get<SyncDoc>('transactions', sale.body.transaction))!;
  const token = `LANE2PAY${String(++seq).padStart(8, '0')}`;
  const data = { ...(model.data as object), token, order: null, terminal: TERMINAL };
  return { ...model, id: token, order_id: '', unique_reference: '', client_reference: '', data } as unknown as SyncDoc;
}
/** Lane 2's refund of it, as its push carries it. */
function laneRefund(payment: SyncDoc, token: string, amount: number): SyncDoc {
  const p = payment.data as Data;
  return { ...payment, id: token, data: { ...p, token, action: 'refund', parent: p.token, amount_cents: amount, refunded_cents: 0, unique_reference: null, retry_key: null } } as unknown as SyncDoc;
}
const withRefunded = (payment: SyncDoc, refunded: number): SyncDoc => ({ ...payment, data: { ...(payment.data as Data), refunded_cents: refunded } }) as SyncDoc;
const hubCopy = async (token: string) => ((await h.t.engine.core.get<SyncDoc>('transactions', token))!.data as Data).refunded_cents;
const overRefunds = async () => (await h.t.engine.core.find<SyncDoc>('records', { selector: { kind: 'sync_exception' } })).map((d) => d.data as Record<string, unknown>).filter((e) => e.reason === 'over_refund');

describe("the hub's copy of a lane's payment", () => {
  it("keeps the hub's refund when the lane's version arrives, and counts the lane's refund beside it", async () => {
    const { core } = h.t.engine;
    const payment = await lanePayment(1000);
    expect(await applyPush(core, 'transactions', '2', [row(payment)])).toMatchObject({ written: 1, refused: 0 });
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 300 })).body.success).toBe(true);
    expect(await hubCopy(payment.id)).toBe(300);

    // The lane, not knowing it, refunds 700 (all it may: 1000 - 300) and pushes the payment, then the refund.
    await applyPush(core, 'transactions', '2', [row(withRefunded(payment, 700))]);
    expect(await hubCopy(payment.id)).toBe(300);
    await applyPush(core, 'transactions', '2', [row(laneRefund(payment, 'LANE2REF00000001', 700))]);
    expect(await hubCopy(payment.id)).toBe(1000);
    // The same versions again change nothing.
    expect(await applyPush(core, 'transactions', '2', [row(withRefunded(payment, 700)), row(laneRefund(payment, 'LANE2REF00000001', 700))])).toMatchObject({ written: 0, unchanged: 2 });
    expect(await hubCopy(payment.id)).toBe(1000);
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 1 })).body).toMatchObject({ success: false, errors: ['nothing_to_refund'] });
    expect(await overRefunds()).toEqual([]);
  });

  it('reports money given back past the payment (a lane that did not claim) as a sync exception', async () => {
    const { core } = h.t.engine;
    const payment = await lanePayment(350);
    await applyPush(core, 'transactions', '2', [row(payment)]);
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 175 })).body.success).toBe(true);
    await applyPush(core, 'transactions', '2', [row(withRefunded(payment, 350)), row(laneRefund(payment, 'LANE2REF00000002', 350))]);
    expect(await hubCopy(payment.id)).toBe(525);
    const [exception] = (await overRefunds()).filter((e) => e.document === payment.id);
    expect(exception).toMatchObject({ laneid: '2', reason: 'over_refund', amount_cents: 350, refunded_cents: 525, excess_cents: 175 });
    expect((exception!.refunds as unknown[]).length).toBe(2);
  });

  it("grants a lane's claim only within what is left, and counts open claims against the hub's own refunds", async () => {
    const { core } = h.t.engine;
    const payment = await lanePayment(1000);
    await applyPush(core, 'transactions', '2', [row(payment)]);
    const claim = (amount: number, token: string, op2: 'claim' | 'release' = 'claim') => serveRefundClaim(core, '2', ownerOf, { op: op2, transaction: payment.id, action: 'refund', amount_cents: amount, token });

    expect(await claim(600, 'LANE2REF00000003')).toMatchObject({ claimed: true, left_cents: 400 });
    // The same claim again (a lost answer) is granted once.
    expect(await claim(600, 'LANE2REF00000003')).toMatchObject({ claimed: true });
    await expect(claim(500, 'LANE2REF00000004')).rejects.toMatchObject({ code: 'amount_exceeds_refundable' });
    // Another lane's payment is not this lane's to claim.
    await expect(serveRefundClaim(core, '3', ownerOf, { op: 'claim', transaction: payment.id, action: 'refund', amount_cents: 1, token: 'LANE3REF00000001' })).rejects.toMatchObject({ code: 'transaction_not_found' });

    // The hub's own refund counts the open claim: 400 left, not 1000.
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 500 })).body).toMatchObject({ success: false, errors: ['amount_exceeds_refundable'] });
    expect((await op(h.api, 'void', { transaction: payment.id })).body).toMatchObject({ success: false, errors: ['amount_exceeds_refundable'] });
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 400 })).body.success).toBe(true);

    // The lane's refund arrives under the claimed token: the claim closes, the refund counts instead.
    await applyPush(core, 'transactions', '2', [row(withRefunded(payment, 600)), row(laneRefund(payment, 'LANE2REF00000003', 600))]);
    expect(await hubCopy(payment.id)).toBe(1000);
    await expect(claim(1, 'LANE2REF00000005')).rejects.toMatchObject({ code: 'nothing_to_refund' });
    expect(await overRefunds()).toEqual(expect.not.arrayContaining([expect.objectContaining({ document: payment.id })]));
  });

  it('frees a released claim, and keeps a claim on a payment the hub does not hold yet', async () => {
    const { core } = h.t.engine;
    const payment = await lanePayment(800);
    // Claimed before the payment reached the hub: the claim waits for it.
    expect(await serveRefundClaim(core, '2', ownerOf, { op: 'claim', transaction: payment.id, action: 'refund', amount_cents: 800, token: 'LANE2REF00000006' })).toMatchObject({ claimed: true, left_cents: null });
    await applyPush(core, 'transactions', '2', [row(payment)]);
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 100 })).body).toMatchObject({ success: false, errors: ['nothing_to_refund'] });
    // The lane's refund was declined: released, the whole payment is refundable again.
    await serveRefundClaim(core, '2', ownerOf, { op: 'release', transaction: payment.id, action: 'refund', amount_cents: 800, token: 'LANE2REF00000006' });
    expect((await op(h.api, 'refund', { transaction: payment.id, amount_cents: 800 })).body.success).toBe(true);
  });
});

describe("a hub's refund of a lane's payment, on the lane", () => {
  it('is taken once on the copy, when its record first arrives, and only by the lane that owns the payment', async () => {
    const { core, gateway } = h.t.engine;
    const sale = await op(h.api, 'sale', { amount_cents: 900, credit_card: card(VISA) });
    const payment = (await gateway.record(sale.body.transaction))!;
    const made = { ...payment, token: 'HUBREF0000000001', action: 'refund' as const, parent: payment.token, amount_cents: 400, refunded_cents: 0 };
    const doc = { id: `pos_hub_reversal/${made.token}`, kind: 'pos_hub_reversal', key: made.token, ref: '2', watermark: 7, data: { laneid: '2', made } } as unknown as SyncDoc;
    // Another lane's record, and the same record again (already written), change nothing.
    await core.mutate((tx) => applyHubReversalInTx(tx, '3', doc, undefined, gateway));
    await core.mutate((tx) => applyHubReversalInTx(tx, '2', doc, doc, gateway));
    expect((await gateway.record(payment.token))!.refunded_cents).toBe(0);
    await core.mutate((tx) => applyHubReversalInTx(tx, '2', doc, undefined, gateway));
    expect((await gateway.record(payment.token))!.refunded_cents).toBe(400);
    expect((await op(h.api, 'refund', { transaction: payment.token, amount_cents: 600 })).body).toMatchObject({ success: false, errors: ['amount_exceeds_refundable'] });
  });
});
