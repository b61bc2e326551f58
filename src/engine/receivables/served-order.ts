import { REVERSED } from './ledger';
import { writeAmountRecords } from './amount-records';
import type { ReceivablesUnit } from './unit-of-work';
import type { AllocationCut, AllocationData, InvoiceDoc, PaymentAmountDoc, PaymentDoc } from './types';

/**
 * `take` cents of an allocation given back to its invoice (a cut, a refund, a void, a chargeback):
 * the invoice owes them again, its lines' balances from the last line up as they were paid, and the
 * allocation's picture of the invoice says how it stands now.
 */
export function returnToInvoice(a: AllocationData, inv: InvoiceDoc, take: number): void {
  a.amount_cents -= take;
  inv.data.applied_cents -= take;
  inv.data.owing_cents += take;
  let left = take;
  for (let j = a.lines.length - 1; j >= 0 && left > 0; j--) {
    const l = a.lines[j]!;
    const t = Math.min(left, l.amount_cents);
    left -= t;
    l.amount_cents -= t;
    const line = inv.data.line_items.find((x) => x.number === l.line_item_number);
    if (line) line.balance_cents += t;
    l.balance_cents = line?.balance_cents ?? l.balance_cents + t;
  }
  a.lines = a.lines.filter((l) => l.amount_cents > 0);
  a.invoice_balance_cents = inv.data.owing_cents;
  a.short_pay = inv.data.owing_cents > 0;
  a.invoice = { ...a.invoice, amount_paid_cents: inv.data.applied_cents };
}

/** A payment's place in the order an invoice serves payments asking more than it owes. */
export interface PaymentOrderKey {
  date: string;
  reference: string;
}

/**
 * Whether `a` is served before `b` on an invoice that cannot take both: the earlier payment date,
 * then the smaller identifier. Both are the payment's own fields, carried with it to every install,
 * so every install decides the same whatever order the payments reached it in.
 */
export function servedBefore(a: PaymentOrderKey, b: PaymentOrderKey): boolean {
  return a.date < b.date || (a.date === b.date && a.reference < b.reference);
}

/**
 * Gives room back on an invoice from the payments applied to it that are served after `after`
 * (servedBefore; every payment on it when there is none, as when the invoice's amount went below
 * what was applied), the last served first, until `needed` is free or none is left: what each gives
 * back becomes its unapplied credit, as if it had arrived when the invoice owed that much less.
 */
export async function takeBackFromLater(s: ReceivablesUnit, inv: InvoiceDoc, needed: number, after?: PaymentOrderKey): Promise<AllocationCut[]> {
  const cuts: AllocationCut[] = [];
  if (needed <= 0) return cuts;
  const rows = await s.tx.find<PaymentAmountDoc & { [k: string]: unknown }>('payment_amounts', { selector: { invoice: inv.id }, sort: [{ invoice: 'asc' }, { id: 'asc' }] });
  const holders: PaymentDoc[] = [];
  for (const reference of new Set(rows.map((r) => r.payment))) {
    if (after && reference === after.reference) continue;
    const doc = await s.payment(reference);
    if (!doc || REVERSED.has(doc.data.status)) continue;
    if (after && !servedBefore(after, doc.data)) continue;
    holders.push(doc);
  }
  holders.sort((a, b) => (servedBefore(a.data, b.data) ? 1 : -1));
  let left = needed;
  for (const doc of holders) {
    if (left <= 0) break;
    const p = doc.data;
    const previous = p.allocations.map((a) => ({ ...a }));
    for (let i = p.allocations.length - 1; i >= 0 && left > 0; i--) {
      const a = p.allocations[i]!;
      if (a.invoice_number !== inv.id || a.amount_cents <= 0) continue;
      const take = Math.min(left, a.amount_cents);
      cuts.push({ payment: p.reference, invoice_number: inv.id, from_cents: a.amount_cents, to_cents: a.amount_cents - take });
      left -= take;
      p.unapplied_cents += take;
      returnToInvoice(a, inv, take);
    }
    if (cuts.length === 0 || cuts.at(-1)!.payment !== p.reference) continue;
    // Allocation ids are positions: only those emptied at the end go (their amount records say removed).
    while (p.allocations.length > 0 && p.allocations.at(-1)!.amount_cents === 0 && p.allocations.at(-1)!.discount_cents === 0) p.allocations.pop();
    p.updated_at = s.tx.at;
    p.updated_ms = s.tx.now;
    s.putPayment(doc);
    writeAmountRecords(s, doc, previous);
  }
  s.putInvoice(inv);
  return cuts;
}
