import type { Tx } from '../core';
import { fail } from '../errors';
import type { TransactionRequest } from '../../shared/schemas/gateway';
import { chargeBank, chargeCard, outcomeOf, voidDecision, APPROVED, type Decision } from './sandbox/processor';
import { amountDeclines } from './sandbox/checks';
import { authAfter, buildTransaction, captureAmount, refundAmount, remainingOf, voidRefusal, TRANSACTIONS, type TxData, type TxDoc } from './transaction-record';
import { findByUnique, fingerprintOf, replayOf, retryKeyOf, uniqueKey } from './idempotency';
import { getTx, newTxToken, putTx, requireTx, stampOf } from './transaction-store';
import { parseAmount } from './amounts';
import { bankReturnableUntil } from './processing-day';
import { resultOf, type TransactionResult } from './results';
import type { GatewayContext } from './context';
import type { GiftCardData } from '../wallets/gift-cards';

/**
 * Operations on a prior transaction: capture (of an authorization), refund (of a sale or capture)
 * and void (of an authorization, fully or partly, or of a sale, capture, credit or refund before the
 * cut-off of its processing day). The money rules:
 *   captured <= authorized; voided + released + captured <= authorized;
 *   refunded <= captured (or sold) amount; a voided transaction moves no money.
 */
export type PriorTransactionAction = 'capture' | 'refund' | 'void';

export interface PreparedPriorOp {
  action: PriorTransactionAction;
  amount: number | null;
  /** The prior transaction's token; empty when the request named its order instead (`orderOfParent`). */
  parent: string;
  /** A capture (or void) naming only its order, as most of the reference's capture examples do. */
  orderOfParent?: string;
  reference: string | null;
  /** unique_reference: the retry key (idempotency.ts). */
  retryKey: string | null;
  actor: string | null;
  /** The request's `currency`, lower case; absent (null) means the prior transaction's. */
  currency?: string | null;
  /** The token the new transaction takes, drawn before (a lane's reversal its hub agreed to under it); absent: drawn here. */
  token?: string;
}

export function preparePriorOp(action: PriorTransactionAction, req: TransactionRequest, actor: string | null): PreparedPriorOp {
  const order = typeof req.order === 'string' ? req.order.trim() : req.order?.identifier?.trim();
  const byOrder = !req.transaction && action !== 'refund' && order ? order : undefined;
  if (!req.transaction && !byOrder) throw fail.gateway('transaction_unspecified', `A ${action} needs \`transaction\`: the token of the prior transaction${action === 'refund' ? '' : ' (or `order`, when the order has one open authorization)'}`);
  return {
    action,
    amount: parseAmount(req.amount_cents, { required: false, allowZero: false }),
    parent: req.transaction ?? '',
    ...(byOrder ? { orderOfParent: byOrder } : {}),
    reference: typeof req.transaction_reference === 'string' && req.transaction_reference.trim() ? req.transaction_reference.trim() : null,
    retryKey: retryKeyOf(req),
    actor,
    currency: typeof req.currency === 'string' ? req.currency.toLowerCase() : null,
  };
}

/**
 * A capture, refund or void moves money in its prior transaction's currency only: a `currency`
 * naming another is refused (`currency_mismatch`, as a bank account or an order in another
 * currency is), never read as an amount in the original's. Absent, it is the original's.
 */
export function requireParentCurrency(parent: TxData, p: Pick<PreparedPriorOp, 'action' | 'currency'>): void {
  if (p.currency && p.currency !== parent.currency.toLowerCase()) {
    throw fail.gateway('currency_mismatch', `Transaction ${parent.token} is in ${parent.currency.toUpperCase()}: a ${p.action} of it cannot be in ${p.currency.toUpperCase()}`);
  }
}

/** What an operation on a prior transaction will do, decided from reads only (nothing written yet). */
interface Plan {
  amount: number;
  decision: Decision;
  /** The prior transactions as they are after an approval (the parent, and for a void its own parent). */
  updates: TxData[];
  /** What the gift card's balance moves by when approved (a refund credits it, a void of a sale too). */
  giftDelta: number;
}

/**
 * The authorization a capture or void names by its order: the order's one authorization still
 * holding money. None or several is refused: which card to take, or how much of which, is the
 * client's to say (`transaction`).
 */
async function openAuthorizationOf(tx: Tx, p: PreparedPriorOp): Promise<TxData> {
  const docs = await tx.find<TxDoc>(TRANSACTIONS, { selector: { order_id: p.orderOfParent! }, sort: [{ order_id: 'asc' }, { watermark: 'asc' }] });
  const open = docs.map((d) => d.data).filter((t) => t.action === 'authorize' && t.state !== 'declined' && t.auth !== null && remainingOf(t.auth) > 0);
  if (open.length === 1) return open[0]!;
  if (docs.length === 0) throw fail.gateway('order_not_found', `No transaction on order ${p.orderOfParent}`);
  if (open.length === 0) throw fail.gateway('nothing_to_capture', `Order ${p.orderOfParent} has no authorization still holding money to ${p.action}`);
  throw fail.gateway('transaction_unspecified', `Order ${p.orderOfParent} has ${open.length} open authorizations: name the one to ${p.action} in \`transaction\``);
}

