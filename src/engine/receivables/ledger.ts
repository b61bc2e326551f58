import { daysBetween } from '../clock';
import type { InvoiceDoc, Ledger, OpenItem, PaymentData } from './types';

const bump = (map: Record<string, number>, key: string, by: number) => {
  const next = (map[key] ?? 0) + by;
  if (next === 0) delete map[key];
  else map[key] = next;
};

/** What one invoice version puts on its customer's ledger: nothing once deleted. */
function ledgerEntry(invoice: InvoiceDoc): { currency: string; division?: string; open?: OpenItem } | undefined {
  const d = invoice.data;
  if (d.deleted) return undefined;
  return { currency: d.currency, division: d.division, open: d.owing_cents !== 0 ? [d.date, d.due_date ?? '', d.owing_cents, d.currency] : undefined };
}

/** Adds (+1) or removes (-1) one invoice version's effect on its customer's ledger. */
export function applyInvoiceToLedger(ledger: Ledger, invoice: InvoiceDoc, sign: 1 | -1): void {
  const entry = ledgerEntry(invoice);
  if (!entry) return;
  bump(ledger.currencies, entry.currency, sign);
  if (entry.division) bump(ledger.divisions, entry.division, sign);
  if (sign < 0) delete ledger.open[invoice.data.number];
  else if (entry.open) ledger.open[invoice.data.number] = entry.open;
}

/** Whether two versions of an invoice weigh differently on their customer's ledger. */
export function changesLedger(before: InvoiceDoc, after: InvoiceDoc): boolean {
  return before.customer !== after.customer || JSON.stringify(ledgerEntry(before)) !== JSON.stringify(ledgerEntry(after));
}

export const REVERSED = new Set(['REVERSAL', 'ERROR (NSF)', 'ERROR (DECLINED)']);

/**
 * Adds (+1) or removes (-1) one payment version's effect on its customer's ledger. Removing the
 * version that is the customer's last payment leaves none, and says so (true): the caller then
 * finds the last one among the customer's other payments (lastPaymentOf).
 */
export function applyPaymentToLedger(ledger: Ledger, p: PaymentData, sign: 1 | -1): boolean {
  const counts = !REVERSED.has(p.status);
  if (counts && p.unapplied_cents !== 0) bump(ledger.unapplied, p.currency, sign * p.unapplied_cents);
  if (sign < 0) {
    const lost = ledger.last_payment?.reference === p.reference;
    if (lost) delete ledger.last_payment;
    return lost;
  }
  if (!counts) return false;
  if (isLater(p, ledger.last_payment)) ledger.last_payment = lastPaymentFields(p);
  if (p.source === 'arc') ledger.paid_here = true;
  return false;
}

/** The later of two payments by date; on the same date the one applied after (the candidate) wins. */
const isLater = (p: PaymentData, last: Ledger['last_payment']) => !last || p.date >= last.date;
const lastPaymentFields = (p: PaymentData): NonNullable<Ledger['last_payment']> => ({ reference: p.reference, date: p.date, amount_cents: p.amount_cents, currency: p.currency, source: p.source });

/** A customer's last payment among `payments` (in the order they were applied), reversed ones left out. */
export function lastPaymentOf(payments: readonly PaymentData[]): Ledger['last_payment'] {
  let last: Ledger['last_payment'];
  for (const p of payments) if (!REVERSED.has(p.status) && isLater(p, last)) last = lastPaymentFields(p);
  return last;
}

/** Aging of one currency's open items on a day. Buckets are days past due. */
export interface Aging {
  current: number;
  aging: number;
  d30: number;
  d60: number;
  d90: number;
  d120: number;
  d180: number;
  /** 91+ days (the single-customer view's last bucket). */
  over90: number;
  /** 181+ days (the customer list's last bucket). */
  over180: number;
  credit: number;
  unapplied: number;
}

const zeroAging = (): Aging => ({ current: 0, aging: 0, d30: 0, d60: 0, d90: 0, d120: 0, d180: 0, over90: 0, over180: 0, credit: 0, unapplied: 0 });

export interface LedgerAging {
  byCurrency: Map<string, Aging>;
  oldest?: { number: string; date: string; owing: number; currency: string };
}

/**
 * Balances and aging as of `today` (YYYY-MM-DD in the shop's zone). Open items with a negative
 * owing (credit memos) count as credit, not as balance. An item without a due date is due on its
 * invoice date.
 */
export function agingOf(ledger: Ledger, today: string): LedgerAging {
  const byCurrency = new Map<string, Aging>();
  const of = (c: string) => {
    let a = byCurrency.get(c);
    if (!a) byCurrency.set(c, (a = zeroAging()));
    return a;
  };
  let oldest: LedgerAging['oldest'];
  for (const [number, item] of Object.entries(ledger.open) as Array<[string, OpenItem]>) {
    const [date, due, owing, currency] = item;
    const a = of(currency);
    if (owing < 0) {
      a.credit += owing;
      continue;
    }
    if (!oldest || date < oldest.date || (date === oldest.date && number < oldest.number)) oldest = { number, date, owing, currency };
    const late = daysBetween(due || date, today);
    if (late <= 0) {
      a.current += owing;
      continue;
    }
    a.aging += owing;
    if (late <= 30) a.d30 += owing;
    else if (late <= 60) a.d60 += owing;
    else if (late <= 90) a.d90 += owing;
    else {
      a.over90 += owing;
      if (late <= 120) a.d120 += owing;
      else if (late <= 180) a.d180 += owing;
      else a.over180 += owing;
    }
  }
  for (const [currency, cents] of Object.entries(ledger.unapplied)) of(currency).unapplied += cents;
  return { byCurrency, ...(oldest ? { oldest } : {}) };
}

/**
 * What a customer owes in one currency, credits (negative items) apart: the aging's current plus
 * past due, which does not depend on the day. The customer list's balance and its rank; without
 * agingOf's dates, as a rank is written with every customer write of a unit.
 */
export function owingIn(ledger: Ledger, currency: string): number {
  let owing = 0;
  for (const item of Object.values(ledger.open) as OpenItem[]) if (item[3] === currency && item[2] > 0) owing += item[2];
  return owing;
}

/** The credit-limit currency default: the currency of most of the customer's invoices, else the account's. */
export function majorityCurrency(ledger: Ledger, fallback: string): string {
  let best = fallback;
  let count = 0;
  for (const [currency, n] of Object.entries(ledger.currencies)) {
    if (n > count || (n === count && currency === fallback)) {
      best = currency;
      count = n;
    }
  }
  return best;
}
