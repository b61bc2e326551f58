import type { Static } from '@sinclair/typebox';
import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { AutopayHoldCause, HeldInvoice } from '../../shared/schemas/wallets';

/**
 * Invoices autopay must not charge again on its own (records kind `autopay_hold`, key = invoice
 * number, ref = customer identifier). Once a charge's money went back, charging the same invoice
 * the next day would undo a person's or a bank's decision:
 * - the merchant refunded or voided the sale: the refund is what they chose;
 * - the cardholder charged it back: card networks forbid charging a disputed amount again;
 * - the bank returned the debit for anything but missing funds (account closed, not authorized):
 *   NACHA forbids debiting it again without a new authorization;
 * - the bank returned it for missing funds (R01, R09): NACHA allows two new presentments, so the
 *   invoice is held at the third such return.
 * A new agreement of the customer is a new authorization: it releases the customer's holds.
 */
export const AUTOPAY_HOLD = 'autopay_hold';

/** Presentments allowed after a first return for missing funds (NACHA). */
export const NSF_REPRESENTMENTS = 2;
const NSF_CODES = new Set(['R01', 'R09']);

export type HoldCause = Static<typeof AutopayHoldCause>;

export interface AutopayHold {
  invoice_number: string;
  customer_identifier: string;
  held: boolean;
  /** Why it is held, or, while not held, what was counted (returned_nsf). */
  cause: HoldCause;
  /** The transactions whose money came back, counted once each (a repeated tick counts nothing more). */
  transactions: string[];
  at: string;
}

export const isNsfReturn = (returnCode: string | undefined) => returnCode !== undefined && NSF_CODES.has(returnCode);

/** Records that `transaction`'s money came back for these invoices; the ones it holds are logged. */
export async function holdInvoices(core: EngineCore, customer: string, invoices: readonly string[], cause: HoldCause, transaction: string): Promise<void> {
  if (invoices.length === 0) return;
  await core.mutate((tx) => holdInvoicesInTx(core, tx, customer, invoices, cause, transaction));
}

/** holdInvoices in the unit of work that gave the money back (a refund's). */
export async function holdInvoicesInTx(core: EngineCore, tx: Tx, customer: string, invoices: readonly string[], cause: HoldCause, transaction: string): Promise<void> {
  const held: string[] = [];
  for (const number of new Set(invoices)) {
    const current = (await getRecord<AutopayHold>(tx, AUTOPAY_HOLD, number))?.data;
    if (current?.held || current?.transactions.includes(transaction)) continue;
    const transactions = [...(current?.transactions ?? []), transaction];
    const hold = cause !== 'returned_nsf' || transactions.length > NSF_REPRESENTMENTS;
    await putHold(tx, { invoice_number: number, customer_identifier: customer, held: hold, cause, transactions, at: tx.at });
    if (hold) held.push(number);
  }
  if (held.length) tx.afterCommit(() => core.logger.warn({ transaction, invoices: held, cause }, 'autopay will not charge these invoices again: their charged money came back'));
}

/** Of these invoice numbers, those autopay must leave alone. */
export async function heldOf(core: EngineCore, numbers: readonly string[]): Promise<Set<string>> {
  const held = new Set<string>();
  for (const number of numbers) {
    if ((await getRecord<AutopayHold>(core, AUTOPAY_HOLD, number))?.data.held) held.add(number);
  }
  return held;
}

/** The customer's invoices autopay leaves alone, oldest hold first (GET /api/autopay, the customer page). */
export async function holdsOf(reader: Tx | EngineCore, customer: string): Promise<HeldInvoice[]> {
  return (await recordsByRef<AutopayHold>(reader, AUTOPAY_HOLD, customer))
    .filter((r) => r.data.held)
    .sort((a, b) => a.watermark - b.watermark)
    .map((r) => ({ invoice_number: r.data.invoice_number, cause: r.data.cause, held_at: r.data.at }));
}

/** A new authorization from the customer: its invoices may be charged again, returns counted anew. */
export async function releaseHolds(tx: Tx, customer: string): Promise<void> {
  for (const r of await recordsByRef<AutopayHold>(tx, AUTOPAY_HOLD, customer)) {
    if (r.data.held || r.data.transactions.length) await putHold(tx, { ...r.data, held: false, transactions: [], at: tx.at }, 'autopay.invoice_released');
  }
}

/** A renamed customer's holds follow it, so its new agreement releases them. */
export async function renameHolds(tx: Tx, from: string, to: string): Promise<void> {
  for (const r of await recordsByRef<AutopayHold>(tx, AUTOPAY_HOLD, from)) await putHold(tx, { ...r.data, customer_identifier: to }, 'autopay.invoice_hold_updated');
}

function putHold(tx: Tx, h: AutopayHold, type = h.held ? 'autopay.invoice_held' : 'autopay.invoice_returned') {
  return putRecord(tx, AUTOPAY_HOLD, h.invoice_number, h, { type, entity: 'autopay', key: h.invoice_number, data: { customer: h.customer_identifier, held: h.held, cause: h.cause } }, h.customer_identifier);
}
