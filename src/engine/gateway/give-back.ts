import { fail, isEngineError } from '../errors';
import type { Gateway } from './index';

/**
 * An approved sale that must not stand (what it was priced for is no longer owed: a pay link's,
 * an autopay run's), voided: the same processing day, nothing settles. One concluded past the
 * day's cut-off (after a stop) is refunded in full instead, under a retry key of its own, so a
 * second try gives nothing back twice. Answers how it was given back; undefined when it was voided already.
 */
export async function giveBackSale(gateway: Pick<Gateway, 'transact'>, token: string, actor: string): Promise<'voided' | 'refunded' | undefined> {
  let how: 'voided' | 'refunded' = 'voided';
  let back: Awaited<ReturnType<Gateway['transact']>>;
  try {
    back = await gateway.transact('void', { transaction: token }, actor);
  } catch (err) {
    if (!isEngineError(err) || err.kind !== 'gateway') throw err;
    if (err.code === 'transaction_already_voided') return undefined;
    if (err.code !== 'void_window_closed') throw err;
    how = 'refunded';
    back = await gateway.transact('refund', { transaction: token, unique_reference: `${token}-back` }, actor);
  }
  if (!back.approved) throw fail.internal('sale_not_given_back', `the sale ${token} could not be voided or refunded: ${back.body.transactions[0]?.gateway_response.message ?? 'declined'}`);
  return how;
}
