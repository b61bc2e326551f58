import { createHash } from 'node:crypto';
import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import type { GatewayContext } from './context';
import { resultOf, type TransactionResult } from './results';
import { TRANSACTIONS, type TxData, type TxDoc } from './transaction-record';

/**
 * Retries never charge twice: a request with a `unique_reference` is keyed by action + order +
 * that reference, and the first transaction under the key answers every later request with it.
 * The key is stored apart (`retry_key`): the transaction shows, and is looked up by, the
 * reference as the client sent it.
 * `transaction_reference` is the client's free text (a PO number several payments share), never a
 * key: read as one, a second refund under the same PO answered the first and moved nothing.
 */
export function fingerprintOf(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 24);
}

/** A request's retry key: its `unique_reference`, trimmed; null when it has none. */
export function retryKeyOf(req: { unique_reference?: string | null }): string | null {
  return typeof req.unique_reference === 'string' && req.unique_reference.trim() ? req.unique_reference.trim() : null;
}

/** The idempotency key of a request: `<action>/<order>/<unique_reference>`. */
export function uniqueKey(action: string, orderId: string | null, reference: string | null): string | null {
  return reference ? `${action}/${orderId ?? '-'}/${reference}`.slice(0, 240) : null;
}

/**
 * The transaction a retried request refers to. Through the unit of work, so a twin written earlier
 * in the same group commit is seen (and one rolled back with its unit is not).
 */
export async function findByUnique(tx: Tx | EngineCore, key: string): Promise<TxData | undefined> {
  const [doc] = await tx.find<TxDoc>(TRANSACTIONS, { selector: { unique_reference: key }, limit: 1 });
  return doc?.data;
}

/**
 * A request sent again under its unique_reference gets the first answer again; another request
 * under the same reference is refused.
 */
export function replayOf(ctx: GatewayContext, prior: TxData, requestFingerprint: string, action: string, reference: string | null | undefined): TransactionResult {
  refuseOtherRequest(prior.request_fingerprint, requestFingerprint, action, reference, ' on this order');
  return resultOf(ctx, prior);
}

/**
 * The rule of a retry key, for what is kept under one: the first request's fingerprint must be
 * this one's (the same request again, to be answered its first outcome), else it is refused. A
 * gift card load under a lane's reference keeps it too (wallets/gift-cards.ts).
 */
export function refuseOtherRequest(priorFingerprint: string | null, requestFingerprint: string, action: string, reference: string | null | undefined, where = ''): void {
  if (priorFingerprint !== requestFingerprint) {
    throw fail.gateway('duplicate_unique_reference', `unique_reference ${String(reference)} was already used for a different ${action}${where}`);
  }
}
