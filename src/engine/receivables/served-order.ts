import { REVERSED } from './ledger';
import { writeAmountRecords } from './amount-records';
import type { ReceivablesUnit } from './unit-of-work';
import type { AllocationCut, AllocationData, InvoiceDoc, PaymentAmountDoc, PaymentData, PaymentDoc } from './types';

/**
 * What an invoice of `amount` may owe, and what may be applied to it: from 0 to its amount, on the
 * amount's side. An invoice of 100.00 owes (and takes) 0 to 100.00; a credit memo of -50.00 owes
 * -50.00 to 0 and gives 0 to 50.00 of credit (-50.00 to 0 applied). Never more, never the other sign.
 */
export function amountRange(amount: number): [low: number, high: number] {
  return amount >= 0 ? [0, amount] : [amount, 0];
}

/**
 * An allocation's picture of its invoice as the payments served up to it leave it: `later` is what
 * the payments served after it (servedBefore) hold on the invoice, so what the invoice owed and had
 * been paid right after this one is what it owes and has been paid now, give or take theirs.
 */
export function servedSnapshot(inv: InvoiceDoc, later: number): Pick<AllocationData, 'invoice_balance_cents' | 'short_pay'> & { amount_paid_cents: number } {
  const balance = inv.data.owing_cents + later;
  return { invoice_balance_cents: balance, short_pay: balance > 0, amount_paid_cents: inv.data.applied_cents - later };
}

/**
 * `take` cents of an allocation given back to its invoice (a cut, a refund, a void, a chargeback):
 * the invoice owes them again, its lines' balances from the last line up as they were paid. A
 * negative `take` gives a credit memo back credit a payment had used. The allocation's picture of
 * the invoice is the caller's to restate (restateServed).
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
}

/**
 * returnToInvoice on the invoice the allocation names, written back: what a refund's take-off and
 * a cut do to each allocation. An invoice no longer on file only lowers the allocation. Answers the
 * invoice, when there is one.
 */
