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
import { remainingOf, type TxData } from './transaction-record';
import type { UnitBatcher } from './unit-batcher';
import {
  findByUnique,
  fingerprintOf,
  getTx,
  holdExpiry,
  newTxToken,
  parseAmount,
  processingDay,
  putTx,
  resolveCurrency,
  resultOf,
  settlementTokenFor,
  uniqueKey,
  type GatewayContext,
  type TransactionResult,
} from './context';

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
export type TerminalAction = 'sale' | 'authorize' | 'capture' | 'credit';

const KIND: Record<TerminalAction, CardPresentKind> = { sale: 'sale', authorize: 'auth', capture: 'capture', credit: 'credit' };

const DEVICE_CODES = new Set(['lane_not_found', 'lane_offline', 'device_busy', 'cancelled', 'card_removed', 'timeout', 'device_error']);

export interface CardPresentDeps {
  ctx: GatewayContext;
  batcher: UnitBatcher;
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

/**
 * The lanes take a request id of 1 to 56 letters, digits, `.`, `_`, `-`; an idempotency key
 * (`sale/<order>/<transaction_reference>`) is not one, so it is hashed into one (the same key, the
 * same id: a retry is still recognised by the device).
 */
export function deviceRequestId(key: string): string {
  return /^[A-Za-z0-9._-]{1,56}$/.test(key) ? key : createHash('sha256').update(key).digest('hex').slice(0, 40);
}

export async function cardPresentPayment(deps: CardPresentDeps, action: TerminalAction, req: TransactionRequest, actor: string | null): Promise<TransactionResult> {
  const { ctx, batcher } = deps;
  if (!ctx.account.can('card_present_emv')) throw fail.gateway('capability_disabled', 'This account is not enabled for card-present EMV');
  const port = deps.port();
  if (!port) throw fail.gateway('terminal_unavailable', 'No card-present terminal driver is running on this install');
  if ([req.fund_token, req.credit_card, req.bank_account, req.gift_card, req.transaction].some((v) => v !== undefined && v !== null)) {
    throw fail.gateway('payment_method_conflict', 'A terminal payment reads its card on the lane: send no other payment method or prior transaction');
  }
  const terminal = req.terminal!;
  const amount = parseAmount(req.amount_cents, { required: true, allowZero: false })!;
  const reference = typeof req.transaction_reference === 'string' && req.transaction_reference.trim() ? req.transaction_reference.trim() : null;
  const orderInput: string | OrderInput | null = req.order ?? null;
  const requestFingerprint = fingerprintOf([action, amount, 'terminal', terminal.laneid]);

  // Checks before the device is involved (nothing written): order, currency, a finished twin.
  const pre = await ctx.core.mutate(async (tx) => {
    const order = orderInput ? await ctx.orders.resolveInTx(tx, orderInput, { amountCents: amount, currency: (req.currency ?? ctx.account.profile().currency).toLowerCase() }) : null;
    const currency = resolveCurrency(ctx, req.currency, order?.data.currency);
    settlementTokenFor(ctx, 'pos_terminal', order?.data.settlement_token ?? null);
    const key = uniqueKey(action, order?.data.identifier ?? null, reference);
    const prior = key ? await findByUnique(tx, ctx.core, key) : undefined;
    return { currency, key, prior };
  });
  if (pre.prior) {
    if (pre.prior.request_fingerprint !== requestFingerprint) throw fail.gateway('duplicate_transaction_reference', `transaction_reference ${reference} was already used for a different ${action} on this order`);
    return resultOf(ctx, pre.prior);
  }
  const flightKey = pre.key ?? ctx.core.ids.token();
  const running = deps.inflight.get(flightKey);
  if (running) return running;

  const run = (async (): Promise<TransactionResult> => {
    const request: CardPresentRequest = {
      requestId: deviceRequestId(flightKey),
      laneId: terminal.laneid,
      kind: KIND[action],
      amountCents: amount,
      currency: pre.currency,
      enableManualEntry: terminal.enable_manual_entry === true,
    };
    let read: CardRead | undefined;
    try {
      read = await port.readCard(request);
    } catch (err) {
      if (isEngineError(err) && DEVICE_CODES.has(err.code)) throw fail.gateway(err.code, err.message);
      throw fail.gateway('device_error', 'The terminal could not read a card');
    }

    const record = () => batcher.run(async (tx) => {
      const order = orderInput ? await ctx.orders.resolveInTx(tx, orderInput, { amountCents: amount, currency: pre.currency }) : null;
      const key = uniqueKey(action, order?.data.identifier ?? null, reference);
      const prior = key ? await findByUnique(tx, ctx.core, key) : undefined;
      if (prior) return prior;
      const p = ctx.account.profile();
      const decision = decide(read!, amount, tx.now, p.timezone);
      const approved = decision.approved;
      const day = processingDay(ctx, tx.now);
      const financial = approved && action !== 'authorize';
      const pan = read!.pan;
      const known = testCard(pan);
      const holdUntil = action === 'authorize' && approved ? holdExpiry(ctx, tx.now) : 0;
      const outcome = outcomeOf(decision, ctx.core.ids, { avs: null, cvv: null });
      const data: TxData = {
        token: newTxToken(ctx, tx.now),
        action,
        state: approved ? 'completed' : 'declined',
        amount_cents: amount,
        currency: pre.currency,
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
          expiry_month: Number(read!.expiryMonth),
          expiry_year: Number(read!.expiryYear),
          profile: known?.profile ?? 'approve',
        },
        bank: null,
        gift_last4: null,
        terminal: {
          laneid: terminal.laneid,
          entry_mode: read!.entryMode,
          aid: read!.emv?.aid ?? null,
          application_label: read!.emv?.applicationLabel ?? null,
          tvr: read!.emv?.tvr ?? null,
          tsi: read!.emv?.tsi ?? null,
          cardholder_verification: read!.cvm,
          authorization_code: outcome.authorization_code,
          signature: null,
          reversal: null,
        },
        email: req.contact?.email ?? order?.data.billing_email ?? null,
        from_account: read!.cardholderName ?? order?.data.billing_name ?? null,
        created_by: actor,
        created_at: tx.at,
        updated_at: tx.at,
        transaction_reference: reference,
        unique_reference: approved ? key : null,
        request_fingerprint: requestFingerprint,
        parent: null,
        processing_date: day.date,
        cutoff_at: day.cutoffAt,
        settlement_token: settlementTokenFor(ctx, 'pos_terminal', order?.data.settlement_token ?? null),
        settlement: { status: financial ? 'pending' : 'none', batch: null, settled_at: null },
        due: financial ? 'batch' : holdUntil ? 'hold' : null,
        due_at: financial ? day.cutoffAt : holdUntil,
        outcome,
        auth: holdUntil ? { authorized_cents: amount, captured_cents: 0, voided_cents: 0, released_cents: 0, hold_expires_at: holdUntil, status: 'open' } : null,
        refunded_cents: 0,
        voided_by: null,
        payments: [],
        fee_exempt: req.fee_exempt === true,
        sec_code: null,
        industry: req.industry ?? 'retail',
        device: req.device ?? null,
      };
      if (order) await ctx.orders.putInTx(tx, order);
      await putTx(tx, data, true);
      return data;
    });
    let recorded: TxData;
    try {
      recorded = await record();
    } catch (err) {
      // Nothing was authorized: release the device, which is waiting to show an outcome.
      await port.complete(request, { approved: false, message: 'NOT COMPLETED' }).catch(() => undefined);
      throw err;
    } finally {
      // The card number is not needed past the authorization.
      read.pan = '';
    }

    const approved = recorded.outcome.approved && recorded.state === 'completed';
    try {
      const done = await port.complete(request, {
        approved,
        ...(recorded.outcome.authorization_code ? { authorizationCode: recorded.outcome.authorization_code } : {}),
        message: approved ? 'APPROVED' : 'DECLINED',
      });
      if (approved && done.signature) {
        const signed = await batcher.run(async (tx) => {
          const t = await getTx(tx, recorded.token);
          if (!t || !t.terminal) return recorded;
          const next: TxData = { ...t, terminal: { ...t.terminal, signature: { media_type: done.signature!.mediaType, data: done.signature!.data } }, updated_at: tx.at };
          await putTx(tx, next, false);
          return next;
        });
        return resultOf(ctx, signed);
      }
      return resultOf(ctx, recorded);
    } catch {
      if (!approved) return resultOf(ctx, recorded);
      const reversed = await batcher.run(async (tx) => {
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
          // Nothing was charged, so the same request may be tried again.
          unique_reference: null,
          updated_at: tx.at,
        };
        await putTx(tx, next, false);
        return next;
      });
      return resultOf(ctx, reversed);
    }
  })();
  deps.inflight.set(flightKey, run);
  try {
    return await run;
  } finally {
    deps.inflight.delete(flightKey);
  }
}
