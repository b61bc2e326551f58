import type { EngineCore, Tx } from '../core';
import { fail, isEngineError } from '../errors';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { Gateway, ReversalCheck, ReversalGate } from '../gateway';
import { refundableOf, TRANSACTIONS, txDoc, type TxData, type TxDoc } from '../gateway/transaction-record';
import { formatMoney } from '../../shared/money';
import type { LaneRefundClaim } from '../../shared/schemas/sync-refund-claims';
import { hubLink } from './offline-floor';
import { SYNC_EXCEPTION } from './exceptions';
import type { SyncDoc } from './streams';

/**
 * Refunds of a lane's payments (docs/sync.md, "Refunds of a lane's payments"). A lane's card sale
 * is pushed to the hub, where the back office or the API may refund it too: two installs giving
 * back one payment. So:
 *
 * - **The hub decides what is left of a lane's payment.** Before a paired lane gives back money of
 *   one of its payments (a refund or a void, from the register, its back office or its API), it
 *   claims the amount on the hub (POST /api/sync/refund-claims, its lane credential), under the
 *   token its refund or void will take. The hub grants it in one unit of work when its copy has that
 *   much left after its own refunds, the lane's refunds it holds and the claims still open, and
 *   records the claim (`pos_refund_claim`, the hub's own, not replicated). The hub's own refunds and
 *   voids of the payment count the open claims too (claimsCheck). While the lane cannot reach its
 *   hub (the link fails, sync is paused), it gives no payment back: the hub may have already.
 * - **A claim closes** when the lane's refund or void arrives with its transactions (the token it
 *   was claimed under), or when the lane says it was not made (declined, failed, a retry of an
 *   earlier one): `release`.
 * - **Refunds are child transactions, never a counter that a version overwrites.** A pushed payment
 *   the hub already holds keeps the hub's void and takes as `refunded_cents` the refunds (children)
 *   the hub holds of it, its own and the lane's; each pushed refund or void recounts its payment.
 *   Money given back past what the payment took (which the claims prevent; a lane of an earlier
 *   version does not claim) is a `sync_exception` `over_refund`.
 */
export const REFUND_CLAIM = 'pos_refund_claim';
/** A hub's refund or void of a lane's payment, hub-owned, pulled down by the lanes (`hub_records`). */
export const HUB_REVERSAL = 'pos_hub_reversal';

interface HubReversal {
  laneid: string;
  /** The hub's refund or void, as its gateway recorded it. */
  made: TxData;
}

interface Claim {
  laneid: string;
  transaction: string;
  action: 'refund' | 'void';
  amount_cents: number;
  /** The token the lane's refund or void takes. */
  token: string;
  state: 'open' | 'made' | 'released';
  at: string;
}

const claimKey = (laneid: string, token: string) => `${laneid}/${token}`;

async function openClaims(tx: Tx, transaction: string): Promise<Claim[]> {
  return (await recordsByRef<Claim>(tx, REFUND_CLAIM, transaction)).map((r) => r.data).filter((c) => c.state === 'open');
}

/** What is still refundable of a payment on this install: its amount less refunds, chargebacks, open claims. */
function leftOf(t: TxData, claimed: number): number {
  if (t.state === 'cancelled' || t.state === 'declined') return 0;
  return Math.max(0, refundableOf(t) - claimed);
}

function refusal(t: TxData, action: 'refund' | 'void', amount: number, left: number, claimed: number) {
  const words = { locale: 'en-US' };
  const what = action === 'void' ? `A void gives back all ${formatMoney(t.amount_cents, t.currency, words)}` : `A refund of ${formatMoney(amount, t.currency, words)}`;
  const pending = claimed > 0 ? ` (${formatMoney(claimed, t.currency, words)} of it is being given back on a lane)` : '';
  return fail.gateway(left === 0 ? 'nothing_to_refund' : 'amount_exceeds_refundable', `${what} is more than the ${formatMoney(left, t.currency, words)} still refundable of ${t.token} across the shop${pending}`);
}

