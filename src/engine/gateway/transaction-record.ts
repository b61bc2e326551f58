import type { StoredDoc } from '../../store/schema';
import { RECENCY_BASE } from '../../store/collections/gateway';
import type { OrderTransactionView } from '../../shared/schemas/gateway';
import type { SandboxProfile } from './sandbox/test-data';
import { fail, type EngineError } from '../errors';
import type { ProcessingDay } from './processing-day';

/**
 * A gateway transaction as stored. Card data is the BIN, last four, brand and expiry only; a bank
 * account is its routing and last four; a gift card its token and last four.
 */
export type Action = 'verify' | 'authorize' | 'capture' | 'sale' | 'void' | 'refund' | 'credit';
export type PaymentMethod = 'credit_card' | 'bank_account' | 'gift_card' | 'pos_terminal';
export type TxState = 'completed' | 'declined' | 'in_progress' | 'cancelled' | 'completed_but_nsfed';
export type SettlementStatus = 'none' | 'pending' | 'batched' | 'settled' | 'returned' | 'voided';
/** What the clock next does to this transaction (at `due_at`). */
export type DueKind = 'batch' | 'hold' | 'bank_settle' | 'bank_return' | 'chargeback';

export interface CardFacts {
  bin: string | null;
  last4: string;
  length: number | null;
  brand: string;
  expiry_month: number;
  expiry_year: number;
  profile: SandboxProfile;
}

export interface BankFacts {
  routing_number: string | null;
  institution_number: string | null;
  branch_number: string | null;
  last4: string;
  account_type: string;
  check_type: string | null;
  profile: SandboxProfile;
}

export interface TerminalFacts {
  laneid: string;
  entry_mode: string;
  aid: string | null;
  application_label: string | null;
  tvr: string | null;
  tsi: string | null;
  cardholder_verification: string;
  authorization_code: string | null;
  signature: { media_type: string; data: string } | null;
  reversal: string | null;
  /** Tip added on the device, included in amount_cents. */
  tip_cents?: number;
}

export interface AuthState {
  authorized_cents: number;
  captured_cents: number;
  voided_cents: number;
  released_cents: number;
  hold_expires_at: number;
  status: 'open' | 'captured' | 'voided' | 'released';
}

export interface Outcome {
  approved: boolean;
  response_code: number;
  error_code: string | null;
  message: string;
  /** The processor's failure detail by subject: `{ gateway: ['DECLINED'] }`. */
  errors: Record<string, string[]> | null;
  authorization_code: string | null;
  processor_reference: string;
  processor_id: string;
  avs: string | null;
  cvv: string | null;
}

export interface TxData {
  token: string;
  action: Action;
  state: TxState;
  amount_cents: number;
  currency: string;
  order: { identifier: string; number: string | null; amount_cents: number | null } | null;
  payment_method: PaymentMethod;
  wallet: string | null;
  fund: string | null;
  gift_card: string | null;
  card: CardFacts | null;
  bank: BankFacts | null;
  gift_last4: string | null;
  terminal: TerminalFacts | null;
  email: string | null;
  from_account: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  transaction_reference: string | null;
  /**
   * The client's `unique_reference`, as it was sent (trimmed), on a transaction that holds or held
   * its retry key: what the view shows and what a lookup by reference matches. On records from
   * before `retry_key` was kept (no `retry_key`), this is the retry key itself: read both with
   * clientReferenceOf / retryKeyOfRecord.
   */
  unique_reference: string | null;
  /**
   * The idempotency key (`<action>/<order>/<unique_reference>`, idempotency.ts) while this
   * transaction holds it; null when it holds none (no unique_reference, a decline, a reversal).
   */
  retry_key?: string | null;
  request_fingerprint: string | null;
  parent: string | null;
  processing_date: string;
  cutoff_at: number;
  settlement_token: string;
  settlement: { status: SettlementStatus; batch: string | null; settled_at: string | null };
  due: DueKind | null;
  due_at: number;
  outcome: Outcome;
  auth: AuthState | null;
  refunded_cents: number;
  /** What a chargeback took back for the cardholder (absent on records from before it was kept: none). */
  charged_back_cents?: number;
  voided_by: string | null;
  payments: Array<{ identifier: string; amount_cents: number }>;
  fee_exempt: boolean;
  sec_code: string | null;
  industry: string | null;
  device: string | null;
}

