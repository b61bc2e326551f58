import { createHash } from 'node:crypto';
import { fail, isEngineError } from '../errors';
import { luhnValid } from '../security/card-data';
import type { CardPresentKind, CardPresentPort, CardPresentRequest, CardRead } from '../card-present';
import type { TransactionRequest } from '../../shared/schemas/gateway';
import type { OrderInput } from '../../shared/schemas/orders';
import { isExpired } from '../wallets/instruments';
import { brandOf } from './reference-data';
import { testCard } from './sandbox/test-data';
import { chargeCard, outcomeOf, type Decision } from './sandbox/processor';
import { responseCodeFor } from './reference-data';
import { buildTransaction, captureAmount, clientReferenceOf, refundAmount, remainingOf, type TerminalFacts, type TxData } from './transaction-record';
import { priorOpInTx, preparePriorOp, requireParentCurrency } from './prior-transaction-ops';
import { findByUnique, fingerprintOf, replayOf, retryKeyOf, uniqueKey } from './idempotency';
import { getTx, putTx, requireTx, stampOf } from './transaction-store';
import { parseAmount, resolveCurrency } from './amounts';
import { resultOf, type TransactionResult } from './results';
import { settlementTokenFor } from './settlement-tokens';
import type { GatewayContext } from './context';
import type { Tx } from '../core';

/**
 * Card-present payments on a lane: read the card on the lane's device, authorize with the
 * processor, then have the device show the outcome (and collect a signature). The device wait
 * happens outside any unit of work, so a customer fumbling with a card holds up nobody else.
 *
 * Never charged twice, never charged for a payment that did not finish:
 * - one request is one device payment: concurrent retries with the same idempotency key wait for
 *   the first, and a finished one is answered from its record;
 * - when the device cannot confirm an approved payment (complete() rejects), the outcome at the
 *   counter is unknown, so the approval is reversed at once: state cancelled, response code 260;
 *   the request's idempotency key is freed, so retrying it takes the payment again (once).
 */
export type TerminalAction = 'sale' | 'authorize' | 'credit';

const KIND: Record<TerminalAction, CardPresentKind> = { sale: 'sale', authorize: 'auth', credit: 'credit' };

/**
 * The device's id for one payment: stable for one idempotency key (so a lost answer is asked for
 * again, never re-run) and within the lane protocol's alphabet and length.
 */
function deviceRequestId(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 32);
}

/** A lane's refusal keeps its code (lane_offline, device_busy, cancelled...) as a gateway error. */
function deviceFailure(err: unknown): unknown {
  if (isEngineError(err)) return err.kind === 'gateway' ? err : fail.gateway(err.code, err.message);
  return fail.gateway('device_error', 'The terminal could not read a card');
}

export interface CardPresentDeps {
  ctx: GatewayContext;
  port: () => CardPresentPort | undefined;
  inflight: Map<string, Promise<TransactionResult>>;
}

function decide(read: CardRead, amount: number, nowMs: number, timeZone: string): Decision {
  if (!luhnValid(read.pan) || !testCard(read.pan)) {
    return { approved: false, errorCode: 'invalid_account_number', message: 'INVALID ACCOUNT NUMBER', subject: 'credit_card' };
  }
  if (isExpired(Number(read.expiryMonth), Number(read.expiryYear), nowMs, timeZone)) {
    return { approved: false, errorCode: 'expired_card', message: 'EXPIRED CARD', subject: 'credit_card' };
  }
  return chargeCard(testCard(read.pan)!.profile, amount);
}

/** The lane driver, when this account may take card-present payments and one is running. */
function requirePort(deps: CardPresentDeps): CardPresentPort {
  if (!deps.ctx.account.can('card_present_emv')) throw fail.gateway('capability_disabled', 'This account is not enabled for card-present EMV');
  const port = deps.port();
  if (!port) throw fail.gateway('terminal_unavailable', 'No card-present terminal driver is running on this install');
  return port;
}

/** Waits for the customer's card on the lane; a lane's refusal becomes a gateway error. */
async function readOnLane(port: CardPresentPort, request: CardPresentRequest): Promise<CardRead> {
  try {
    return await port.readCard(request);
  } catch (err) {
    throw deviceFailure(err);
  }
}

