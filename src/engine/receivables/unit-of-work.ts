import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { dateInZone } from '../clock';
import { fail } from '../errors';
import { getRecord, putRecord, recordId } from '../records';
import type { CustomerDoc, DivisionData, InvoiceDoc, Ledger, PaymentAmountDoc, PaymentData, PaymentDoc } from './types';
import { applyInvoiceToLedger, applyPaymentToLedger, changesLedger, lastPaymentOf } from './ledger';
import { decodeInvoice, encodeInvoice, type InvoiceRow } from './invoice-codec';
import { CUSTOMER_RANK, rankCustomerInTx } from './customer-rank';

interface Slot<T> {
  doc: T;
  /** The committed version this unit started from; undefined for a record created here. */
  original: T | undefined;
  dirty: boolean;
}

/** flush() writes each record last in its unit and never changes it again: no copy when staged. */
const HAND_OVER = { handOver: true } as const;

export const emptyLedger = (): Ledger => ({ open: {}, unapplied: {}, currencies: {}, divisions: {} });

/**
 * One unit of work of the receivables domain. It loads each record once, lets the rules change
 * them in memory, and at `flush()` writes every changed record exactly once (one watermark, one
 * event each). Customer ledgers are reconciled here from what changed on invoices and payments
 * (before vs after), so no rule has to remember to move a balance.
 */
export class ReceivablesUnit {
  readonly today: string;
  private readonly customers = new Map<string, Slot<CustomerDoc>>();
  private readonly customerIds = new Map<string, string | null>();
  private readonly invoices = new Map<string, Slot<InvoiceDoc>>();
  private readonly payments = new Map<string, Slot<PaymentDoc>>();
  private readonly amounts = new Map<string, Slot<PaymentAmountDoc>>();
  private readonly divisions = new Map<string, Slot<DivisionData | undefined>>();

  constructor(
    readonly tx: Tx,
    readonly core: EngineCore,
    readonly account: Account,
  ) {
    this.today = dateInZone(tx.now, account.profile().timezone);
  }

  get currency(): string {
    return this.account.profile().currency;
  }

  // Customers ---------------------------------------------------------------------------------

  /**
   * Customer ids the caller learned in its earlier units (identifier → id), as a file import's
   * chunks do: a lookup by identifier then reads by primary key instead of querying the index.
   * Only a hint: the customer read is checked, and one since renamed falls back to the query.
   */
  knownCustomerIds: ReadonlyMap<string, string> | undefined;

  async customerByIdentifier(identifier: string): Promise<CustomerDoc | undefined> {
    if (this.customerIds.has(identifier)) {
      const id = this.customerIds.get(identifier);
      return id ? this.customers.get(id)?.doc : undefined;
    }
    const known = this.knownCustomerIds?.get(identifier);
    if (known) {
      const doc = await this.customerById(known);
      if (doc?.identifier === identifier) return doc;
    }
    const [found] = await this.tx.find<CustomerDoc & { [k: string]: unknown }>('customers', {
      selector: { identifier },
      sort: [{ identifier: 'asc' }],
      limit: 1,
    });
    if (!found) {
      this.customerIds.set(identifier, null);
      return undefined;
    }
    return this.adoptCustomer(found);
  }

  async customerById(id: string): Promise<CustomerDoc | undefined> {
    const slot = this.customers.get(id);
    if (slot) return slot.doc;
    const found = await this.tx.get<CustomerDoc & { [k: string]: unknown }>('customers', id);
    return found ? this.adoptCustomer(found) : undefined;
  }

  private adoptCustomer(found: CustomerDoc): CustomerDoc {
    const existing = this.customers.get(found.id);
    if (existing) return existing.doc;
    // Only whether a customer was stored is read of its original (created or updated): ledgers are
    // reconciled from invoices and payments. No copy of a ledger that grows with every invoice.
    this.customers.set(found.id, { doc: found, original: found, dirty: false });
    this.customerIds.set(found.identifier, found.id);
    return found;
  }