export interface TxRow {
  id: string;
  order_id: string;
  /** The retry key ('' when none): what a retried request is matched by. */
  unique_reference: string;
  /** The client's unique_reference ('' when none): what a lookup by reference is matched by. */
  client_reference: string;
  due_at: number;
  batch_id: string;
  fund: string;
  recency: number;
  data: TxData;
}

export interface TxDoc extends StoredDoc, TxRow {}

export const TRANSACTIONS = 'transactions';

export function txDoc(data: TxData): TxRow {
  return {
    id: data.token,
    order_id: data.order?.identifier ?? '',
    unique_reference: retryKeyOfRecord(data) ?? '',
    client_reference: clientReferenceOf(data) ?? '',
    due_at: data.due ? data.due_at : 0,
    batch_id: data.settlement.batch ?? '',
    fund: data.fund ?? data.gift_card ?? '',
    recency: RECENCY_BASE - Date.parse(data.created_at),
    data,
  };
}

/** The retry key a stored transaction holds (idempotency.ts), null when none. */
export function retryKeyOfRecord(t: Pick<TxData, 'unique_reference' | 'retry_key' | 'order'>): string | null {
  return t.retry_key !== undefined ? t.retry_key : t.unique_reference;
}

/**
 * The client's unique_reference of a stored transaction, null when it has none. A record from
 * before `retry_key` was kept stored only the key, `<action>/<order or ->/<reference>`: the
 * client's part is what follows the action and that order (actions hold no `/`; an order
 * identifier may, which is why it is matched as the record's own and not split on).
 */
export function clientReferenceOf(t: Pick<TxData, 'unique_reference' | 'retry_key' | 'order'>): string | null {
  if (t.retry_key !== undefined || t.unique_reference === null) return t.unique_reference;
  const key = t.unique_reference;
  const afterAction = key.slice(key.indexOf('/') + 1);
  const order = `${t.order?.identifier ?? '-'}/`;
  return afterAction.startsWith(order) && afterAction.length > order.length ? afterAction.slice(order.length) : key;
}

/** Amount still reserved by an authorization. */
export function remainingOf(auth: AuthState): number {
  return auth.authorized_cents - auth.captured_cents - auth.voided_cents - auth.released_cents;
}

/**
 * An authorization after a capture, a void or an undone capture: open while anything is still
 * reserved, else captured when any of it was, else voided.
 */
export function authAfter(auth: AuthState, change: { captured_cents?: number; voided_cents?: number }): AuthState {
  const next = { ...auth, ...change };
  next.status = remainingOf(next) > 0 ? 'open' : next.captured_cents > 0 ? 'captured' : 'voided';
  return next;
}

/** Sales, captures, credits and refunds move money (in the day's settlement batch); the others do not. */
const MOVES_MONEY: ReadonlySet<Action> = new Set<Action>(['sale', 'capture', 'credit', 'refund']);

export function movesMoney(action: Action): boolean {
  return MOVES_MONEY.has(action);
}

/**
 * How much a capture of `t` takes: `requested`, or all still reserved. Captured <= authorized, and
 * only while the hold lasts. Throws the refusal (the same for every path: with or without a lane).
 */
export function captureAmount(t: TxData, requested: number | null, nowMs: number): number {
  if (t.action !== 'authorize' || t.state !== 'completed' || !t.auth) {
    throw fail.gateway('transaction_not_capturable', `Transaction ${t.token} is ${t.state === 'declined' ? 'a declined ' : 'a '}${t.action}; only an approved authorization can be captured`);
  }
  if (t.auth.status === 'released' || nowMs >= t.auth.hold_expires_at) {
    throw fail.gateway('authorization_expired', `The authorization hold of ${t.token} was released on ${new Date(t.auth.hold_expires_at).toISOString()}; authorize again`);
  }
  const remaining = remainingOf(t.auth);
  if (remaining <= 0) throw fail.gateway('nothing_to_capture', `Authorization ${t.token} has nothing left to capture`);
  const amount = requested ?? remaining;
  if (amount > remaining) throw fail.gateway('amount_exceeds_authorization', `amount_cents ${amount} exceeds the ${remaining} cents still authorized on ${t.token}`);
  return amount;
}

/**
 * What is left to give back of a sale or capture: its amount less its refunds and what a chargeback
 * took (a chargeback gave the cardholder what was left: refunding it too would pay them twice).
 */
