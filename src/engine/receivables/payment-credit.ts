import { notFound } from '../errors';
import { formatMoney } from '../../shared/money';
import { REVERSED } from './ledger';
import { applyAllocations, checkInvoiceCustomer, keptEntries, loadInvoices, reverseAllocations, type Entry } from './payments';
import { Problems } from './problems';
import type { ReceivablesUnit } from './unit-of-work';
import type { PaymentDoc } from './types';

export interface CreditApplication {
  invoice_number: string;
  amount_cents: number;
}

/**
 * A payment's unapplied credit applied to open invoices of its customer (a clerk after a call:
 * "put the rest of my cheque on invoice 1043"). What it already paid stays as it was, lines,
 * discounts and remittance details included; each new amount is added to what the payment gives
 * that invoice. Nothing changes unless every rule holds: the invoice is the customer's, open, in
 * the payment's currency, owes at least the amount, and all amounts together fit in the credit.
 */
export async function applyCredit(s: ReceivablesUnit, reference: string, applications: readonly CreditApplication[]): Promise<PaymentDoc> {
  const doc = await s.payment(reference);
  if (!doc) throw notFound('payment_not_found', `No payment ${reference}`);
  const p = doc.data;
  const problems = new Problems();
  const money = (cents: number) => formatMoney(cents, p.currency, { locale: 'en-US' });
  if (REVERSED.has(p.status)) problems.add('reference', 'payment_reversed', `${reference} was reversed: it has no credit to apply`);
  const added: Entry[] = applications.map((a) => ({ invoice_number: a.invoice_number, amount: a.amount_cents, discount: 0 }));
  let total = 0;
  const onInvoice = new Map<string, number>();
  for (const [i, e] of added.entries()) {
    const inv = await s.invoice(e.invoice_number);
    const field = `applications.${i}`;
    total += e.amount;
    if (!inv || inv.data.deleted) {
      problems.add(`${field}.invoice_number`, 'invoice_not_found', `names no open invoice (${e.invoice_number})`);
      continue;
    }
    e.invoice_number = inv.id;
    const onIt = (onInvoice.get(inv.id) ?? 0) + e.amount;
    onInvoice.set(inv.id, onIt);
    if (inv.data.currency !== p.currency) problems.add(`${field}.invoice_number`, 'currency_mismatch', `invoice ${inv.data.display_number} is in ${inv.data.currency.toUpperCase()}, the payment in ${p.currency.toUpperCase()}`);
    else if (inv.customer !== doc.customer) checkInvoiceCustomer(problems, `${field}.invoice_number`, inv, { id: doc.customer, identifier: p.customer_identifier });
    else if (onIt > inv.data.owing_cents) problems.add(`${field}.amount_cents`, 'more_than_owing', `makes ${money(onIt)} on invoice ${inv.data.display_number}, more than it owes (${money(Math.max(0, inv.data.owing_cents))})`);
  }
  if (total > p.unapplied_cents) problems.add('applications', 'more_than_credit', `come to ${money(total)}, more than the payment's unapplied credit (${money(p.unapplied_cents)})`);
  problems.throwIfAny();

  const entries = keptEntries(p.allocations);
  for (const e of added) {
    const same = entries.find((k) => k.invoice_number === e.invoice_number && k.line_number === undefined);
    if (same) same.amount += e.amount;
    else entries.push(e);
  }
  // Read before the payment comes off them, so the same records are taken back and applied again.
  const all = await loadInvoices(s, entries, problems);
  const previous = p.allocations;
  await reverseAllocations(s, p, all);
  p.updated_at = s.tx.at;
  p.updated_ms = s.tx.now;
  await applyAllocations(s, doc, entries, all, previous);
  return doc;
}
