import type { EngineCore, Tx } from '../core';
import { notFound } from '../errors';
import type { GatewayContext } from './context';
import { uniqueKey } from './idempotency';
import { holdExpiry, processingDay } from './processing-day';
import { TRANSACTIONS, txDoc, type TransactionStamp, type TxData, type TxDoc } from './transaction-record';

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

/** The transaction a request without an order sent under `reference` made, if it reached the gateway. */
export async function getTxByReference(core: EngineCore, action: string, reference: string): Promise<TxData | undefined> {
  const key = uniqueKey(action, null, reference);
  return key ? (await core.find<TxDoc>(TRANSACTIONS, { selector: { unique_reference: key }, limit: 1 }))[0]?.data : undefined;
}

/**
 * The transaction a client's `unique_reference` names (GET /api/exports/transaction/{ref}). One
 * reference may name several: it is unique per action and order only, so a sale and its refund, or
 * sales on two orders, may share it. Then the most recent answers: on the
 * [client_reference, recency] index, the first entry is the newest; transactions made in the same
 * millisecond follow in token order, the first of them answers. A key as the view once showed it
 * (`sale/SO-9100/ERP-1`), which a client may have kept, is matched as the retry key it is.
 */
export async function getTxByClientReference(core: EngineCore, reference: string): Promise<TxData | undefined> {
  const [newest] = await core.find<TxDoc>(TRANSACTIONS, { selector: { client_reference: reference }, sort: [{ client_reference: 'asc' }, { recency: 'asc' }], limit: 1 });
  if (newest) return newest.data;
  return (await core.find<TxDoc>(TRANSACTIONS, { selector: { unique_reference: reference }, limit: 1 }))[0]?.data;
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

/** The stamp of a transaction made now in this unit of work (see buildTransaction). */
export function stampOf(ctx: GatewayContext, tx: Tx, token = newTxToken(ctx, tx.now)): TransactionStamp {
  return { token, at: tx.at, day: processingDay(ctx, tx.now), holdExpiresAt: holdExpiry(ctx, tx.now) };
}

/** The prior transaction a capture, refund or void names; a missing one is `order_not_found`, as the reference answers. */
export async function requireTx(reader: Tx | EngineCore, token: string): Promise<TxData> {
  const t = await getTx(reader, token);
  if (!t) throw notFound('order_not_found', `No transaction ${token}`, 'gateway');
  return t;
}