export function refundableOf(t: TxData): number {
  return t.amount_cents - t.refunded_cents - (t.charged_back_cents ?? 0);
}

/**
 * How much a refund of `t` takes: `requested`, or all that is left. A refund returns at most what
 * was sold or captured minus earlier refunds, of a sale or capture that moved money. Throws the
 * refusal (the same for every path: with or without a lane).
 */
export function refundAmount(t: TxData, requested: number | null, finality?: { nowMs: number; returnableUntil: number }): number {
  if ((t.action !== 'sale' && t.action !== 'capture') || t.state === 'declined') {
    throw fail.gateway('transaction_not_refundable', `Transaction ${t.token} is ${t.state === 'declined' ? 'a declined ' : 'a '}${t.action}; only an approved sale or capture can be refunded`);
  }
  if (t.state === 'cancelled') throw fail.gateway('transaction_voided', `Transaction ${t.token} was voided: there is nothing to refund`);
  if (t.state === 'in_progress') throw fail.gateway('transaction_not_settled', `Bank transaction ${t.token} has not settled yet: void it before the cut-off, or refund it once it settles`);
  if (t.state === 'completed_but_nsfed') throw fail.gateway('transaction_returned', `Bank transaction ${t.token} was returned by the bank: there is nothing to refund`);
  // A bank debit can still come back unpaid days after it settled: money refunded before then
  // would be paid out on top of the full amount the return takes back.
  if (finality && (t.due === 'bank_return' || finality.nowMs < finality.returnableUntil)) {
    throw fail.gateway('transaction_not_final', `Bank transaction ${t.token} can still be returned by the payer's bank until ${new Date(finality.returnableUntil).toISOString()}: refund it after that (or void it before its processing day's cut-off)`);
  }
  const chargedBack = t.charged_back_cents ?? 0;
  const refundable = refundableOf(t);
  if (refundable <= 0 && chargedBack > 0) throw fail.gateway('transaction_charged_back', `Transaction ${t.token} was charged back: the cardholder already has the ${chargedBack} cents not refunded`);
  if (refundable <= 0) throw fail.gateway('nothing_to_refund', `Transaction ${t.token} is fully refunded`);
  const amount = requested ?? refundable;
  if (amount > refundable) throw fail.gateway('amount_exceeds_refundable', `amount_cents ${amount} exceeds the ${refundable} cents still refundable on ${t.token}`);
  return amount;
}

/**
 * Why a sale, capture, credit or refund cannot be voided at `nowMs` (null: it can). It is voided
 * whole, only until its processing day's batch is transmitted at the cut-off (after that a refund
 * is needed), and not once it has refunds of its own. An authorization is released by a void on
 * other terms (what is still reserved).
 */
export function voidRefusal(t: TxData, nowMs: number): EngineError | null {
  if (t.state === 'cancelled') return fail.gateway('transaction_already_voided', `Transaction ${t.token} is already voided`);
  if (t.state === 'declined' || !movesMoney(t.action)) return fail.gateway('transaction_not_voidable', `Transaction ${t.token} (${t.state} ${t.action}) cannot be voided`);
  const transmitted = nowMs >= t.cutoff_at || (t.settlement.status !== 'pending' && t.settlement.status !== 'none');
  if (transmitted) {
    return fail.gateway(
      'void_window_closed',
      `Transaction ${t.token} was in the ${t.processing_date} batch, transmitted at the processing-day cut-off (${new Date(t.cutoff_at).toISOString()}); refund it instead`,
    );
  }
  if (t.refunded_cents > 0) return fail.gateway('transaction_has_refunds', `Transaction ${t.token} has refunds: void them first`);
  return null;
}

/** The parts of a new transaction that are not derived from its outcome. */
export type NewTransaction = Pick<
  TxData,
  | 'action'
  | 'amount_cents'
  | 'currency'
  | 'order'
  | 'payment_method'
  | 'wallet'
  | 'fund'
  | 'gift_card'
  | 'card'
  | 'bank'
  | 'gift_last4'
  | 'terminal'
  | 'email'
  | 'from_account'
  | 'created_by'
  | 'transaction_reference'
  | 'request_fingerprint'
  | 'parent'
  | 'settlement_token'
  | 'outcome'
  | 'fee_exempt'
  | 'sec_code'
  | 'industry'
  | 'device'
> & {
  /** The idempotency key; held only by an approved transaction (a decline does not hold it). */
  key: string | null;
  /** The client's unique_reference the key was made of (shown and looked up by; kept with the key). */
  unique_reference: string | null;
};