export async function giveBackToInvoice(s: ReceivablesUnit, a: AllocationData, take: number): Promise<InvoiceDoc | undefined> {
  const inv = await s.invoice(a.invoice_number);
  if (!inv) {
    a.amount_cents -= take;
    return undefined;
  }
  returnToInvoice(a, inv, take);
  s.putInvoice(inv);
  return inv;
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
 * The live payments applied to an invoice (stored, or written earlier in this unit), `current` (a
 * payment being applied, not yet written) in place of its stored version, in served order: the
 * first served first.
 */
async function holdersOf(s: ReceivablesUnit, inv: InvoiceDoc, current?: PaymentDoc): Promise<PaymentDoc[]> {
  const rows = await s.tx.find<PaymentAmountDoc & { [k: string]: unknown }>('payment_amounts', { selector: { invoice: inv.id }, sort: [{ invoice: 'asc' }, { id: 'asc' }] });
  const references = new Set(rows.map((r) => r.payment));
  for (const doc of s.paymentsWritten()) if (doc.data.allocations.some((a) => a.invoice_number === inv.id)) references.add(doc.id);
  if (current) references.add(current.id);
  const holders: PaymentDoc[] = [];
  for (const reference of references) {
    const doc = reference === current?.id ? current : await s.payment(reference);
    if (!doc || REVERSED.has(doc.data.status) || !doc.data.allocations.some((a) => a.invoice_number === inv.id)) continue;
    holders.push(doc);
  }
  return holders.sort((a, b) => (servedBefore(a.data, b.data) ? -1 : 1));
}

/** A payment changed here outside its own import: a new version, its amount records with it. */
function putChanged(s: ReceivablesUnit, doc: PaymentDoc, previous: readonly AllocationData[]): void {
  doc.data.updated_at = s.tx.at;
  doc.data.updated_ms = s.tx.now;
  s.putPayment(doc);
  writeAmountRecords(s, doc, previous);
}

/**
 * Restates the picture of the invoice (invoice_balance, invoice_amount_paid, short pay) of every
 * live allocation on it in served order (servedSnapshot), whatever order the payments arrived in,
 * once that order was rearranged (a payment served earlier arrived later) or cut. `current`, the
 * payment being applied, is restated in place (its caller writes it); any other payment whose
 * picture changed gets a new version. With `onlyIfServedAfter`, nothing is done unless a payment
 * on the invoice is served after `current` (else the pictures taken as each arrived are the served ones).
 */
export async function restateServed(s: ReceivablesUnit, inv: InvoiceDoc, current?: PaymentDoc, onlyIfServedAfter = false): Promise<void> {
  const holders = await holdersOf(s, inv, current);
  if (onlyIfServedAfter && current && holders.at(-1) === current) return;
  let later = 0;
  for (const doc of holders.reverse()) {
    const p = doc.data;
    const previous = p.allocations.map((a) => ({ ...a }));
    let changed = false;
    for (let i = p.allocations.length - 1; i >= 0; i--) {
      const a = p.allocations[i]!;
      if (a.invoice_number !== inv.id) continue;
      const { amount_paid_cents, ...picture } = servedSnapshot(inv, later);
      later += a.amount_cents + a.discount_cents;
      if (a.invoice_balance_cents === picture.invoice_balance_cents && a.short_pay === picture.short_pay && a.invoice.amount_paid_cents === amount_paid_cents) continue;
      Object.assign(a, picture);
      a.invoice = { ...a.invoice, amount_paid_cents };
      changed = true;
    }
    if (changed && doc !== current) putChanged(s, doc, previous);
  }
}

/**
 * A payment whose memo credit was cut (takeBackFromLater) has less to apply than it applies: its
 * applications to invoices give the difference back, last applied first (as a refund comes off),
 * each invoice owing it again. The payment never applies more than it received.
 */
async function coverShortfall(s: ReceivablesUnit, p: PaymentData, cuts: AllocationCut[], touched: Set<InvoiceDoc>): Promise<void> {
  for (let i = p.allocations.length - 1; i >= 0 && p.unapplied_cents < 0; i--) {
    const a = p.allocations[i]!;
    if (a.amount_cents <= 0) continue;
    const take = Math.min(-p.unapplied_cents, a.amount_cents);
    cuts.push({ payment: p.reference, invoice_number: a.invoice_number, from_cents: a.amount_cents, to_cents: a.amount_cents - take });
    p.unapplied_cents += take;
    const inv = await giveBackToInvoice(s, a, take);
    if (inv) touched.add(inv);
  }
}

/**
 * Gives back `needed` of what is applied to an invoice from the payments applied to it that are
 * served after `after` (servedBefore; every payment on it when there is none, as when the invoice's
 * amount changed), the last served first, until it is given or none is left. A positive `needed`
 * comes off payments' applications to the invoice: what each gives back becomes its unapplied
 * credit, as if it had arrived when the invoice owed that much less. A negative one comes off
 * payments' use of a credit memo's credit: each then has that much less to apply, and its own
 * applications to invoices give it back (coverShortfall). Every picture of an invoice touched is
 * restated in served order (restateServed), by the caller when it makes room for `after`.
 */
export async function takeBackFromLater(s: ReceivablesUnit, inv: InvoiceDoc, needed: number, after?: PaymentOrderKey): Promise<AllocationCut[]> {
  const cuts: AllocationCut[] = [];
  if (needed === 0) return cuts;
  const sign = needed > 0 ? 1 : -1;
  const holders = (await holdersOf(s, inv)).filter((doc) => !after || (doc.id !== after.reference && servedBefore(after, doc.data))).reverse();
  const touched = new Set<InvoiceDoc>([inv]);
  let left = Math.abs(needed);
  for (const doc of holders) {
    if (left <= 0) break;
    const p = doc.data;
    const previous = p.allocations.map((a) => ({ ...a }));
    let cut = false;
    for (let i = p.allocations.length - 1; i >= 0 && left > 0; i--) {
      const a = p.allocations[i]!;
      if (a.invoice_number !== inv.id || sign * a.amount_cents <= 0) continue;
      const take = sign * Math.min(left, sign * a.amount_cents);
      cuts.push({ payment: p.reference, invoice_number: inv.id, from_cents: a.amount_cents, to_cents: a.amount_cents - take });
      left -= sign * take;
      p.unapplied_cents += take;
      returnToInvoice(a, inv, take);
      cut = true;
    }
    if (!cut) continue;
    if (p.unapplied_cents < 0) await coverShortfall(s, p, cuts, touched);
    // Allocation ids are positions: only those emptied at the end go (their amount records say removed).
    while (p.allocations.length > 0 && p.allocations.at(-1)!.amount_cents === 0 && p.allocations.at(-1)!.discount_cents === 0) p.allocations.pop();
    putChanged(s, doc, previous);
  }
  s.putInvoice(inv);
  // Making room for a payment served earlier (`after`): its caller restates once it is applied.
  if (!after) for (const touchedInvoice of touched) await restateServed(s, touchedInvoice);
  return cuts;
}

/**
 * An invoice whose amount changed (an ERP's correction) keeps only what its new amount allows to be
 * applied (amountRange): an invoice lowered below what was applied, or turned into a credit memo,
 * gives back the payments' applications served last; a credit memo moved towards zero (or turned
 * into an invoice) gives back the credit used by the payments served last, and each of those pays
 * its invoices that much less. Every install cuts the same payments. Owing is the invoice's amount
 * less what is applied; a balance-synced owing is the ERP's, already within range, and cuts nothing.
 */
export async function fitToAmount(s: ReceivablesUnit, inv: InvoiceDoc): Promise<AllocationCut[]> {
  const [low, high] = amountRange(inv.data.amount_cents);
  const owing = inv.data.owing_cents;
  if (owing < low) return takeBackFromLater(s, inv, low - owing);
  if (owing > high) return takeBackFromLater(s, inv, high - owing);
  return [];
}
