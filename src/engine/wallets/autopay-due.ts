import type { EngineCore } from '../core';
import type { DueInvoice, ReceivablesPort } from './autopay-port';
import { heldOf } from './autopay-holds';

/**
 * What an autopay run charges for one agreement on a day: its rule, in one place, so that the run
 * (autopay.ts) and the question "what would turning autopay on charge at once?" (the preview the
 * customer page asks before a person confirms) cannot drift apart.
 */
export interface AgreementScope {
  /** The auto_debit_reference values it covers; none: every invoice no specific agreement claims. */
  references: string[];
}

/** One sale of a run: the agreement's due invoices in one currency. */
export interface DueCharge {
  /** ISO 4217, upper case. */
  currency: string;
  amount_cents: number;
  invoices: Array<DueInvoice & { charge_cents: number }>;
}

/** Which of the due invoices an agreement covers; a held one never (autopay-holds.ts). */
function covered(a: AgreementScope, all: readonly AgreementScope[], invoices: DueInvoice[], held: ReadonlySet<string>): DueInvoice[] {
  const claimed = new Set(all.filter((o) => o.references.length).flatMap((o) => o.references));
  return invoices.filter((inv) => {
    if (!inv.auto_debit || inv.owing_cents <= 0 || held.has(inv.number)) return false;
    if (a.references.length) return inv.auto_debit_reference !== null && a.references.includes(inv.auto_debit_reference);
    return inv.auto_debit_reference === null || !claimed.has(inv.auto_debit_reference);
  });
}

/**
 * The sales a run on `today` makes for agreement `a` of a customer whose agreements are `all`
 * (`a` among them): its covered invoices due on or before today, one sale per currency, each
 * invoice charged what it owes less the early-payment discount still open today.
 * `holds: 'released'` answers for an agreement about to be made: a new agreement is a new
 * authorization and releases the customer's held invoices in its own unit of work.
 */
export async function dueCharges(core: EngineCore, port: ReceivablesPort, customer: string, a: AgreementScope, all: readonly AgreementScope[], today: string, holds: 'kept' | 'released' = 'kept'): Promise<DueCharge[]> {
  const open = (await port.dueInvoices(customer, today)).filter((i) => i.due_date <= today);
  const held = holds === 'released' ? new Set<string>() : await heldOf(core, open.map((i) => i.number));
  const byCurrency = new Map<string, DueCharge>();
  for (const inv of covered(a, all, open, held)) {
    const currency = inv.currency.toUpperCase();
    const charge = byCurrency.get(currency) ?? { currency, amount_cents: 0, invoices: [] };
    const charge_cents = inv.owing_cents - (inv.discount_cents ?? 0);
    charge.invoices.push({ ...inv, charge_cents });
    charge.amount_cents += charge_cents;
    byCurrency.set(currency, charge);
  }
  return [...byCurrency.values()];
}
