import type { Tx } from '../core';
import { fail } from '../errors';
import type { TransactionRequest } from '../../shared/schemas/gateway';
import { chargeBank, chargeCard, outcomeOf, voidDecision, APPROVED, type Decision } from './sandbox/processor';
import { amountDeclines } from './sandbox/checks';
import { remainingOf, type TxData } from './transaction-record';
import { findByUnique, fingerprintOf, replayOf, uniqueKey } from './idempotency';
import { getTx, newTxToken, putTx } from './transaction-store';
import { parseAmount } from './amounts';
import { processingDay } from './processing-day';
import { resultOf, type TransactionResult } from './results';
import { type GatewayContext } from './context';

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
  parent: string;
  reference: string | null;
  actor: string | null;
}

export function preparePriorOp(action: PriorTransactionAction, req: TransactionRequest, actor: string | null): PreparedPriorOp {
  if (!req.transaction) throw fail.gateway('transaction_unspecified', `A ${action} needs \`transaction\`: the token of the prior transaction`);
  return {
    action,
    amount: parseAmount(req.amount_cents, { required: false, allowZero: false }),
    parent: req.transaction,
    reference: typeof req.transaction_reference === 'string' && req.transaction_reference.trim() ? req.transaction_reference.trim() : null,
    actor,
  };
}

const FINANCIAL = new Set(['sale', 'capture', 'credit', 'refund']);