/** What a receipt needs from the device's read, on the transaction's `terminal`. */
function terminalFacts(laneid: string, read: CardRead, authorizationCode: string | null, tip: number): TerminalFacts {
  return {
    laneid,
    entry_mode: read.entryMode,
    aid: read.emv?.aid ?? null,
    application_label: read.emv?.applicationLabel ?? null,
    tvr: read.emv?.tvr ?? null,
    tsi: read.emv?.tsi ?? null,
    cardholder_verification: read.cvm,
    authorization_code: authorizationCode,
    signature: null,
    reversal: null,
    tip_cents: tip,
  };
}

const tipOf = (read: CardRead) => Math.max(0, Math.trunc(read.tipCents ?? 0));

interface TerminalPayment {
  action: TerminalAction;
  amount: number;
  reference: string | null;
  /** unique_reference: the retry key (idempotency.ts). */
  retryKey: string | null;
  orderInput: string | OrderInput | null;
  requestFingerprint: string;
  req: TransactionRequest;
  actor: string | null;
}

function prepareTerminalPayment(action: TerminalAction, req: TransactionRequest, actor: string | null): TerminalPayment {
  if ([req.fund_token, req.credit_card, req.bank_account, req.gift_card, req.transaction].some((v) => v !== undefined && v !== null)) {
    throw fail.gateway('payment_method_conflict', 'A terminal payment reads its card on the lane: send no other payment method or prior transaction');
  }
  const amount = parseAmount(req.amount_cents, { required: true, allowZero: false })!;
  return {
    action,
    amount,
    reference: typeof req.transaction_reference === 'string' && req.transaction_reference.trim() ? req.transaction_reference.trim() : null,
    retryKey: retryKeyOf(req),
    orderInput: req.order ?? null,
    requestFingerprint: fingerprintOf([action, amount, 'terminal', req.terminal!.laneid]),
    req,
    actor,
  };
}

export async function cardPresentPayment(deps: CardPresentDeps, action: TerminalAction, req: TransactionRequest, actor: string | null): Promise<TransactionResult> {
  const { ctx } = deps;
  const port = requirePort(deps);
  const p = prepareTerminalPayment(action, req, actor);
  const pre = await ctx.core.mutate((tx) => checkBeforeDevice(ctx, tx, p));
  if (pre.prior) return replayOf(ctx, pre.prior, p.requestFingerprint, action, p.retryKey);
  const flightKey = pre.key ?? ctx.core.ids.token();
  const running = deps.inflight.get(flightKey);
  if (running) return running;

  const run = (async (): Promise<TransactionResult> => {
    const request: CardPresentRequest = {
      requestId: deviceRequestId(flightKey),
      laneId: req.terminal!.laneid,
      kind: KIND[action],
      amountCents: p.amount,
      currency: pre.currency,
      enableManualEntry: req.terminal!.enable_manual_entry === true,
    };
    const read = await readOnLane(port, request);
    let recorded: TxData;
    try {
      recorded = await ctx.core.mutate((tx) => recordCardRead(ctx, tx, p, pre.currency, read));
    } catch (err) {
      // Nothing was authorized: release the device, which is waiting to show an outcome.
      await port.complete(request, { approved: false, message: 'NOT COMPLETED' }).catch(() => undefined);
      throw err;
    } finally {
      // The card number is not needed past the authorization.
      read.pan = '';
    }
    return confirmOnDevice(ctx, port, request, recorded);
  })();
  deps.inflight.set(flightKey, run);
  try {
    return await run;
  } finally {
    deps.inflight.delete(flightKey);
  }
}

/** Checks before the device is involved (nothing written): order, currency, routing, a finished twin. */
async function checkBeforeDevice(ctx: GatewayContext, tx: Tx, p: TerminalPayment): Promise<{ currency: string; key: string | null; prior: TxData | undefined }> {
  const order = p.orderInput ? await ctx.orders.resolveInTx(tx, p.orderInput, { amountCents: p.amount, currency: (p.req.currency ?? ctx.account.profile().currency).toLowerCase() }) : null;
  const currency = resolveCurrency(ctx, p.req.currency, order?.data.currency);
  settlementTokenFor(ctx, 'pos_terminal', order?.data.settlement_token ?? null);
  const key = uniqueKey(p.action, order?.data.identifier ?? null, p.retryKey);
  const prior = key ? await findByUnique(tx, key) : undefined;
  return { currency, key, prior };
}

