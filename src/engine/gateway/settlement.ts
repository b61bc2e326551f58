import type { EngineCore, Tx } from '../core';
import { addDays } from '../clock';
import { getRecord, putRecord, recordsSince, type RecordDoc } from '../records';
import { BANK_RETURN_DAYS, BANK_SETTLE_DAYS, CHARGEBACK_DAYS, chargedBack } from './sandbox/test-data';
import { addBusinessDays, addToBooks, chargebackDescription, sandboxFees, type BatchBooks, type BatchFee } from './settlement-books';
import { responseCodeFor } from './reference-data';
import { TRANSACTIONS, remainingOf, type TxData, type TxDoc } from './transaction-record';
import { getTx, putTx } from './transaction-store';
import { processingDay } from './processing-day';
import { type GatewayContext } from './context';

/**
 * The clock's work on transactions, run by the `gateway.due` tick task: each transaction carries
 * the next instant (`due_at`) at which something happens to it.
 *   batch       the processing day's cut-off: a card sale, capture, refund or credit (or an ACH/EFT
 *               one) closes into that day's settlement batch; from then on a void is impossible.
 *   hold        an authorization's hold ends: whatever is still reserved is released.
 *   bank_settle an ACH/EFT transaction settles (in_progress -> completed) one processing day later.
 *   bank_return the sandbox return account is returned R01 three days after its processing day:
 *               state completed_but_nsfed and a settlement exception.
 *
 * Settlement batches (records kind `settlement_batch`, key = batch id, ref = processing date) and
 * exceptions (kind `settlement_exception`, key = transaction token, ref = exception date) are what
 * the settlement reports (daily batch deposits, transaction exceptions) read.
 */
/** The reference's batch net: sales less refunds, less the batch's fees. */
export const netOfFees = (b: Pick<SettlementBatch, 'sales_cents' | 'refunds_cents' | 'fees_cents'>): number => b.sales_cents - b.refunds_cents - (b.fees_cents ?? 0);

export interface SettlementBatch extends BatchBooks {
  /** `<processing date>-<settlement token>-<currency>` */
  token: string;
  merchant_account_token: string;
  processing_date: string;
  batch_close_date: string;
  batch_deposit_date: string;
  cutoff_at: string;
  closed_at: string;
  currency: string;
  deposit_currency: string;
  payment_method_group: 'card' | 'bank' | 'terminal';
  transaction_count: number;
  sales_count: number;
  sales_cents: number;
  refunds_count: number;
  refunds_cents: number;
  /**
   * Stored as sales - refunds (may be negative): what the register's Z ties its card sales to. The
   * API's `batch_net_amount_cents` is the reference's "amount, less fees": netOfFees().
   */
  batch_net_amount_cents: number;
  fee_withdrawal_amount_cents: number;
  deposit_amount_cents: number;
  fees: BatchFee[];
  /** Set when the batch was closed before its cut-off (an end-of-day Z): it takes nothing more. */
  closed_early_at?: string;
}

export interface SettlementException {
  exception_type: 'return' | 'chargeback';
  /** A chargeback's reason code (card networks'). */
  reason_code?: string;
  exception_description: string;
  exception_date: string;
  exception_amount_in_cents: number;
  return_code: string;
  response_code: number;
  exception_transaction: {
    token: string;
    transaction_reference: string | null;
    amount_in_cents: number;
    currency: string;
    payment_method: string;
    settlement_token: string;
    action: string;
    processing_date: string;
    order?: { identifier: string; number: string | null } | null;
  };
}

export const BATCH = 'settlement_batch';
export const EXCEPTION = 'settlement_exception';

const CHUNK = 500;

function group(t: TxData): SettlementBatch['payment_method_group'] {
  return t.payment_method === 'bank_account' ? 'bank' : t.payment_method === 'pos_terminal' ? 'terminal' : 'card';
}

export function batchId(t: TxData): string {
  return `${t.processing_date}-${t.settlement_token}-${t.currency}`;
}