/** Hub: a lane's claim to give back money of its payment, or its release. */
export async function serveRefundClaim(core: EngineCore, laneid: string, ownerOf: (tx: Tx, t: SyncDoc) => Promise<string>, req: LaneRefundClaim): Promise<{ claimed?: true; released?: true; left_cents?: number | null }> {
  return core.mutate(async (tx) => {
    const key = claimKey(laneid, req.token);
    const current = await getRecord<Claim>(tx, REFUND_CLAIM, key);
    const event = (type: string) => ({ type, entity: REFUND_CLAIM, key });
    if (req.op === 'release') {
      if (current?.data.state === 'open') await putRecord(tx, REFUND_CLAIM, key, { ...current.data, state: 'released' as const }, event('pos_refund_claim.released'), current.ref);
      return { released: true };
    }
    // The same claim again (a retry after a lost answer) was granted already.
    if (current) return { claimed: true };
    const doc = await tx.get<TxDoc>(TRANSACTIONS, req.transaction);
    let left: number | null = null;
    if (doc) {
      if ((await ownerOf(tx, doc as unknown as SyncDoc)) !== laneid) throw fail.notFound('transaction_not_found', `No payment ${req.transaction} of lane ${laneid}`);
      const claimed = (await openClaims(tx, req.transaction)).reduce((n, c) => n + c.amount_cents, 0);
      left = leftOf(doc.data, claimed);
      const amount = req.action === 'void' ? doc.data.amount_cents : req.amount_cents;
      if (amount > left) throw refusal(doc.data, req.action, amount, left, claimed);
    }
    // A payment the hub does not hold yet was given back nowhere but on its lane: the claim is
    // kept, so the hub's own refunds count it once the payment arrives.
    const claim: Claim = { laneid, transaction: req.transaction, action: req.action, amount_cents: req.action === 'void' && doc ? doc.data.amount_cents : req.amount_cents, token: req.token, state: 'open', at: tx.at };
    await putRecord(tx, REFUND_CLAIM, key, claim, event('pos_refund_claim.created'), req.transaction);
    return { claimed: true, left_cents: left === null ? null : left - claim.amount_cents };
  });
}

/** Hub (any install): its own refund or void of a payment counts what its lanes claimed of it. */
export const claimsCheck: ReversalCheck = async (tx, parent, action, amount) => {
  const claims = await openClaims(tx, parent.token);
  if (claims.length === 0) return;
  const claimed = claims.reduce((n, c) => n + c.amount_cents, 0);
  const left = leftOf(parent, claimed);
  if (amount > left) throw refusal(parent, action, amount, left, claimed);
};

/** The approved refunds this install holds of a payment (its children), not voided since. */
async function refundsOf(tx: Tx, t: TxData): Promise<TxData[]> {
  const siblings = await tx.find<TxDoc>(TRANSACTIONS, { selector: { order_id: t.order?.identifier ?? '' } });
  return siblings.map((d) => d.data).filter((c) => c.parent === t.token && c.action === 'refund' && c.outcome.approved && c.state !== 'cancelled' && c.state !== 'declined');
}

/**
 * Hub: the version of a lane's pushed transaction to write. A payment the hub holds keeps what the
 * hub gave back of it: its void, and the refunds it holds (recounted, not the lane's counter).
 */
export async function mergePushedTransactionInTx(tx: Tx, current: SyncDoc | undefined, pushed: SyncDoc): Promise<SyncDoc> {
  if (!current) return pushed;
  const mine = (current as unknown as TxDoc).data;
  const theirs = (pushed as unknown as TxDoc).data;
  if (mine.refunded_cents === theirs.refunded_cents && (!mine.voided_by || theirs.voided_by)) return pushed;
  const merged: TxData = { ...theirs, refunded_cents: (await refundsOf(tx, theirs)).reduce((n, c) => n + c.amount_cents, 0) };
  if (mine.voided_by && !theirs.voided_by) Object.assign(merged, { state: mine.state, settlement: mine.settlement, due: mine.due, due_at: mine.due_at, voided_by: mine.voided_by });
  return { ...pushed, ...txDoc(merged) } as SyncDoc;
}

/**
 * Hub, after a lane's transaction was written: a refund or void closes the claim it was made
 * under and recounts its payment; the payment itself is checked. Money given back past what the
 * payment took is a `sync_exception` (`over_refund`) for a person.
 */