/** Authorizes the card read on the lane (with the tip the customer added) and records the transaction. */
async function recordCardRead(ctx: GatewayContext, tx: Tx, p: TerminalPayment, currency: string, read: CardRead): Promise<TxData> {
  const order = p.orderInput ? await ctx.orders.resolveInTx(tx, p.orderInput, { amountCents: p.amount, currency }) : null;
  const key = uniqueKey(p.action, order?.data.identifier ?? null, p.retryKey);
  const prior = key ? await findByUnique(tx, key) : undefined;
  if (prior) return prior;
  const tip = tipOf(read);
  const total = p.amount + tip;
  const decision = decide(read, total, tx.now, ctx.account.profile().timezone);
  const outcome = outcomeOf(decision, ctx.core.ids, { avs: null, cvv: null });
  const pan = read.pan;
  const known = testCard(pan);
  const data = buildTransaction(stampOf(ctx, tx), {
    action: p.action,
    amount_cents: total,
    currency,
    order: order ? { identifier: order.data.identifier, number: order.data.number, amount_cents: order.data.amount_cents } : null,
    payment_method: 'pos_terminal',
    wallet: null,
    fund: null,
    gift_card: null,
    card: {
      bin: pan.slice(0, 6),
      last4: pan.slice(-4),
      length: pan.length,
      brand: known?.brand ?? brandOf(pan),
      expiry_month: Number(read.expiryMonth),
      expiry_year: Number(read.expiryYear),
      profile: known?.profile ?? 'approve',
    },
    bank: null,
    gift_last4: null,
    terminal: terminalFacts(p.req.terminal!.laneid, read, outcome.authorization_code, tip),
    email: p.req.contact?.email ?? order?.data.billing_email ?? null,
    from_account: read.cardholderName ?? order?.data.billing_name ?? null,
    created_by: p.actor,
    transaction_reference: p.reference,
    key,
    unique_reference: p.retryKey,
    request_fingerprint: p.requestFingerprint,
    parent: null,
    settlement_token: settlementTokenFor(ctx, 'pos_terminal', order?.data.settlement_token ?? null),
    outcome,
    fee_exempt: p.req.fee_exempt === true,
    sec_code: null,
    industry: p.req.industry ?? 'retail',
    device: p.req.device ?? null,
  });
  if (order) await ctx.orders.putInTx(tx, order);
  await putTx(tx, data, true);
  return data;
}

/** Has the device show the outcome (and keeps the signature it collects); an approval it cannot confirm is reversed. */
async function confirmOnDevice(ctx: GatewayContext, port: CardPresentPort, request: CardPresentRequest, recorded: TxData): Promise<TransactionResult> {
  const approved = recorded.outcome.approved && recorded.state === 'completed';
  try {
    const done = await port.complete(request, {
      approved,
      ...(recorded.outcome.authorization_code ? { authorizationCode: recorded.outcome.authorization_code } : {}),
      message: approved ? 'APPROVED' : 'DECLINED',
    });
    if (approved && done.signature) {
      const signature = done.signature;
      const signed = await ctx.core.mutate(async (tx) => {
        const t = await getTx(tx, recorded.token);
        if (!t || !t.terminal) return recorded;
        const next: TxData = { ...t, terminal: { ...t.terminal, signature: { media_type: signature.mediaType, data: signature.data } }, updated_at: tx.at };
        await putTx(tx, next, false);
        return next;
      });
      return resultOf(ctx, signed);
    }
    return resultOf(ctx, recorded);
  } catch {
    if (!approved) return resultOf(ctx, recorded);
    return resultOf(ctx, await ctx.core.mutate((tx) => reverseUnconfirmed(tx, recorded)));
  }
}

