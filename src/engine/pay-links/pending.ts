import type { EngineCore, Tx } from '../core';
import { fingerprintOf } from '../gateway/idempotency';
import { getRecord, putRecord, recordId, recordsOfKind } from '../records';
import type { PayLinkMethod } from '../../shared/schemas/pay-links';

/**
 * A sale as priced when the payer pressed Pay, written before it is sent and removed with the
 * attempt's outcome. The processor can charge and the server stop before the payment is written;
 * without this the card is charged and the invoice still owes (a reminder, autopay, a second
 * charge). The payer's retry of the same press, or a tick once the press is RECOVER_AFTER_MS old,
 * finds the sale by its reference and records it as it was priced (its amount, discount and day),
 * never charging again.
 */
export interface PricedSale {
  invoice: string;
  display_number: string;
  attempt: string;
  /** The sale's transaction_reference: the same press is the same sale at the gateway. */
  reference: string;
  customer_identifier: string;
  currency: string;
  amount_cents: number;
  discount_cents: number;
  /** The shop day the payer pressed Pay: the day the payment is of, and its discount decided. */
  as_of: string;
  type: PayLinkMethod;
  last4: string | null;
  at: number;
}

const PENDING = 'pay_link_pending';
/** Older than this, a pending sale is no longer in flight: a tick settles it from the gateway. */
export const RECOVER_AFTER_MS = 2 * 60_000;

export const saleReference = (invoice: string, attempt: string) => `paylink-${fingerprintOf([invoice, attempt])}`;

export function notePending(core: EngineCore, sale: PricedSale): Promise<void> {
  return core.mutate(async (tx) => {
    await putRecord(tx, PENDING, sale.reference, sale, { type: 'pay_link.pending', entity: 'pay_link', key: sale.invoice, data: { amount_cents: sale.amount_cents } });
  });
}

export async function pendingSale(core: EngineCore, invoice: string, attempt: string): Promise<PricedSale | undefined> {
  return (await getRecord<PricedSale>(core, PENDING, saleReference(invoice, attempt)))?.data;
}

/** In the unit that keeps the attempt's outcome: the sale is no longer pending. */
export async function clearPending(tx: Tx, invoice: string, attempt: string): Promise<void> {
  const reference = saleReference(invoice, attempt);
  if (await getRecord(tx, PENDING, reference)) await tx.remove('records', recordId(PENDING, reference), { type: 'pay_link.settled', entity: 'pay_link', key: invoice });
}

/** Pending sales pressed before `before`, oldest first. */
export async function stalePending(core: EngineCore, before: number): Promise<PricedSale[]> {
  return (await recordsOfKind<PricedSale>(core, PENDING)).map((r) => r.data).filter((s) => s.at < before);
}
