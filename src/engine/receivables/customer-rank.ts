import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord } from '../records';
import { primaryCurrency } from './customer-view';
import { owingIn } from './ledger';
import type { CustomerDoc } from './types';

/**
 * The customer list by balance, largest first, read on an index: one `customer_rank` record per
 * customer (key: its internal id) whose `ref` sorts in that order, so the records collection's
 * [kind, ref] index serves the list and its cursor. The customers collection has no balance
 * field to index, and giving it one would change its stored schema under every existing data folder.
 *
 * The ref is the balance inverted and zero-padded (so the largest balance sorts first in the
 * index's ascending order), then the identifier (ties in identifier order, and a unique cursor).
 * The balance is the one the list shows: owing in the customer's main currency (current plus
 * overdue, so it does not depend on the day). The store's index ranges only run ascending, so the
 * list offers this one direction: who owes the most.
 */
export const CUSTOMER_RANK = 'customer_rank';
const OFFSET = 10 ** 15;

export interface RankData {
  identifier: string;
  balance_cents: number;
  currency: string;
  /** Written by ensureRanks for a customer stored before ranks existed (not by the customer's own write). */
  backfilled?: true;
}

export function rankRef(balanceCents: number, identifier: string): string {
  const inverted = Math.min(Math.max(OFFSET - balanceCents, 0), 2 * OFFSET - 1);
  return `${String(inverted).padStart(16, '0')}|${identifier}`;
}

/** Writes the customer's rank when its balance or identifier moved (called with every customer write of a unit). */
export async function rankCustomerInTx(tx: Tx, doc: CustomerDoc, ctx: { accountCurrency: string }, backfill = false): Promise<void> {
  // The list's balance without its aging: a customer with thousands of open invoices is ranked at
  // every write of it, and aging them by date there took most of a file import's time.
  const currency = primaryCurrency(doc, ctx.accountCurrency);
  const balance = owingIn(doc.data.ledger, currency);
  const ref = rankRef(balance, doc.identifier);
  const before = await getRecord<RankData>(tx, CUSTOMER_RANK, doc.id);
  if (before?.ref === ref && before.data.currency === currency) return;
  const data: RankData = { identifier: doc.identifier, balance_cents: balance, currency, ...(backfill ? { backfilled: true as const } : {}) };
  await putRecord(tx, CUSTOMER_RANK, doc.id, data, { type: 'customer_rank.updated', entity: 'customer_rank', key: doc.id, data: { identifier: doc.identifier } }, ref);
}

const BUILT = 'customer_rank_built';

/**
 * Ranks the customers of a data folder made before ranks existed, once (every write since keeps its
 * customer's rank). Customers are walked oldest write first: those stored before ranks existed come
 * first, and the walk stops at the first customer ranked by a write of its own, since every
 * customer written after it was ranked by its write too. A new folder stops at its first customer.
 * Units of 500; idempotent, so an interrupted or doubled run only repeats work.
 */
export async function ensureRanks(core: EngineCore, ctx: () => { accountCurrency: string }): Promise<void> {
  if (await getRecord(core, 'sequence', BUILT)) return;
  let after = -1;
  let done = false;
  while (!done) {
    const docs = await core.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: { watermark: { $gt: after } }, sort: [{ watermark: 'asc' }], limit: 500 });
    if (docs.length === 0) break;
    await core.mutate(async (tx) => {
      for (const d of docs) {
        const rank = await getRecord<RankData>(tx, CUSTOMER_RANK, d.id);
        if (rank && !rank.data.backfilled) return void (done = true);
        const current = await tx.get<CustomerDoc & { [k: string]: unknown }>('customers', d.id);
        if (current) await rankCustomerInTx(tx, current, ctx(), true);
      }
    });
    after = docs[docs.length - 1]!.watermark;
  }
  await core.mutate((tx) => putRecord(tx, 'sequence', BUILT, { value: 1 }, { type: 'sequence.updated', entity: 'sequence', key: BUILT }));
}