export async function priorOpInTx(ctx: GatewayContext, tx: Tx, p: PreparedPriorOp): Promise<TransactionResult> {
  const { core } = ctx;
  // ---- reads and checks ----
  const parent = await getTx(tx, p.parent);
  if (!parent) throw fail.gateway('order_not_found', `No transaction ${p.parent}`);
  const key = uniqueKey(p.action, parent.order?.identifier ?? null, p.reference);
  const requestFingerprint = fingerprintOf([p.action, p.amount, p.parent]);
  const prior = key ? await findByUnique(tx, key) : undefined;
  if (prior) return replayOf(ctx, prior, requestFingerprint, p.action, p.reference);

  let amount: number;
  let decision: Decision;
  const updates: TxData[] = [];
  let grandparent: TxData | undefined;
  let giftDelta = 0;

  if (p.action === 'capture') {
    if (parent.action !== 'authorize' || parent.state !== 'completed' || !parent.auth) {
      throw fail.gateway('transaction_not_capturable', `Transaction ${parent.token} is ${parent.state === 'declined' ? 'a declined ' : 'a '}${parent.action}; only an approved authorization can be captured`);
    }
    if (parent.auth.status === 'released' || tx.now >= parent.auth.hold_expires_at) {
      throw fail.gateway('authorization_expired', `The authorization hold of ${parent.token} was released on ${new Date(parent.auth.hold_expires_at).toISOString()}; authorize again`);
    }
    const remaining = remainingOf(parent.auth);
    if (remaining <= 0) throw fail.gateway('nothing_to_capture', `Authorization ${parent.token} has nothing left to capture`);
    amount = p.amount ?? remaining;
    if (amount > remaining) throw fail.gateway('amount_exceeds_authorization', `amount_cents ${amount} exceeds the ${remaining} cents still authorized on ${parent.token}`);
    decision = parent.card ? chargeCard(parent.card.profile, amount) : amountDeclines(amount) ? chargeCard('decline', amount) : APPROVED;
    if (decision.approved) {
      const captured = parent.auth.captured_cents + amount;
      const auth = { ...parent.auth, captured_cents: captured };
      const left = remainingOf(auth);
      auth.status = left === 0 ? 'captured' : 'open';
      updates.push({ ...parent, auth, due: left === 0 ? null : parent.due, due_at: left === 0 ? 0 : parent.due_at });
    }
  } else if (p.action === 'refund') {
    if ((parent.action !== 'sale' && parent.action !== 'capture') || parent.state === 'declined') {
      throw fail.gateway('transaction_not_refundable', `Transaction ${parent.token} is ${parent.state === 'declined' ? 'a declined ' : 'a '}${parent.action}; only an approved sale or capture can be refunded`);
    }
    if (parent.state === 'cancelled') throw fail.gateway('transaction_voided', `Transaction ${parent.token} was voided: there is nothing to refund`);
    if (parent.state === 'in_progress') throw fail.gateway('transaction_not_settled', `Bank transaction ${parent.token} has not settled yet: void it before the cut-off, or refund it once it settles`);
    if (parent.state === 'completed_but_nsfed') throw fail.gateway('transaction_returned', `Bank transaction ${parent.token} was returned by the bank: there is nothing to refund`);
    const refundable = parent.amount_cents - parent.refunded_cents;
    if (refundable <= 0) throw fail.gateway('nothing_to_refund', `Transaction ${parent.token} is fully refunded`);
    amount = p.amount ?? refundable;
    if (amount > refundable) throw fail.gateway('amount_exceeds_refundable', `amount_cents ${amount} exceeds the ${refundable} cents still refundable on ${parent.token}`);
    decision = parent.payment_method === 'bank_account' ? chargeBank({ unknown: false, message: '', amountCents: amount }) : amountDeclines(amount) ? chargeCard('decline', amount) : APPROVED;
    if (decision.approved) {
      updates.push({ ...parent, refunded_cents: parent.refunded_cents + amount });
      if (parent.payment_method === 'gift_card') giftDelta = amount;
    }
  } else {
    if (parent.state === 'cancelled') throw fail.gateway('transaction_already_voided', `Transaction ${parent.token} is already voided`);
    if (parent.state === 'declined' || parent.action === 'verify' || parent.action === 'void') {
      throw fail.gateway('transaction_not_voidable', `Transaction ${parent.token} (${parent.state} ${parent.action}) cannot be voided`);
    }
    if (parent.action === 'authorize') {
      const auth = parent.auth!;
      if (auth.status === 'released' || tx.now >= auth.hold_expires_at) throw fail.gateway('authorization_expired', `The authorization hold of ${parent.token} was already released`);
      const remaining = remainingOf(auth);
      if (remaining <= 0) throw fail.gateway('nothing_to_void', `Authorization ${parent.token} has nothing left reserved`);
      amount = p.amount ?? remaining;
      if (amount > remaining) throw fail.gateway('amount_exceeds_authorization', `amount_cents ${amount} exceeds the ${remaining} cents still reserved on ${parent.token}`);
      decision = voidDecision(amount);
      if (decision.approved) {
        const next = { ...auth, voided_cents: auth.voided_cents + amount };
        const left = remainingOf(next);
        next.status = left > 0 ? 'open' : next.captured_cents > 0 ? 'captured' : 'voided';
        updates.push({ ...parent, auth: next, due: left > 0 ? parent.due : null, due_at: left > 0 ? parent.due_at : 0 });
      }
    } else if (FINANCIAL.has(parent.action)) {
      amount = parent.amount_cents;
      if (p.amount !== null && p.amount !== parent.amount_cents) {
        throw fail.gateway('partial_void_not_allowed', `A ${parent.action} is voided whole (${parent.amount_cents} cents); refund part of it instead`);
      }
      const transmitted = tx.now >= parent.cutoff_at || (parent.settlement.status !== 'pending' && parent.settlement.status !== 'none');
      if (transmitted) {
        throw fail.gateway(
          'void_window_closed',
          `Transaction ${parent.token} was in the ${parent.processing_date} batch, transmitted at the processing-day cut-off (${new Date(parent.cutoff_at).toISOString()}); refund it instead`,
        );
      }
      if (parent.refunded_cents > 0) throw fail.gateway('transaction_has_refunds', `Transaction ${parent.token} has refunds: void them first`);
      if (parent.payment_method === 'gift_card') {
        giftDelta = parent.action === 'refund' ? -amount : amount;
      }
      if (parent.parent && (parent.action === 'capture' || parent.action === 'refund')) {
        grandparent = await getTx(tx, parent.parent);
      }
      decision = voidDecision(amount);
    } else {
      throw fail.gateway('transaction_not_voidable', `Transaction ${parent.token} cannot be voided`);
    }
  }

  let gift = undefined as Awaited<ReturnType<typeof ctx.giftCards.findInTx>>['card'];
  if (giftDelta !== 0 && decision.approved) {
    gift = (await ctx.giftCards.findInTx(tx, { token: parent.gift_card ?? '' })).card;
    if (!gift) throw fail.gateway('gift_card_unknown', `The gift card of ${parent.token} no longer exists`);
    if (gift.balance_cents + giftDelta < 0) throw fail.gateway('insufficient_funds', 'The gift card balance was already spent: the refund cannot be voided');
  }

  // ---- writes ----
  const day = processingDay(ctx, tx.now);
  const approved = decision.approved;
  const token = newTxToken(ctx, tx.now);
  const moves = approved && (p.action === 'capture' || p.action === 'refund');
  const bank = parent.payment_method === 'bank_account';
  const giftMethod = parent.payment_method === 'gift_card';
  const data: TxData = {
    ...parent,
    token,
    action: p.action,
    state: !approved ? 'declined' : moves && bank ? 'in_progress' : 'completed',
    amount_cents: amount,
    created_by: p.actor,
    created_at: tx.at,
    updated_at: tx.at,
    transaction_reference: p.reference,
    unique_reference: approved ? key : null,
    request_fingerprint: requestFingerprint,
    parent: parent.token,
    processing_date: day.date,
    cutoff_at: day.cutoffAt,
    settlement: { status: moves && !giftMethod ? 'pending' : 'none', batch: null, settled_at: null },
    due: moves && !giftMethod ? 'batch' : null,
    due_at: moves && !giftMethod ? day.cutoffAt : 0,
    outcome: outcomeOf(decision, core.ids, { avs: null, cvv: null }),
    auth: null,
    refunded_cents: 0,
    voided_by: null,
    payments: [],
    terminal: parent.terminal ? { ...parent.terminal, signature: null, reversal: null } : null,
  };

  if (p.action === 'void' && approved && parent.action !== 'authorize') {
    updates.push({ ...parent, state: 'cancelled', settlement: { ...parent.settlement, status: 'voided' }, due: null, due_at: 0, voided_by: token });
    if (grandparent && parent.action === 'capture' && grandparent.auth) {
      // The voided capture's amount is reserved again until the hold ends (released at once if it
      // already has).
      const auth = { ...grandparent.auth, captured_cents: grandparent.auth.captured_cents - amount };
      const left = remainingOf(auth);
      auth.status = left > 0 ? 'open' : auth.captured_cents > 0 ? 'captured' : 'voided';
      updates.push({ ...grandparent, auth, due: left > 0 ? 'hold' : null, due_at: left > 0 ? auth.hold_expires_at : 0 });
    }
    if (grandparent && parent.action === 'refund') {
      updates.push({ ...grandparent, refunded_cents: grandparent.refunded_cents - amount });
    }
  }
  for (const u of updates) await putTx(tx, { ...u, updated_at: tx.at }, false);
  if (gift) await ctx.giftCards.putInTx(tx, { ...gift, balance_cents: gift.balance_cents + giftDelta }, giftDelta > 0 ? 'gift_card.credited' : 'gift_card.redeemed');
  await putTx(tx, data, true);
  return resultOf(ctx, data);
}
