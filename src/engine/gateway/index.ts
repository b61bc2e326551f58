import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail } from '../errors';
import type { CardPresentPort } from '../card-present';
import type { Orders } from '../orders';
import type { Wallets } from '../wallets';
import type { GiftCards } from '../wallets/gift-cards';
import type { Keyer } from '../wallets/instruments';
import type { OrderTransactionView, TransactionRequest } from '../../shared/schemas/gateway';
import { ProcessingCalendar, processingDay, type ProcessingDay } from './processing-day';
import { gatewayGuard, type GatewayContext, type ReversalCheck, type ReversalGate, type ReversalObserver } from './context';
import { throughReversalGate } from './reversal-gate';
import { getTx, getTxByClientReference, getTxByReference, putTx } from './transaction-store';
import { type TransactionResult } from './results';
import { chargeInTx, prepareCharge, type CardChecks, type ChargeAction } from './payment-method-ops';
import { applyRemoteReversalInTx, priorOpInTx, preparePriorOp, type PriorTransactionAction } from './prior-transaction-ops';
import { cardPresentPriorOp, cardPresentPayment, type TerminalAction } from './card-present-flow';
import { closeDay, runDue, settlementReader, touchBatch, type SettlementBatch, type SettlementReader } from './settlement';
import { allBins, lookupBin, responseCodes, type BinRecord } from './reference-data';
import { transactionView, type TxData } from './transaction-record';
import { ORDERS, hydrateOrder, type OrderDoc } from '../orders/order-record';

export type { TransactionResult } from './results';
export type { CardChecks } from './payment-method-ops';
export type { TxData } from './transaction-record';
export { voidRefusal } from './transaction-record';
export type { ReversalCheck, ReversalGate } from './context';
export type { SettlementBatch, SettlementException, SettlementReader } from './settlement';

export type GatewayAction = ChargeAction | PriorTransactionAction;

export interface Gateway {
  /**
   * One order transaction (POST /api/gateway/v1/orders/{action}). Resolves with the outcome
   * (`approved: false` is a decline, HTTP 200); rejects with a gateway error (HTTP 500) when the
   * request cannot be carried out. `actor` is the credential token (`created_by_user`). `checks`:
   * the AVS and CVV answers an engine caller found for the stored card it charges (CardChecks).
   */
  transact(action: GatewayAction, request: TransactionRequest, actor: string | null, checks?: CardChecks): Promise<TransactionResult>;
  /**
   * Asks the processor whether it answers, without a transaction (the register's reachability
   * check). Resolves when it does; rejects with the gateway error its absence gives
   * (`processor_unavailable`, `processor_unreachable`, `processor_timeout`...).
   */
  probeProcessor(): Promise<void>;
  /**
   * A transaction by token, then by the client's unique_reference (the most recent of those sharing
   * it: getTxByClientReference); undefined when neither matches.
   */
  view(tokenOrReference: string): Promise<OrderTransactionView | undefined>;
  /** The stored record (for other domains: receipts, reports). */
  record(token: string): Promise<TxData | undefined>;
  /** The stored record of the request sent with this transaction_reference (no order), undefined if none reached the gateway. */
  recordByReference(action: GatewayAction, reference: string): Promise<TxData | undefined>;
  /** Runs the clock-driven work due at `now` (also registered as the `gateway.due` tick task). */
  runDue(now: number): Promise<number>;
  /** Closes the current processing day's card batch now, before its cut-off (a register's Z). */
  closeDay(now: number): Promise<SettlementBatch[]>;
  settlement: SettlementReader;
  responseCodes(): Array<{ code: number; description: string }>;
  bins(): BinRecord[];
  bin(bin: string): BinRecord | undefined;
  /** The lanes' card-present driver (optional; without it terminal requests fail `terminal_unavailable`). */
  setCardPresent(port: CardPresentPort | undefined): void;
  /** Work another domain does in the unit of work of every approved refund or void (see GatewayContext). */
  onReversalInTx(observer: ReversalObserver): void;
  /** A check another domain makes in the unit of work of a refund or void of a payment, before anything is written (throw to refuse). */
  onReversalCheckInTx(check: ReversalCheck): void;
  /**
   * A lane: a refund or void its hub made of one of its payments (pulled down), taken on its copy
   * of the payment, and told to the other domains as this gateway's own (the register's X and Z).
   * The reversal itself is the hub's transaction (in the hub's batch): it is not stored here.
   */
  applyRemoteReversalInTx(tx: Tx, made: TxData): Promise<void>;
  /** A lane's hub agreement for its refunds and voids (undefined: none needed). */
  setReversalGate(gate: ReversalGate | undefined): void;
  /** The processing day a transaction made now belongs to, and when its batch closes (a kept cut-off included). */
  openProcessingDay(): ProcessingDay;
  /**
   * Work another domain does in the unit of work that links a payment to a sale which already gave
   * money back (refunded or voided before its payment was linked: the reversal observers found no
   * payment to take it off then).
   */
  onLinkedAfterReversalInTx(observer: (tx: Tx, sale: TxData) => Promise<void>): void;
  /** Records an invoicing payment made with a transaction (autopay, a pay link), for the transaction's `payments`. */
  linkPayment(token: string, payment: { identifier: string; amount_cents: number }): Promise<void>;
}