  /**
   * Reads in one store call the invoices and the (hinted) customers a run of records is about to
   * ask for one by one: a file import's chunk names hundreds of each, and a read per record
   * costs several times its share of one batched read.
   */
  async prefetch(want: { invoiceNumbers?: readonly string[]; customerIdentifiers?: readonly string[] }): Promise<void> {
    const known = this.knownCustomerIds;
    const customerIds = known ? (want.customerIdentifiers ?? []).flatMap((identifier) => known.get(identifier) ?? []) : [];
    if (customerIds.length) await this.tx.prefetch('customers', customerIds);
    if (want.invoiceNumbers?.length) await this.tx.prefetch('invoices', want.invoiceNumbers);
  }

  /** Identifier → id of every customer this unit read or created (to hint the next unit). */
  *customerIdsSeen(): Generator<[string, string]> {
    for (const slot of this.customers.values()) yield [slot.doc.identifier, slot.doc.id];
  }

  addCustomer(doc: CustomerDoc): void {
    this.customers.set(doc.id, { doc, original: undefined, dirty: true });
    this.customerIds.set(doc.identifier, doc.id);
  }

  touchCustomer(doc: CustomerDoc): void {
    const slot = this.customers.get(doc.id);
    if (!slot) throw fail.internal('session_customer', 'customer changed outside its unit of work');
    slot.dirty = true;
  }

  /** A rename: the old identifier is free again within this unit. */
  renameCustomer(doc: CustomerDoc, to: string): void {
    this.customerIds.set(doc.identifier, null);
    doc.identifier = to;
    doc.data.identifier = to;
    this.customerIds.set(to, doc.id);
    this.touchCustomer(doc);
  }

  // Invoices ----------------------------------------------------------------------------------

  async invoice(number: string): Promise<InvoiceDoc | undefined> {
    const slot = this.invoices.get(number);
    if (slot) return slot.doc;
    const row = await this.tx.get<InvoiceRow & { [k: string]: unknown }>('invoices', number);
    return row ? this.adoptInvoice(row) : undefined;
  }

  /** A stored invoice row found by a query: decoded once per unit. */
  adoptInvoice(row: InvoiceRow): InvoiceDoc {
    const slot = this.invoices.get(row.id);
    if (slot) return slot.doc;
    const doc = decodeInvoice(row);
    this.invoices.set(row.id, { doc, original: decodeInvoice(row), dirty: false });
    return doc;
  }

  putInvoice(doc: InvoiceDoc): void {
    const slot = this.invoices.get(doc.id);
    if (slot) {
      slot.doc = doc;
      slot.dirty = true;
    } else this.invoices.set(doc.id, { doc, original: undefined, dirty: true });
  }

  // Payments ----------------------------------------------------------------------------------

  async payment(reference: string): Promise<PaymentDoc | undefined> {
    const slot = this.payments.get(reference);
    if (slot) return slot.doc;
    const found = await this.tx.get<PaymentDoc & { [k: string]: unknown }>('payments', reference);
    if (!found) return undefined;
    this.payments.set(reference, { doc: found, original: structuredClone(found), dirty: false });
    return found;
  }

  adoptPayment(found: PaymentDoc): PaymentDoc {
    const slot = this.payments.get(found.id);
    if (slot) return slot.doc;
    this.payments.set(found.id, { doc: found, original: structuredClone(found), dirty: false });
    return found;
  }

  putPayment(doc: PaymentDoc): void {
    const slot = this.payments.get(doc.id);
    if (slot) {
      slot.doc = doc;
      slot.dirty = true;
    } else this.payments.set(doc.id, { doc, original: undefined, dirty: true });
  }

  /** The payments written in this unit so far (a batch's earlier records: not in the store yet). */
  paymentsWritten(): PaymentDoc[] {
    return [...this.payments.values()].filter((slot) => slot.dirty).map((slot) => slot.doc);
  }

  async paymentAmount(id: string): Promise<PaymentAmountDoc | undefined> {
    const slot = this.amounts.get(id);
    if (slot) return slot.doc;
    const found = await this.tx.get<PaymentAmountDoc & { [k: string]: unknown }>('payment_amounts', id);
    if (!found) return undefined;
    this.amounts.set(id, { doc: found, original: found, dirty: false });
    return found;
  }