/** The device did not confirm an approval: the outcome at the counter is unknown, so nothing is charged. */
async function reverseUnconfirmed(tx: Tx, recorded: TxData): Promise<TxData> {
  const t = (await getTx(tx, recorded.token)) ?? recorded;
  const code = responseCodeFor('terminal_unconfirmed');
  const message = 'REVERSED: the terminal did not confirm the payment; nothing was charged';
  const next: TxData = {
    ...t,
    state: 'cancelled',
    settlement: { ...t.settlement, status: t.settlement.status === 'pending' ? 'voided' : t.settlement.status },
    due: null,
    due_at: 0,
    auth: t.auth ? { ...t.auth, voided_cents: t.auth.voided_cents + remainingOf(t.auth), status: 'voided' } : null,
    outcome: { ...t.outcome, approved: false, response_code: code.code, error_code: 'terminal_unconfirmed', message, errors: { terminal: [message] } },
    terminal: t.terminal ? { ...t.terminal, reversal: 'device_unconfirmed' } : null,
    // Nothing was charged, so the same request may be tried again: the retry key is freed (the
    // client's unique_reference is still shown, as sent).
    unique_reference: clientReferenceOf(t),
    retry_key: null,
    updated_at: tx.at,
  };
  await putTx(tx, next, false);
  return next;
}

/**
 * A capture or refund of an earlier card payment, on a lane: the customer presents the card of the
 * original payment (a refund goes back to the card it came from; a capture may add a tip), then
 * the operation runs on the prior transaction as without a terminal. Its amount is checked by the
 * same rule first, so a lane is never asked for a card the operation would refuse. When the device
 * cannot confirm an approved capture or refund, it is voided at once, as for a sale.
 */
export async function cardPresentPriorOp(deps: CardPresentDeps, action: 'capture' | 'refund', req: TransactionRequest, actor: string | null, token?: string): Promise<TransactionResult> {
  const { ctx } = deps;
  const port = requirePort(deps);
  const prepared = preparePriorOp(action, req, actor);
  const parent = await requireTx(ctx.core, prepared.parent);
  requireParentCurrency(parent, prepared);
  if (!parent.card) throw fail.gateway('unsupported_payment_method', `Transaction ${parent.token} was not paid by card: a terminal ${action} needs a card payment`);
  const amount = action === 'capture' ? captureAmount(parent, prepared.amount, ctx.core.clock.now()) : refundAmount(parent, prepared.amount);

  const request: CardPresentRequest = {
    requestId: `${parent.token}.${action}.${ctx.core.ids.token()}`,
    laneId: req.terminal!.laneid,
    kind: action,
    amountCents: amount,
    currency: parent.currency,
    enableManualEntry: req.terminal!.enable_manual_entry === true,
  };
  const read = await readOnLane(port, request);
  const sameCard = read.pan.slice(0, 6) === parent.card.bin && read.pan.slice(-4) === parent.card.last4;
  read.pan = '';
  const tip = action === 'capture' ? tipOf(read) : 0;
  if (!sameCard) {
    await port.complete(request, { approved: false, message: 'NOT THE ORIGINAL CARD' }).catch(() => undefined);
    throw fail.gateway('card_mismatch', `The card presented is not the card of ${parent.token}: present the card it was paid with`);
  }

  let result: TransactionResult;
  try {
    result = await ctx.core.mutate(async (tx) => {
      const r = await priorOpInTx(ctx, tx, { ...prepared, amount: amount + tip, ...(token ? { token } : {}) });
      const t = await getTx(tx, r.body.transaction);
      if (t && !t.terminal) await putTx(tx, { ...t, terminal: terminalFacts(request.laneId, read, t.outcome.authorization_code, tip) }, false);
      return r;
    });
  } catch (err) {
    await port.complete(request, { approved: false, message: 'NOT COMPLETED' }).catch(() => undefined);
    throw err;
  }
  try {
    await port.complete(request, { approved: result.approved, message: result.approved ? 'APPROVED' : 'DECLINED' });
    return result;
  } catch {
    if (!result.approved) return result;
    // The device could not confirm: undo the capture or refund (same processing day, so a void).
    await ctx.core.mutate((tx) => priorOpInTx(ctx, tx, { action: 'void', amount: null, parent: result.body.transaction, reference: null, retryKey: null, actor }));
    const voided = await getTx(ctx.core, result.body.transaction);
    return voided ? resultOf(ctx, { ...voided, state: 'cancelled' }) : result;
  }
}