/** Where a new record is made: its token, the time, its processing day and when a hold made now would end. */
export interface TransactionStamp {
  token: string;
  at: string;
  day: ProcessingDay;
  holdExpiresAt: number;
}

/**
 * A new transaction record. What it does to money follows from its action and outcome, one way
 * for every path: an approved sale, capture, credit or refund joins the day's batch (gift cards
 * have none) and a bank one is in progress until it settles; an approved authorization holds its
 * amount until the hold ends.
 */
export function buildTransaction(stamp: TransactionStamp, n: NewTransaction): TxData {
  const approved = n.outcome.approved;
  const moves = approved && movesMoney(n.action);
  const batched = moves && n.payment_method !== 'gift_card';
  const holdUntil = approved && n.action === 'authorize' ? stamp.holdExpiresAt : 0;
  // Every field named, in the record's order: one shape for every stored transaction.
  return {
    token: stamp.token,
    action: n.action,
    state: !approved ? 'declined' : moves && n.payment_method === 'bank_account' ? 'in_progress' : 'completed',
    amount_cents: n.amount_cents,
    currency: n.currency,
    order: n.order,
    payment_method: n.payment_method,
    wallet: n.wallet,
    fund: n.fund,
    gift_card: n.gift_card,
    card: n.card,
    bank: n.bank,
    gift_last4: n.gift_last4,
    terminal: n.terminal,
    email: n.email,
    from_account: n.from_account,
    created_by: n.created_by,
    created_at: stamp.at,
    updated_at: stamp.at,
    transaction_reference: n.transaction_reference,
    unique_reference: approved && n.key ? n.unique_reference : null,
    retry_key: approved ? n.key : null,
    request_fingerprint: n.request_fingerprint,
    parent: n.parent,
    processing_date: stamp.day.date,
    cutoff_at: stamp.day.cutoffAt,
    settlement_token: n.settlement_token,
    settlement: { status: batched ? 'pending' : 'none', batch: null, settled_at: null },
    due: batched ? 'batch' : holdUntil ? 'hold' : null,
    due_at: batched ? stamp.day.cutoffAt : holdUntil,
    outcome: n.outcome,
    auth: holdUntil ? { authorized_cents: n.amount_cents, captured_cents: 0, voided_cents: 0, released_cents: 0, hold_expires_at: holdUntil, status: 'open' } : null,
    refunded_cents: 0,
    charged_back_cents: 0,
    voided_by: null,
    payments: [],
    fee_exempt: n.fee_exempt,
    sec_code: n.sec_code,
    industry: n.industry,
    device: n.device,
  };
}

const STEP: Record<Action, string> = {
  verify: 'VerifyStep',
  authorize: 'AuthorizeStep',
  capture: 'CaptureStep',
  sale: 'SaleStep',
  void: 'VoidStep',
  refund: 'RefundStep',
  credit: 'CreditStep',
};

const METHOD_STEP: Record<PaymentMethod, string> = {
  credit_card: 'Card',
  bank_account: 'Bank',
  gift_card: 'GiftCard',
  pos_terminal: 'Terminal',
};

function mmyyyy(month: number, year: number): string {
  return `${String(month).padStart(2, '0')}${year}`;
}

export interface ViewContext {
  /** The supplier account's name (`to_account`). */
  accountName: string;
  /** The order as it is now, when known (else the snapshot taken with the transaction). */
  order?: { identifier: string; number: string | null; amount_cents: number | null } | null;
}

/** The processor's answer as the reference's gateway_response shows it. */
function gatewayResponseView(t: TxData, processorAnswer: string): OrderTransactionView['gateway_response'] {
  const o = t.outcome;
  return {
    token: o.processor_reference,
    gateway_token: o.processor_id,
    gateway_status: o.approved ? 'success' : 'failure',
    authorization_code: o.authorization_code,
    authorization_response: processorAnswer,
    avs_response: o.avs,
    cvv_response: o.cvv,
    approved_amount_cents: o.approved ? t.amount_cents : 0,
    error_code: o.error_code,
    message: o.approved ? '' : o.message,
    ...(o.errors ? { errors: o.errors } : {}),
  };
}