  putPaymentAmount(doc: PaymentAmountDoc): void {
    const slot = this.amounts.get(doc.id);
    if (slot) {
      slot.doc = doc;
      slot.dirty = true;
    } else this.amounts.set(doc.id, { doc, original: undefined, dirty: true });
  }

  /** A customer's payments as this unit leaves them, in the order they were applied (watermark). */
  private async paymentsOf(customerId: string): Promise<PaymentData[]> {
    const stored = await this.tx.find<PaymentDoc & { [k: string]: unknown }>('payments', { selector: { customer: customerId }, sort: [{ customer: 'asc' }, { watermark: 'asc' }] });
    const untouched = stored.filter((p) => !this.payments.get(p.id)?.dirty);
    // Those written in this unit come last: they are applied now.
    const written = [...this.payments.values()].filter((slot) => slot.dirty && slot.doc.customer === customerId).map((slot) => slot.doc);
    return [...untouched, ...written].map((p) => p.data);
  }

  // Divisions ---------------------------------------------------------------------------------

  async division(code: string): Promise<DivisionData | undefined> {
    const slot = this.divisions.get(code);
    if (slot) return slot.doc;
    const found = (await getRecord<DivisionData>(this.tx, 'division', code))?.data;
    this.divisions.set(code, { doc: found, original: found, dirty: false });
    return found;
  }

  putDivision(data: DivisionData): void {
    const slot = this.divisions.get(data.code);
    if (slot) {
      slot.doc = data;
      slot.dirty = true;
    } else this.divisions.set(data.code, { doc: data, original: undefined, dirty: true });
  }

  // Commit ------------------------------------------------------------------------------------