async function closeIntoBatch(ctx: GatewayContext, tx: Tx, t: TxData, batches: Map<string, SettlementBatch>, earlyAt?: string): Promise<TxData> {
  // A batch closed early is final: the processing day's later transactions go to a follow-on batch
  // (`<id>-2`, `-3`...), closed at the cut-off or by the next early close.
  const base = batchId(t);
  let id = base;
  let batch: SettlementBatch | undefined;
  for (let n = 2; ; n++) {
    batch = batches.get(id);
    if (batch) break;
    batch = (await getRecord<SettlementBatch>(tx, BATCH, id))?.data;
    if (!batch?.closed_early_at) break;
    id = `${base}-${n}`;
  }
  if (!batch) {
    const bank = group(t) === 'bank';
    batch = {
      token: id,
      merchant_account_token: t.settlement_token,
      processing_date: t.processing_date,
      batch_close_date: t.processing_date,
      batch_deposit_date: addBusinessDays(t.processing_date, bank ? BANK_SETTLE_DAYS : 1),
      cutoff_at: new Date(t.cutoff_at).toISOString(),
      closed_at: tx.at,
      currency: t.currency,
      deposit_currency: t.currency,
      payment_method_group: group(t),
      transaction_count: 0,
      sales_count: 0,
      sales_cents: 0,
      refunds_count: 0,
      refunds_cents: 0,
      batch_net_amount_cents: 0,
      fee_withdrawal_amount_cents: 0,
      deposit_amount_cents: 0,
      fees: [],
      ...(earlyAt ? { closed_early_at: earlyAt } : {}),
    };
  } else batch = { ...batch };
  const outgoing = t.action === 'refund' || t.action === 'credit';
  batch.transaction_count += 1;
  if (outgoing) {
    batch.refunds_count += 1;
    batch.refunds_cents += t.amount_cents;
  } else {
    batch.sales_count += 1;
    batch.sales_cents += t.amount_cents;
  }
  addToBooks(batch, t);
  batch.fees = sandboxFees(batch, batch.fee_basis ?? { sales_count: 0, sales_cents: 0 });
  batch.fees_cents = batch.fees.reduce((sum, f) => sum + f.fee_amount_cents, 0);
  batch.batch_net_amount_cents = batch.sales_cents - batch.refunds_cents;
  // The sandbox's fees come out of the deposit; fee_withdrawal_amount_cents stays for fees taken separately (none).
  batch.deposit_amount_cents = batch.batch_net_amount_cents - batch.fees_cents - batch.fee_withdrawal_amount_cents;
  batches.set(id, batch);

  const p = ctx.account.profile();
  const bank = t.payment_method === 'bank_account';
  const chargeback = !bank && !outgoing && chargedBack(t.amount_cents);
  return {
    ...t,
    settlement: { ...t.settlement, status: 'batched', batch: id },
    due: bank ? 'bank_settle' : chargeback ? 'chargeback' : null,
    due_at: bank || chargeback ? ctx.calendar.cutoffAfter(t.processing_date, bank ? BANK_SETTLE_DAYS : CHARGEBACK_DAYS, p) : 0,
  };
}

/**
 * A batch's answer (GET /api/gateway/v1/settlement/batches) shows its transactions and their
 * returns and chargebacks. When one of those changes after the batch closed (an exception is
 * added, a payment is linked to one of its transactions), the batch is written again as it is: a
 * new watermark and a `settlement_batch.updated` event, so a client polling by watermark sees it.
 */
export async function touchBatch(tx: Tx, id: string, why: { reason: string; transaction: string }): Promise<void> {
  const rec = await getRecord<SettlementBatch>(tx, BATCH, id);
  if (!rec) return;
  await putRecord(tx, BATCH, id, rec.data, { type: 'settlement_batch.updated', entity: 'settlement_batch', key: id, data: why }, rec.ref);
}

