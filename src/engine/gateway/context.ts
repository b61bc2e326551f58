import { createHash } from 'node:crypto';
import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, isEngineError, type EngineError } from '../errors';
import { DAY_MS } from '../clock';
import type { Orders } from '../orders';
import type { Wallets } from '../wallets';
import type { GiftCards } from '../wallets/gift-cards';
import type { Keyer } from '../wallets/instruments';
import type { TransactionResponse } from '../../shared/schemas/gateway';
import type { ProcessingCalendar, ProcessingDay } from './processing-day';
import { settlementTokens } from './settlement-tokens';
import { TRANSACTIONS, transactionView, txDoc, type PaymentMethod, type TxData, type TxDoc } from './transaction-record';

/** What every gateway operation works with. */
export interface GatewayContext {
  core: EngineCore;
  account: Account;
  orders: Orders;
  wallets: Wallets;
  giftCards: GiftCards;
  calendar: ProcessingCalendar;
  /** The vault's keyed hash (fingerprints of numbers, never the numbers). */
  keyer: Keyer;
}

export interface TransactionResult {
  approved: boolean;
  body: TransactionResponse;
}

export const MAX_AMOUNT = 999_999_999;

/** Gateway operations answer errors the reference's way (500, `errors: [code]`). */
export function asGatewayError(err: unknown): unknown {
  if (isEngineError(err) && (err.kind === 'precondition' || err.kind === 'invalid' || err.kind === 'not_found')) {
    return fail.gateway(err.code, err.message, err.details);
  }
  return err;
}

export function gatewayGuard(ctx: GatewayContext): void {
  if (!ctx.account.can('order_transactions')) throw fail.gateway('capability_disabled', 'This account is not enabled for order transactions');
  if (ctx.account.profile().environment !== 'sandbox') {
    throw fail.gateway('processor_unavailable', 'No payment processor is connected to this production install; nothing was charged');
  }
}

export function parseAmount(value: number | string | null | undefined, options: { required: boolean; allowZero: boolean }): number | null {
  if (value === null || value === undefined || value === '') {
    if (options.required) throw fail.gateway('amount_unspecified', 'amount_cents is required');
    return null;
  }
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || n < 0 || (!options.allowZero && n === 0)) {
    throw fail.gateway('invalid_amount', `amount_cents must be a whole number of cents${options.allowZero ? '' : ' above 0'}`);
  }
  if (n > MAX_AMOUNT) throw fail.gateway('invalid_amount', `amount_cents must not exceed ${MAX_AMOUNT}`);
  return n;
}

export function processingDay(ctx: GatewayContext, nowMs: number): ProcessingDay {
  const p = ctx.account.profile();
  return ctx.calendar.dayOf(nowMs, p.timezone, p.processing_cutoff);
}

export function holdExpiry(ctx: GatewayContext, nowMs: number): number {
  return nowMs + ctx.account.profile().authorization_hold_days * DAY_MS;
}

/** The settlement token of a payment method, honouring an order's explicit routing when it fits. */
export function settlementTokenFor(ctx: GatewayContext, method: PaymentMethod, requested: string | null): string {
  const tokens = settlementTokens(ctx.account.profile());
  const natural = method === 'bank_account' ? tokens.bank : method === 'gift_card' ? tokens.gift : method === 'pos_terminal' ? tokens.terminal : tokens.card;
  if (requested && requested !== natural) {
    throw fail.gateway('settlement_token_mismatch', `settlement_token ${requested} does not route ${method.replace('_', ' ')} payments; this account uses ${natural}`);
  }
  return natural;
}

/** The transaction currency: the request's, else the order's, else the account's; one per account. */
export function resolveCurrency(ctx: GatewayContext, requested: string | null | undefined, orderCurrency: string | null | undefined): string {
  const account = ctx.account.profile().currency;
  const req = requested?.toLowerCase() ?? null;
  const ord = orderCurrency?.toLowerCase() ?? null;
  if (req && ord && req !== ord) throw fail.gateway('currency_mismatch', `currency ${req.toUpperCase()} differs from the order's ${ord.toUpperCase()}`);
  const currency = req ?? ord ?? account;
  if (currency !== account) throw fail.gateway('unsupported_currency', `This account's processors settle in ${account.toUpperCase()} only`);
  return currency;
}

const ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/**
 * A transaction token: 7 characters of the creation second, then 9 of a random token. Tokens of
 * the same moment sort together, so the indexes that end in the token (every one, in this store)
 * take new transactions on a few pages instead of one random page each: fewer pages to write and
 * to fsync per commit.
 */
export function newTxToken(ctx: GatewayContext, nowMs: number): string {
  let n = Math.floor(nowMs / 1000);
  let prefix = '';
  for (let i = 0; i < 7; i++) {
    prefix = ALPHABET[n % 34]! + prefix;
    n = Math.floor(n / 34);
  }
  return prefix + ctx.core.ids.token().slice(-9);
}

export function fingerprintOf(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);
}

/** The idempotency key of a request: `<action>/<order>/<transaction_reference>`. */
export function uniqueKey(action: string, orderId: string | null, reference: string | null): string | null {
  return reference ? `${action}/${orderId ?? '-'}/${reference}`.slice(0, 240) : null;
}

/**
 * The transaction a retried request refers to. Through the unit of work, so a twin written earlier
 * in the same group commit is seen (and one rolled back with its unit is not).
 */
export async function findByUnique(tx: Tx, key: string): Promise<TxData | undefined> {
  const [doc] = await tx.find<TxDoc>(TRANSACTIONS, { selector: { unique_reference: key }, limit: 1 });
  return doc?.data;
}

export async function putTx(tx: Tx, data: TxData, created: boolean): Promise<void> {
  await tx.put(TRANSACTIONS, txDoc(data), {
    type: created ? (data.state === 'declined' ? 'transaction.declined' : 'transaction.created') : 'transaction.updated',
    entity: 'transaction',
    key: data.token,
    data: { action: data.action, state: data.state, amount_cents: data.amount_cents, currency: data.currency, order: data.order?.identifier ?? null },
  });
}

export async function getTx(reader: Tx | EngineCore, token: string): Promise<TxData | undefined> {
  return (await reader.get<TxDoc>(TRANSACTIONS, token))?.data;
}

/**
 * A request sent again under its transaction_reference gets the first answer again; another
 * request under the same reference is refused.
 */
export function replayOf(ctx: GatewayContext, prior: TxData, requestFingerprint: string, action: string, reference: string | null | undefined): TransactionResult {
  if (prior.request_fingerprint !== requestFingerprint) {
    throw fail.gateway('duplicate_transaction_reference', `transaction_reference ${String(reference)} was already used for a different ${action} on this order`);
  }
  return resultOf(ctx, prior);
}

export function resultOf(ctx: GatewayContext, t: TxData): TransactionResult {
  const method = t.payment_method;
  const approved = t.outcome.approved && t.state !== 'cancelled';
  return {
    approved,
    body: {
      success: approved,
      transaction: t.token,
      authorization: t.outcome.processor_reference,
      gateway_token: t.outcome.processor_id,
      order: t.order?.identifier ?? null,
      wallet: t.wallet,
      ...(method === 'credit_card' ? { credit_card: t.fund } : {}),
      ...(method === 'bank_account' ? { bank_account: t.fund } : {}),
      ...(method === 'gift_card' ? { gift_card: t.gift_card } : {}),
      response_code: t.outcome.response_code,
      transactions: [transactionView(t, { accountName: ctx.account.profile().name })],
    },
  };
}

export function engineCode(err: unknown): string | undefined {
  return isEngineError(err) ? (err as EngineError).code : undefined;
}