/** An authorization's amounts and hold (Laneway's addition to the view). */
function authorizationView(auth: NonNullable<TxData['auth']>): NonNullable<OrderTransactionView['authorization']> {
  return {
    authorized_cents: auth.authorized_cents,
    captured_cents: auth.captured_cents,
    voided_cents: auth.voided_cents,
    released_cents: auth.released_cents,
    remaining_cents: remainingOf(auth),
    hold_expires_at: new Date(auth.hold_expires_at).toISOString(),
    status: auth.status,
  };
}

/** The reference's OrderTransaction view of a stored transaction. */
export function transactionView(t: TxData, ctx: ViewContext): OrderTransactionView {
  const o = t.outcome;
  const card = t.card;
  const order = ctx.order === undefined ? t.order : ctx.order;
  // The processor's own answer, `<its code>: <its text>` (the reference's sandbox: "567.005: DECLINED").
  const processorAnswer = o.approved ? 'APPROVAL' : `${o.error_code ?? o.response_code}: ${o.message || Object.values(o.errors ?? {})[0]?.[0] || ''}`;
  return {
    token: t.token,
    amount_in_cents: t.amount_cents,
    message: null,
    link_url: null,
    type: 'transaction',
    transaction_type: t.action === 'refund' || t.action === 'credit' ? 'send_money' : 'request_money',
    email: t.email,
    state: t.state,
    transaction_reference: t.transaction_reference,
    unique_reference: clientReferenceOf(t),
    from_account: t.from_account,
    to_account: ctx.accountName,
    // The reference's names of the balance or bank account a send draws on and a request pays
    // into: a gateway transaction names neither (its settlement goes to the merchant account), but
    // clients read the keys.
    from_fund: null,
    to_fund: null,
    process_on: null,
    created_by_user: t.created_by,
    created_at: t.created_at,
    auto_withdraw: false,
    auto_withdrawal_token: null,
    step_types: [`TransactionSteps::${METHOD_STEP[t.payment_method]}${STEP[t.action]}`],
    action: t.action,
    payment_method: t.payment_method,
    wallet: t.wallet,
    credit_card: t.payment_method === 'credit_card' ? t.fund : null,
    bank_account: t.payment_method === 'bank_account' ? t.fund : null,
    gift_card: t.gift_card,
    settlement_token: t.settlement_token,
    currency: t.currency,
    // No foreign exchange: a transaction is processed in its own currency.
    fx_amount_cents: null,
    fx_rate: null,
    approved_amount_cents: o.approved ? t.amount_cents : 0,
    fee_amount_cents: 0,
    fee_exempt: t.fee_exempt,
    gateway_response: gatewayResponseView(t, processorAnswer),
    gateway_token: o.processor_id,
    gateway_authorization_code: o.authorization_code,
    gateway_authorization_response: processorAnswer,
    gateway_error_scope: 'sandbox',
    gateway_error_code: o.error_code,
    gateway_error_message: o.approved ? '' : o.message,
    authorization_response: o.approved ? '100' : '200',
    response_code: o.response_code,
    avs_response: o.avs,
    cvv_response: o.cvv,
    credit_card_bin: card?.bin ?? null,
    credit_card_masked_number: card ? `${'X'.repeat(Math.max(0, (card.length ?? 16) - 4))}${card.last4}` : null,
    credit_card_brand: card?.brand ?? null,
    credit_card_expiry: card ? mmyyyy(card.expiry_month, card.expiry_year) : null,
    bank_account_masked_number: t.bank ? `XXXXXX${t.bank.last4}` : null,
    bank_account_routing: t.bank ? (t.bank.routing_number ?? `${t.bank.institution_number}-${t.bank.branch_number}`) : null,
    bank_account_type: t.bank?.account_type ?? null,
    bank_account_check_type: t.bank?.check_type ?? null,
    sec_code: t.sec_code,
    orders: order ? [{ identifier: order.identifier, number: order.number, amount_cents: order.amount_cents }] : [],
    payments: t.payments.map((p) => ({ identifier: p.identifier, amount_cents: p.amount_cents })),
    parent_transaction: t.parent,
    processing_date: t.processing_date,
    settlement: {
      status: t.settlement.status,
      batch: t.settlement.batch,
      cutoff_at: new Date(t.cutoff_at).toISOString(),
      settled_at: t.settlement.settled_at,
    },
    authorization: t.auth ? authorizationView(t.auth) : null,
    refunded_cents: t.refunded_cents,
    voided_by: t.voided_by,
    terminal: t.terminal ? { ...t.terminal } : null,
  };
}