export async function priorOpInTx(ctx: GatewayContext, tx: Tx, p: PreparedPriorOp): Promise<TransactionResult> {
  // ---- reads and checks ----
  const parent = p.orderOfParent ? await openAuthorizationOf(tx, p) : await requireTx(tx, p.parent);
  if (p.orderOfParent) p = { ...p, parent: parent.token };
  requireParentCurrency(parent, p);
  const key = uniqueKey(p.action, parent.order?.identifier ?? null, p.retryKey);
  const requestFingerprint = fingerprintOf([p.action, p.amount, p.parent]);
  const prior = key ? await findByUnique(tx, key) : undefined;
  if (prior) return replayOf(ctx, prior, requestFingerprint, p.action, p.retryKey);

  const token = p.token ?? newTxToken(ctx, tx.now);
  const plan = p.action === 'capture' ? planCapture(parent, p, tx.now) : p.action === 'refund' ? planRefund(parent, p, { nowMs: tx.now, returnableUntil: bankReturnableUntil(ctx, parent) }) : await planVoid(tx, parent, p, token);
  // Money given back of a payment: what other installs may give back of it counts too (a hub's lanes).
  if (p.action !== 'capture' && givesBack(parent)) for (const check of ctx.reversalChecks) await check(tx, parent, p.action, plan.amount);
  const gift = plan.decision.approved && plan.giftDelta !== 0 ? await giftCardToMove(ctx, tx, parent, plan.giftDelta) : undefined;

  // ---- writes ----
  const data = buildTransaction(
    stampOf(ctx, tx, token),
    {
      ...inherited(parent),
      action: p.action,
      amount_cents: plan.amount,
      created_by: p.actor,
      transaction_reference: p.reference,
      key,
      unique_reference: p.retryKey,
      request_fingerprint: requestFingerprint,
      parent: parent.token,
      outcome: outcomeOf(plan.decision, ctx.core.ids, { avs: null, cvv: null }),
      terminal: parent.terminal ? { ...parent.terminal, signature: null, reversal: null } : null,
    },
  );
  if (plan.decision.approved) for (const u of plan.updates) await putTx(tx, { ...u, updated_at: tx.at }, false);
  if (gift) await ctx.giftCards.putInTx(tx, { ...gift, balance_cents: gift.balance_cents + plan.giftDelta }, plan.giftDelta > 0 ? 'gift_card.credited' : 'gift_card.redeemed');
  await putTx(tx, data, true);
  if (plan.decision.approved && (p.action === 'refund' || p.action === 'void')) for (const observe of ctx.reversalObservers) await observe(tx, data, parent);
  return resultOf(ctx, data);
}

/** A payment whose refund or void gives the payer money back (a sale or capture; not an authorization's release, nor a reversal of money paid out). */
export function givesBack(parent: TxData): boolean {
  return parent.action === 'sale' || parent.action === 'capture';
}

/**
 * A refund or void another install (a lane's hub) made of this install's payment: taken on the
 * payment (refunded, or voided) and told to the reversal observers as this gateway's own (the
 * register's X and Z). The reversal is the other install's transaction, in its batch: not stored here.
 */
export async function applyRemoteReversalInTx(ctx: GatewayContext, tx: Tx, made: TxData): Promise<void> {
  const parent = made.parent ? await getTx(tx, made.parent) : undefined;
  if (!parent || !givesBack(parent) || !made.outcome.approved || (made.action !== 'refund' && made.action !== 'void')) return;
  const next: TxData =
    made.action === 'void'
      ? { ...parent, state: 'cancelled', settlement: { ...parent.settlement, status: 'voided' }, due: null, due_at: 0, voided_by: made.token, updated_at: tx.at }
      : { ...parent, refunded_cents: parent.refunded_cents + made.amount_cents, updated_at: tx.at };
  await putTx(tx, next, false);
  for (const observe of ctx.reversalObservers) await observe(tx, made, parent);
}

/** What a transaction on a prior one carries over from it (payment method, order, routing). */
function inherited(parent: TxData) {
  const { currency, order, payment_method, wallet, fund, gift_card, card, bank, gift_last4, email, from_account, settlement_token, fee_exempt, sec_code, industry, device } = parent;
  return { currency, order, payment_method, wallet, fund, gift_card, card, bank, gift_last4, email, from_account, settlement_token, fee_exempt, sec_code, industry, device };
}