async function process(ctx: GatewayContext, tx: Tx, t: TxData, batches: Map<string, SettlementBatch>, touched: Map<string, { reason: string; transaction: string }>): Promise<TxData | undefined> {
  const p = ctx.account.profile();
  switch (t.due) {
    case 'batch':
      return closeIntoBatch(ctx, tx, t, batches);
    case 'hold': {
      if (!t.auth) return { ...t, due: null, due_at: 0 };
      const left = remainingOf(t.auth);
      const auth = { ...t.auth, released_cents: t.auth.released_cents + Math.max(0, left) };
      if (left > 0) auth.status = 'released';
      return { ...t, auth, due: null, due_at: 0 };
    }
    case 'bank_settle': {
      const returns = t.bank?.profile === 'ach_returns' && t.action === 'sale';
      return {
        ...t,
        state: t.state === 'in_progress' ? 'completed' : t.state,
        settlement: { ...t.settlement, status: 'settled', settled_at: tx.at },
        due: returns ? 'bank_return' : null,
        due_at: returns ? ctx.calendar.cutoffAfter(t.processing_date, BANK_RETURN_DAYS, p) : 0,
      };
    }
    case 'bank_return': {
      const code = responseCodeFor('ach_return_r01');
      const date = addDays(t.processing_date, BANK_RETURN_DAYS);
      const exception: SettlementException = {
        exception_type: 'return',
        exception_description: 'R01 Insufficient funds',
        exception_date: date,
        exception_amount_in_cents: t.amount_cents,
        return_code: 'R01',
        response_code: code.code,
        exception_transaction: exceptionTransaction(t),
      };
      await putRecord(tx, EXCEPTION, t.token, exception, { type: 'settlement_exception.created', entity: 'settlement_exception', key: t.token, data: { exception_type: 'return', amount_cents: t.amount_cents } }, date);
      if (t.settlement.batch) touched.set(t.settlement.batch, { reason: 'return', transaction: t.token });
      return { ...t, state: 'completed_but_nsfed', settlement: { ...t.settlement, status: 'returned' }, due: null, due_at: 0 };
    }
    case 'chargeback': {
      const left = t.amount_cents - t.refunded_cents;
      if (left <= 0 || t.state !== 'completed') return { ...t, due: null, due_at: 0 };
      const date = addDays(t.processing_date, CHARGEBACK_DAYS);
      const reason = chargebackDescription();
      const exception: SettlementException = {
        exception_type: 'chargeback',
        exception_description: reason.description,
        exception_date: date,
        exception_amount_in_cents: left,
        reason_code: reason.reason_code,
        return_code: reason.reason_code,
        response_code: responseCodeFor(null).code,
        exception_transaction: exceptionTransaction(t),
      };
      await putRecord(tx, EXCEPTION, t.token, exception, { type: 'settlement_exception.created', entity: 'settlement_exception', key: t.token, data: { exception_type: 'chargeback', amount_cents: left } }, date);
      if (t.settlement.batch) touched.set(t.settlement.batch, { reason: 'chargeback', transaction: t.token });
      return { ...t, charged_back_cents: left, due: null, due_at: 0 };
    }
    default:
      return { ...t, due: null, due_at: 0 };
  }
}

function exceptionTransaction(t: TxData): SettlementException['exception_transaction'] {
  return {
    token: t.token,
    transaction_reference: t.transaction_reference,
    amount_in_cents: t.amount_cents,
    currency: t.currency,
    payment_method: t.payment_method,
    settlement_token: t.settlement_token,
    action: t.action,
    processing_date: t.processing_date,
    order: t.order ? { identifier: t.order.identifier, number: t.order.number } : null,
  };
}

/** Runs everything due up to `now`, in chunks of one unit of work each. Idempotent. */
export async function runDue(ctx: GatewayContext, now: number): Promise<number> {
  const { core } = ctx;
  let done = 0;
  // Until nothing is due: one pass may make the next step due too (a batch closed days late whose
  // settlement date has also passed).
  for (let pass = 0; pass < 10_000; pass++) {
    const due = await core.find<TxDoc>(TRANSACTIONS, { selector: { due_at: { $gt: 0, $lte: now } }, sort: [{ due_at: 'asc' }], limit: CHUNK });
    if (due.length === 0) return done;
    await core.mutate(async (tx) => {
      const batches = new Map<string, SettlementBatch>();
      // Closed batches whose answer this unit changed (an exception added): written once each, after.
      const touched = new Map<string, { reason: string; transaction: string }>();
      for (const doc of due) {
        // Re-read inside the unit: a request may have changed it since the query.
        const t = await getTx(tx, doc.id);
        if (!t || !t.due || t.due_at === 0 || t.due_at > now) continue;
        const next = await process(ctx, tx, t, batches, touched);
        if (next) await putTx(tx, { ...next, updated_at: tx.at }, false);
      }
      for (const [id, batch] of batches) {
        await putRecord(tx, BATCH, id, batch, { type: 'settlement_batch.closed', entity: 'settlement_batch', key: id, data: { net_cents: batch.batch_net_amount_cents, count: batch.transaction_count } }, batch.processing_date);
      }
      for (const [id, why] of touched) if (!batches.has(id)) await touchBatch(tx, id, why);
    });
    done += due.length;
  }
  return done;
}