  /** Reconciles ledgers, then writes every changed record once, in a stable order. */
  async flush(): Promise<void> {
    for (const slot of this.invoices.values()) {
      if (!slot.dirty) continue;
      const before = slot.original;
      const after = slot.doc;
      // A change its customer's ledger does not see (notes, an attachment, a PO number) leaves the
      // customer as it is: no new version, no event, no place in the customer exports.
      if (before && !changesLedger(before, after)) continue;
      if (before) {
        const owner = await this.customerById(before.customer);
        if (owner) {
          applyInvoiceToLedger(owner.data.ledger, before, -1);
          this.touchCustomer(owner);
        }
      }
      const owner = await this.customerById(after.customer);
      if (!owner) throw fail.internal('invoice_without_customer', `invoice ${after.id} has no customer`);
      applyInvoiceToLedger(owner.data.ledger, after, 1);
      this.touchCustomer(owner);
    }
    // Customers whose last payment was among the versions replaced here.
    const lostLast = new Set<CustomerDoc>();
    for (const slot of this.payments.values()) {
      if (!slot.dirty) continue;
      if (slot.original) {
        const owner = await this.customerById(slot.original.customer);
        if (owner) {
          if (applyPaymentToLedger(owner.data.ledger, slot.original.data, -1)) lostLast.add(owner);
          this.touchCustomer(owner);
        }
      }
      const owner = await this.customerById(slot.doc.customer);
      if (!owner) throw fail.internal('payment_without_customer', `payment ${slot.doc.id} has no customer`);
      applyPaymentToLedger(owner.data.ledger, slot.doc.data, 1);
      this.touchCustomer(owner);
    }
    for (const owner of lostLast) owner.data.ledger.last_payment = lastPaymentOf(await this.paymentsOf(owner.id));

    const { tx } = this;
    const sender = this.account.profile().sender_identifier;
    for (const [code, slot] of this.divisions) {
      if (!slot.dirty || !slot.doc) continue;
      await putRecord(tx, 'division', code, slot.doc, {
        type: slot.original ? 'division.updated' : 'division.created',
        entity: 'division',
        key: code,
        data: { name: slot.doc.name, deleted: slot.doc.deleted === true },
      }, slot.doc.parent_code ?? '');
    }
    for (const slot of this.customers.values()) {
      if (!slot.dirty) continue;
      const doc = slot.doc;
      doc.data.updated_at = tx.at;
      doc.data.updated_ms = tx.now;
      const stamped = await tx.put('customers', doc, {
        type: slot.original ? 'customer.updated' : 'customer.created',
        entity: 'customer',
        key: doc.identifier,
        data: { name: doc.data.name },
      }, HAND_OVER);
      doc.watermark = stamped.watermark;
    }
    for (const slot of this.invoices.values()) {
      if (!slot.dirty) continue;
      const doc = slot.doc;
      if (!slot.original) {
        // An invoice's numeric id is the watermark of its first version: unique, increasing, and
        // free (no counter record). Units are serialised, so the next put gets exactly this one.
        doc.iid = this.core.currentWatermark() + 1;
        doc.data.iid = doc.iid;
      }
      doc.data.updated_at = tx.at;
      doc.data.updated_ms = tx.now;
      const row = encodeInvoice(doc, sender);
      doc.feed = row.feed;
      doc.display_number = row.display_number;
      doc.division = row.division;
      const stamped = await tx.put('invoices', row, {
        type: slot.original ? (doc.data.deleted && !slot.original.data.deleted ? 'invoice.deleted' : 'invoice.updated') : 'invoice.created',
        entity: 'invoice',
        key: doc.id,
        data: { customer_identifier: doc.data.customer_identifier, amount_cents: doc.data.amount_cents, owing_cents: doc.data.owing_cents, currency: doc.data.currency },
      }, HAND_OVER);
      if (!slot.original && stamped.watermark !== doc.iid) throw fail.internal('invoice_id_drift', 'invoice id did not match its first watermark');
      doc.watermark = stamped.watermark;
    }
    for (const slot of this.payments.values()) {
      if (!slot.dirty) continue;
      const doc = slot.doc;
      doc.data.updated_at = tx.at;
      doc.data.updated_ms = tx.now;
      const stamped = await tx.put('payments', doc, {
        type: slot.original ? 'payment.updated' : 'payment.created',
        entity: 'payment',
        key: doc.id,
        data: { customer_identifier: doc.data.customer_identifier, amount_cents: doc.data.amount_cents, currency: doc.data.currency, status: doc.data.status },
      }, HAND_OVER);
      doc.watermark = stamped.watermark;
    }
    for (const slot of this.amounts.values()) {
      if (!slot.dirty) continue;
      const stamped = await tx.put('payment_amounts', slot.doc, {
        type: slot.original ? 'payment_amount.updated' : 'payment_amount.created',
        entity: 'payment_amount',
        key: slot.doc.id,
        data: { invoice_number: slot.doc.invoice, payment_reference: slot.doc.payment },
      }, HAND_OVER);
      slot.doc.watermark = stamped.watermark;
    }
    // Last, so the unit's own records keep their order: the back office's balance index (customer-rank.ts).
    const rankContext = { accountCurrency: this.account.profile().currency };
    const ranked = [...this.customers.values()].filter((slot) => slot.dirty).map((slot) => recordId(CUSTOMER_RANK, slot.doc.id));
    if (ranked.length > 1) await tx.prefetch('records', ranked);
    for (const slot of this.customers.values()) if (slot.dirty) await rankCustomerInTx(tx, slot.doc, rankContext);
  }
}

/**
 * Runs receivables rules in one unit of work and flushes them. `fn` may throw: then nothing is
 * written, no event is emitted and no watermark is used.
 */
export function inUnitOfWork<T>(core: EngineCore, account: Account, fn: (s: ReceivablesUnit) => Promise<T>): Promise<T> {
  return core.mutate((tx) => inUnitOfWorkInTx(tx, core, account, fn));
}

/** The same, as part of another domain's unit of work (a refund's): committed or rolled back with it. */
export async function inUnitOfWorkInTx<T>(tx: Tx, core: EngineCore, account: Account, fn: (s: ReceivablesUnit) => Promise<T>): Promise<T> {
  const unit = new ReceivablesUnit(tx, core, account);
  const result = await fn(unit);
  await unit.flush();
  return result;
}