function planCapture(parent: TxData, p: PreparedPriorOp, nowMs: number): Plan {
  const amount = captureAmount(parent, p.amount, nowMs);
  const decision = parent.card ? chargeCard(parent.card.profile, amount) : amountDeclines(amount) ? chargeCard('decline', amount) : APPROVED;
  const auth = authAfter(parent.auth!, { captured_cents: parent.auth!.captured_cents + amount });
  const left = remainingOf(auth);
  return { amount, decision, updates: [{ ...parent, auth, due: left === 0 ? null : parent.due, due_at: left === 0 ? 0 : parent.due_at }], giftDelta: 0 };
}

function planRefund(parent: TxData, p: PreparedPriorOp, finality: { nowMs: number; returnableUntil: number }): Plan {
  const amount = refundAmount(parent, p.amount, finality);
  const decision = parent.payment_method === 'bank_account' ? chargeBank({ unknown: false, message: '', amountCents: amount }) : amountDeclines(amount) ? chargeCard('decline', amount) : APPROVED;
  return { amount, decision, updates: [{ ...parent, refunded_cents: parent.refunded_cents + amount }], giftDelta: parent.payment_method === 'gift_card' ? amount : 0 };
}

async function planVoid(tx: Tx, parent: TxData, p: PreparedPriorOp, token: string): Promise<Plan> {
  if (parent.state === 'cancelled') throw fail.gateway('transaction_already_voided', `Transaction ${parent.token} is already voided`);
  if (parent.state === 'declined' || parent.action === 'verify' || parent.action === 'void') {
    throw fail.gateway('transaction_not_voidable', `Transaction ${parent.token} (${parent.state} ${parent.action}) cannot be voided`);
  }
  if (parent.action === 'authorize') return planRelease(parent, p, tx.now);
  const amount = parent.amount_cents;
  if (p.amount !== null && p.amount !== parent.amount_cents) {
    throw fail.gateway('partial_void_not_allowed', `A ${parent.action} is voided whole (${parent.amount_cents} cents); refund part of it instead`);
  }
  const refusal = voidRefusal(parent, tx.now);
  if (refusal) throw refusal;
  const updates: TxData[] = [{ ...parent, state: 'cancelled', settlement: { ...parent.settlement, status: 'voided' }, due: null, due_at: 0, voided_by: token }];
  const grandparent = parent.parent && (parent.action === 'capture' || parent.action === 'refund') ? await getTx(tx, parent.parent) : undefined;
  if (grandparent && parent.action === 'capture' && grandparent.auth) {
    // The voided capture's amount is reserved again until the hold ends (released at once if it
    // already has).
    const auth = authAfter(grandparent.auth, { captured_cents: grandparent.auth.captured_cents - amount });
    const left = remainingOf(auth);
    updates.push({ ...grandparent, auth, due: left > 0 ? 'hold' : null, due_at: left > 0 ? auth.hold_expires_at : 0 });
  }
  if (grandparent && parent.action === 'refund') updates.push({ ...grandparent, refunded_cents: grandparent.refunded_cents - amount });
  const giftDelta = parent.payment_method === 'gift_card' ? (parent.action === 'refund' ? -amount : amount) : 0;
  return { amount, decision: voidDecision(amount), updates, giftDelta };
}

/** A void of an authorization releases what it still reserves (all, or part). */
function planRelease(parent: TxData, p: PreparedPriorOp, nowMs: number): Plan {
  const auth = parent.auth!;
  if (auth.status === 'released' || nowMs >= auth.hold_expires_at) throw fail.gateway('authorization_expired', `The authorization hold of ${parent.token} was already released`);
  const remaining = remainingOf(auth);
  if (remaining <= 0) throw fail.gateway('nothing_to_void', `Authorization ${parent.token} has nothing left reserved`);
  const amount = p.amount ?? remaining;
  if (amount > remaining) throw fail.gateway('amount_exceeds_authorization', `amount_cents ${amount} exceeds the ${remaining} cents still reserved on ${parent.token}`);
  const next = authAfter(auth, { voided_cents: auth.voided_cents + amount });
  const left = remainingOf(next);
  return { amount, decision: voidDecision(amount), updates: [{ ...parent, auth: next, due: left > 0 ? parent.due : null, due_at: left > 0 ? parent.due_at : 0 }], giftDelta: 0 };
}

async function giftCardToMove(ctx: GatewayContext, tx: Tx, parent: TxData, delta: number): Promise<GiftCardData> {
  const gift = (await ctx.giftCards.findInTx(tx, { token: parent.gift_card ?? '' })).card;
  if (!gift) throw fail.gateway('gift_card_unknown', `The gift card of ${parent.token} no longer exists`);
  if (gift.balance_cents + delta < 0) throw fail.gateway('insufficient_funds', 'The gift card balance was already spent: the refund cannot be voided');
  return gift;
}