export async function afterPushedTransactionInTx(tx: Tx, laneid: string, written: TxData): Promise<void> {
  if (written.parent) {
    const claim = await getRecord<Claim>(tx, REFUND_CLAIM, claimKey(laneid, written.token));
    if (claim?.data.state === 'open') await putRecord(tx, REFUND_CLAIM, claim.key, { ...claim.data, state: 'made' as const }, { type: 'pos_refund_claim.made', entity: REFUND_CLAIM, key: claim.key }, claim.ref);
  }
  const payment = written.parent ? (await tx.get<TxDoc>(TRANSACTIONS, written.parent))?.data : written;
  if (!payment || (payment.action !== 'sale' && payment.action !== 'capture')) return;
  const refunds = await refundsOf(tx, payment);
  // A refund recounts its payment. A payment itself was merged as written (its refunds, which come
  // after it in the lane's stream, recount it as they arrive; a new one keeps the lane's count until then).
  const refunded = written.parent ? refunds.reduce((n, c) => n + c.amount_cents, 0) : payment.refunded_cents;
  if (refunded !== payment.refunded_cents) await tx.put(TRANSACTIONS, txDoc({ ...payment, refunded_cents: refunded }), { type: 'transaction.synced', entity: 'transaction', key: payment.token });
  const voided = payment.state === 'cancelled' ? payment.amount_cents : 0;
  const givenBack = refunded + voided + (payment.charged_back_cents ?? 0);
  if (givenBack <= payment.amount_cents) return;
  const key = `${laneid}:${payment.token}`;
  await putRecord(
    tx,
    SYNC_EXCEPTION,
    key,
    {
      laneid,
      document: payment.token,
      reason: 'over_refund',
      amount_cents: payment.amount_cents,
      refunded_cents: refunded,
      voided_cents: voided,
      excess_cents: givenBack - payment.amount_cents,
      refunds: refunds.map((r) => ({ transaction: r.token, amount_cents: r.amount_cents, by: r.created_by })),
      at: tx.at,
    },
    { type: 'sync_exception.created', entity: 'sync_exception', key: payment.token, data: { reason: 'over_refund', excess_cents: givenBack - payment.amount_cents } },
    laneid,
  );
}

/**
 * Lane: its refunds and voids need the hub's claim while it is paired (docs above). Not paired: no
 * gate. Apart: refused, `hub_unreachable`.
 */
export function laneReversalGate(core: EngineCore, call: (body: LaneRefundClaim) => Promise<Record<string, unknown>>): ReversalGate {
  return async ({ parent, action, amount_cents, token }) => {
    const link = await hubLink(core);
    if (!link.paired) return undefined;
    const unreachable = () =>
      fail.gateway('hub_unreachable', `${parent.token} is given back only with the hub's agreement (the hub may have refunded it already), and this lane cannot reach its hub now: try again once it is linked.`);
    if (link.apart) throw unreachable();
    try {
      await call({ op: 'claim', transaction: parent.token, action, amount_cents, token });
    } catch (err) {
      if (isEngineError(err) && (err.code === 'hub_unreachable' || err.code === 'hub_refused')) throw unreachable();
      // The hub's refusal (nothing left, a gateway error) is the lane's answer, as the gateway's own.
      if (isEngineError(err) && err.kind !== 'gateway') throw fail.gateway(err.code, err.message);
      throw err;
    }
    return async (made) => {
      // Made under the claimed token and approved: the claim closes when it reaches the hub.
      if (made && made.approved && made.body.transaction === token) return;
      await call({ op: 'release', transaction: parent.token, action, amount_cents, token }).catch((err: unknown) => {
        // Left open, the claim only holds back that much more on the hub (never less), until released.
        core.logger.warn({ transaction: parent.token, token, error: err instanceof Error ? err.message : String(err) }, 'refund claim not released on the hub');
      });
    };
  };
}

/**
 * Hub: its approved refund or void of a lane's payment (`ownerOf` names the lane; '' for the hub's
 * own payments) goes down to that lane as a `pos_hub_reversal` record, in the same unit of work.
 */
export async function publishHubReversalInTx(tx: Tx, made: TxData, parent: TxData, ownerOf: (t: TxData) => Promise<string>): Promise<void> {
  if (parent.action !== 'sale' && parent.action !== 'capture') return;
  const laneid = await ownerOf(parent);
  if (!laneid) return;
  const reversal: HubReversal = { laneid, made };
  await putRecord(tx, HUB_REVERSAL, made.token, reversal, { type: `${HUB_REVERSAL}.created`, entity: HUB_REVERSAL, key: made.token }, laneid);
}

/**
 * Lane: a hub's refund or void of one of this lane's payments, pulled down, is taken once (when
 * its record first arrives) on the lane's copy of the payment, and counted on its X and Z as money
 * given back outside the register (gateway.applyRemoteReversalInTx).
 */
export async function applyHubReversalInTx(tx: Tx, laneid: string, doc: SyncDoc, current: SyncDoc | undefined, gateway: Pick<Gateway, 'applyRemoteReversalInTx'>): Promise<void> {
  if (current || doc.kind !== HUB_REVERSAL) return;
  const reversal = doc.data as unknown as HubReversal;
  if (reversal.laneid !== laneid) return;
  await gateway.applyRemoteReversalInTx(tx, reversal.made);
}