const CARD_METHODS = new Set(['credit_card', 'pos_terminal']);

/**
 * Closes the current processing day's card batch now, before its cut-off (the register's Z report
 * at the end of the day): every card sale, capture, refund and credit still waiting for the day's
 * cut-off closes into the day's batch, which is marked `closed_early_at`; from then on they can no
 * longer be voided (refund them instead). Card transactions made later that processing day close
 * into a follow-on batch. Bank (ACH/EFT) transactions keep the day's cut-off. Returns the batches
 * this call closed.
 */
export async function closeDay(ctx: GatewayContext, now: number): Promise<SettlementBatch[]> {
  const { core } = ctx;
  // Anything already overdue (the tick may not have run yet) goes its normal way first.
  await runDue(ctx, now);
  const day = processingDay(ctx, now);
  // One map for the whole call: a day of more than one chunk still closes into one batch.
  const closed = new Map<string, SettlementBatch>();
  let skip = 0;
  for (;;) {
    const due = await core.find<TxDoc>(TRANSACTIONS, { selector: { due_at: day.cutoffAt }, sort: [{ due_at: 'asc' }], skip, limit: CHUNK });
    const cards = due.filter((d) => d.data.due === 'batch' && CARD_METHODS.has(d.data.payment_method));
    skip += due.length - cards.length;
    if (cards.length > 0) {
      await core.mutate(async (tx) => {
        const batches = new Map(closed);
        for (const doc of cards) {
          const t = await getTx(tx, doc.id);
          if (!t || t.due !== 'batch' || t.due_at !== day.cutoffAt) continue;
          const next = await closeIntoBatch(ctx, tx, t, batches, tx.at);
          await putTx(tx, { ...next, updated_at: tx.at }, false);
        }
        for (const [id, batch] of batches) {
          if (closed.get(id) === batch) continue;
          await putRecord(tx, BATCH, id, batch, { type: 'settlement_batch.closed', entity: 'settlement_batch', key: id, data: { net_cents: batch.batch_net_amount_cents, count: batch.transaction_count, early: true } }, batch.processing_date);
        }
        tx.afterCommit(() => {
          for (const [id, batch] of batches) closed.set(id, batch);
        });
      });
    }
    if (due.length < CHUNK) break;
  }
  return [...closed.values()];
}

export interface SettlementReader {
  batchesSince(after: number, limit: number): Promise<Array<RecordDoc<SettlementBatch>>>;
  batch(id: string): Promise<SettlementBatch | undefined>;
  /** The transactions closed into a batch, oldest change first. */
  batchTransactions(id: string): Promise<TxData[]>;
  exceptionsSince(after: number, limit: number): Promise<Array<RecordDoc<SettlementException>>>;
}

export function settlementReader(core: EngineCore): SettlementReader {
  return {
    batchesSince: (after, limit) => recordsSince<SettlementBatch>(core, BATCH, after, limit),
    async batch(id) {
      return (await getRecord<SettlementBatch>(core, BATCH, id))?.data;
    },
    async batchTransactions(id) {
      return (await core.find<TxDoc>(TRANSACTIONS, { selector: { batch_id: id }, sort: [{ batch_id: 'asc' }, { watermark: 'asc' }] })).map((d) => d.data);
    },
    exceptionsSince: (after, limit) => recordsSince<SettlementException>(core, EXCEPTION, after, limit),
  };
}