export function createGateway(deps: {
  core: EngineCore;
  account: Account;
  orders: Orders;
  wallets: Wallets;
  giftCards: GiftCards;
  keyer: Keyer;
  cardPresent?: CardPresentPort;
}): Gateway {
  const ctx: GatewayContext = {
    core: deps.core,
    account: deps.account,
    orders: deps.orders,
    wallets: deps.wallets,
    giftCards: deps.giftCards,
    keyer: deps.keyer,
    calendar: new ProcessingCalendar(),
    reversalObservers: [],
    reversalChecks: [],
  };
  let cardPresent = deps.cardPresent;
  const linkedAfterReversal: Array<(tx: Tx, sale: TxData) => Promise<void>> = [];
  const inflight = new Map<string, Promise<TransactionResult>>();

  deps.core.onTick('gateway.due', async (now) => {
    await runDue(ctx, now);
  });

  const viewOf = (t: TxData) => transactionView(t, { accountName: ctx.account.profile().name });

  return {
    async probeProcessor() {
      // The sandbox processor runs in this process: it answers whenever the gateway does.
      gatewayGuard(ctx);
    },
    async transact(action, request, actor, checks) {
      gatewayGuard(ctx);
      if (request.terminal) {
        if (action === 'verify' || action === 'void') {
          throw fail.gateway('unsupported_payment_method', `A ${action} does not take a terminal: ${action === 'verify' ? 'verify a card by reading it in a sale or authorization' : 'send the prior transaction'}`);
        }
        const deps = { ctx, port: () => cardPresent, inflight };
        // A capture or refund on a lane confirms with the card of the original payment.
        if (action === 'refund') return throughReversalGate(ctx, action, request, (token) => cardPresentPriorOp(deps, action, request, actor, token));
        if (action === 'capture') return cardPresentPriorOp(deps, action, request, actor);
        return cardPresentPayment(deps, action as TerminalAction, request, actor);
      }
      if (action === 'capture' || action === 'refund' || action === 'void') {
        const prepared = preparePriorOp(action, request, actor);
        if (action === 'capture') return deps.core.mutate((tx) => priorOpInTx(ctx, tx, prepared));
        return throughReversalGate(ctx, action, request, (token) => deps.core.mutate((tx) => priorOpInTx(ctx, tx, token ? { ...prepared, token } : prepared)));
      }
      const prepared = { ...prepareCharge(ctx, action, request, actor), ...(checks ? { checks } : {}) };
      const source = prepared.source;
      // A gift card's PIN is checked (and the attempt counted) before the unit of work: its slow
      // hash must not hold up the write queue.
      if (source.kind === 'gift' && !source.token && source.card_number) {
        const attempt = await deps.giftCards.attemptPin(source.card_number.replace(/[\s-]/g, ''), source.pin);
        if (attempt) source.attempt = attempt;
      }
      return deps.core.mutate((tx) => chargeInTx(ctx, tx, prepared));
    },

    async view(tokenOrReference) {
      const direct = await getTx(deps.core, tokenOrReference);
      const t = direct ?? (await getTxByClientReference(deps.core, tokenOrReference));
      if (!t) return undefined;
      // The order as it is now (its number or amount may have been updated since).
      const order = t.order ? hydrateOrder(await deps.core.get<OrderDoc>(ORDERS, t.order.identifier))?.data : undefined;
      return order
        ? transactionView(t, { accountName: ctx.account.profile().name, order: { identifier: order.identifier, number: order.number, amount_cents: order.amount_cents } })
        : viewOf(t);
    },

    openProcessingDay: () => processingDay(ctx, deps.core.clock.now()),
    record: (token) => getTx(deps.core, token),
    recordByReference: (action, reference) => getTxByReference(deps.core, action, reference),
    runDue: (now) => runDue(ctx, now),
    closeDay: (now) => closeDay(ctx, now),
    settlement: settlementReader(deps.core),
    responseCodes: () => responseCodes().map(({ code, description }) => ({ code, description })),
    bins: allBins,
    bin: (b) => lookupBin(b),
    onReversalInTx(observer) {
      ctx.reversalObservers.push(observer);
    },
    onReversalCheckInTx(check) {
      ctx.reversalChecks.push(check);
    },
    setReversalGate(gate) {
      ctx.reversalGate = gate;
    },
    applyRemoteReversalInTx: (tx, made) => applyRemoteReversalInTx(ctx, tx, made),
    setCardPresent(port) {
      cardPresent = port;
    },
    onLinkedAfterReversalInTx(observer) {
      linkedAfterReversal.push(observer);
    },
    async linkPayment(token, payment) {
      await deps.core.mutate(async (tx) => {
        const t = await getTx(tx, token);
        if (!t || t.payments.some((p) => p.identifier === payment.identifier)) return;
        const linked: TxData = { ...t, payments: [...t.payments, payment], updated_at: tx.at };
        await putTx(tx, linked, false);
        // The batch's answer lists its transactions' payments: a batched one's batch changes with it.
        if (linked.settlement.batch) await touchBatch(tx, linked.settlement.batch, { reason: 'payment_linked', transaction: token });
        // A refund or void between the sale and this link (a stop before the payment was recorded or
        // linked) came off no payment: it comes off now, or the invoice stays paid with the money given back.
        if (linked.refunded_cents > 0 || linked.voided_by) for (const observe of linkedAfterReversal) await observe(tx, linked);
      });
    },
  };
}

