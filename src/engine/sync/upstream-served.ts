import type { EngineCore } from '../core';
import { putRecord } from '../records';
import type { AllocationCut } from '../receivables/types';
import type { UpstreamDoc } from './upstream-fork';
import { UpstreamRefused, type UpstreamLink } from './upstream-link';
import { bodyOfRecord, centsOf, UPSTREAM_ENTITIES, type Body } from './upstream-shapes';

/**
 * Payments made apart on both sides of the link may together ask more of an invoice than it owes.
 * Each install then serves them in one order (receivables/served-order.ts: payment date, then
 * identifier): the payment served later gives way, its excess unapplied credit, so both converge
 * on the same allocations. A cut is money a payer sees moved, so the operator is told: a
 * `sync_exception` `allocation_reduced` per invoice, whichever side made the cut.
 */
const INVOICES = UPSTREAM_ENTITIES.find((e) => e.name === 'invoices')!;
const PAYMENTS = UPSTREAM_ENTITIES.find((e) => e.name === 'payments')!;

type Entry = { invoice_number: string; amount: number };
const entriesOf = (body: Body | undefined): Entry[] => (Array.isArray(body?.payment_amounts_attributes) ? (body.payment_amounts_attributes as Entry[]) : []);

function record(core: EngineCore, invoice: string, direction: 'pull' | 'push', detail: Record<string, unknown> & { reduced_cents: number; message: string }) {
  return core.mutate((tx) =>
    putRecord(
      tx,
      'sync_exception',
      `upstream:reduced:invoices:${invoice}`,
      { peer: 'upstream', document: `invoices/${invoice}`, reason: 'allocation_reduced', direction, ...detail, at: tx.at },
      { type: 'sync_exception.created', entity: 'sync_exception', key: `invoices/${invoice}` },
    ),
  );
}

/** Cuts this install made importing a pulled payment or invoice (`via`), per invoice. */
export async function recordPulledCuts(core: EngineCore, via: string, cuts: readonly AllocationCut[]): Promise<void> {
  const byInvoice = new Map<string, AllocationCut[]>();
  for (const c of cuts) byInvoice.set(c.invoice_number, [...(byInvoice.get(c.invoice_number) ?? []), c]);
  for (const [invoice, list] of byInvoice) {
    const payments = list.map(({ invoice_number: _i, ...c }) => c);
    const what = payments.map((c) => `${c.payment} ${c.from_cents} → ${c.to_cents}`).join(', ');
    const message = `invoice ${invoice} could not take every payment, or its amount no longer allows what they applied: the payments served last (payment date, then identifier) apply less (${what}), the rest their unapplied credit (a credit memo's credit they no longer use, they apply less to their invoices), here and on the upstream`;
    await record(core, invoice, 'pull', { via, payments, reduced_cents: list.reduce((sum, c) => sum + c.from_cents - c.to_cents, 0), message });
  }
}

/** The upstream's view of one record, or undefined when it has none (404). */
async function theirs(link: UpstreamLink, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await link.call(path)) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof UpstreamRefused && err.status === 404) return undefined;
    throw err;
  }
}

/**
 * Before a payment goes up: each invoice it applies more to than the upstream last held of it (by
 * the version last exchanged) is read on the upstream (its single view's owing), and when it owes
 * less than the payment's entry, the upstream's own copy of the payment too (its import replaces
 * that copy's allocations first). When the upstream then has less room than the payment adds, its
 * import takes the difference off the payments it serves after this one (or this one), as this
 * install would: said to the operator. The payments cut there come back here on the next pull.
 */
export async function checkRoomUpstream(core: EngineCore, link: UpstreamLink, doc: UpstreamDoc, assumed: UpstreamDoc | undefined): Promise<void> {
  const sum = (body: Body | undefined, invoice: string) => entriesOf(body).reduce((total, e) => (e.invoice_number === invoice ? total + e.amount : total), 0);
  for (const invoice of new Set(entriesOf(doc.body).filter((e) => e.amount > 0).map((e) => e.invoice_number))) {
    const cents = sum(doc.body, invoice);
    if (cents <= Math.max(0, sum(assumed?.body, invoice))) continue;
    const view = await theirs(link, INVOICES.viewPath(invoice));
    const owing = view && (typeof view.owing_cents === 'number' ? view.owing_cents : centsOf(view.owing, view.currency));
    // Not there yet (the push sends it first), or owing enough: nothing is cut.
    if (owing === undefined || owing === null || owing >= cents) continue;
    const copy = await theirs(link, PAYMENTS.viewPath(doc.id));
    const more = cents - Math.max(0, sum((copy && bodyOfRecord('payments', copy)) ?? undefined, invoice));
    if (owing >= more) continue;
    const reduced = more - Math.max(0, owing);
    const message = `payment ${doc.id} applies ${more} more to invoice ${invoice}, which owed ${owing} on the upstream: ${reduced} comes off the payments served after it there (payment date, then identifier), or off ${doc.id}, as their unapplied credit; their new versions come back here`;
    await record(core, invoice, 'push', { via: `payments/${doc.id}`, upstream_owing_cents: owing, added_cents: more, reduced_cents: reduced, message });
  }
}
