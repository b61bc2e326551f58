import type { Static } from '@sinclair/typebox';
import { eventId, type EngineCore, type Tx } from '../core';
import type { CustomerListItem, CustomerOpenInvoice, CustomerView } from '../../shared/schemas/receivables-customers';
import type { InvoiceView } from '../../shared/schemas/receivables-invoices';
import type { PaymentView } from '../../shared/schemas/receivables-payments';
import type { Account } from '../account';
import { dateInZone } from '../clock';
import { fail, notFound } from '../errors';
import { recordsOfKind } from '../records';
import { attach, decodeAttachment } from './attachments';
import { countryCodes } from './countries';
import { cancelInvitation, groupCustomers, issueInvitation, markSignedUp, renameCustomer, requireCustomer, upsertCustomer } from './customers';
import { customerListItem, customerView } from './customer-view';
import { importDivision } from './divisions';
import { RECENT_MS, byWatermark, collect, recentFrom, type JsonParts, type Page } from './exports';
import { deleteInvoice, importInvoice, type InvoiceImportOptions } from './invoices';
import { openInvoiceItem } from './invoice-view';
import { decodeInvoice, invoiceJson, type InvoiceRow } from './invoice-codec';
import { createInvoicePages, type InvoiceFeed } from './fast-export';
import { applyCredit, type CreditApplication } from './payment-credit';
import { importPayment, keepOfPayment, recordPayment, takeOffPlan, reversePayment, settlePayment, type ImportChannel, type PaymentImportOptions, type RecordPaymentInput } from './payments';
import { NO_FX, paymentAmountView, paymentView } from './payment-view';
import { EMAIL_RE, Problems } from './problems';
import { inUnitOfWork, inUnitOfWorkInTx, type ReceivablesUnit } from './unit-of-work';
import { earlyPaymentDiscount } from './early-discount';
import { invoiceDocument, type InvoiceDocument } from './invoice-document';
import { parsePayKey, payKey, sameSecret, type PayableInvoice } from './pay-key';
import type { CustomerDoc, CustomerImportInput, DivisionData, DivisionImportInput, InvoiceDoc, InvoiceImportInput, OwedAgain, PaymentAmountDoc, PaymentAmountRecord, PaymentCsvRow, PaymentDoc, PaymentImportInput, RefundCause } from './types';

export type { RecordPaymentInput, ImportChannel } from './payments';
export type { PayableInvoice } from './pay-key';
export type { InvoiceDocument } from './invoice-document';
export type { JsonParts, Page } from './exports';

export type { CustomerImportInput, DivisionImportInput, InvoiceImportInput, OwedAgain, PaymentCsvRow, PaymentImportInput, RefundCause } from './types';

export interface ImportReply {
  identifier: string;
  message: string;
}

export interface InvoiceImportReply extends ImportReply {
  /** With echo=pay_urls on an invoice in an owing position: click-to-pay paths (the route makes them absolute). */
  pay?: { url: string; urls: Record<string, string> };
}

/** An open invoice due by a date: what autopay charges. */
export interface DueInvoice {
  number: string;
  display_number: string;
  currency: string;
  amount_cents: number;
  owing_cents: number;
  /** The early-payment discount a payment of all of it on the as-of date takes (early-discount.ts); 0 for none. */
  discount_cents: number;
  date: string;
  due_date: string | null;
  /** false when the invoice is marked auto_debit N: the customer pays it by hand. */
  auto_debit: boolean;
  /** The policy or contract number an autopay agreement may be limited to. */
  auto_debit_reference: string | null;
}

export type { InvoiceFeed } from './fast-export';

/** The receivables domain: customers, invoices, invoicing payments, divisions. */
export interface Receivables {
  /** createOnly: an identifier already used is refused (412 customer_exists), not updated. */
  importCustomer(input: CustomerImportInput, options?: { createOnly?: boolean }): Promise<ImportReply>;
  viewCustomer(identifier: string): Promise<Static<typeof CustomerView>>;
  exportCustomers(page: Page, recent: boolean): Promise<Array<Static<typeof CustomerListItem>>>;
  exportCustomerOpenInvoices(identifier: string, page: Page): Promise<Array<Static<typeof CustomerOpenInvoice>>>;
  updateIdentifier(identifier: string, next: string): Promise<ImportReply>;
  issueInvitation(identifier: string, email: string, by?: 'supplier' | 'customer'): Promise<void>;
  cancelInvitation(identifier: string, email: string): Promise<void>;
  markSignedUp(identifier: string, email: string): Promise<void>;
  groupCustomers(identifiers: string[], groupId?: string): Promise<string>;
  setAutoDebit(identifier: string, enabled: boolean): Promise<void>;

  /** createOnly: a number already used is refused (412 invoice_exists); customerOnFile: an unknown customer is refused (412 customer_not_found), not created. */
  importInvoice(input: InvoiceImportInput, options?: InvoiceImportOptions): Promise<InvoiceImportReply>;
  /** Many invoices in one unit of work (all or nothing): bulk loads and the benchmark's seed. */
  importInvoices(inputs: InvoiceImportInput[]): Promise<number>;
  addAttachment(findBy: 'number' | 'display_number', key: string, input: { file_name: unknown; content: unknown; invoice_display?: unknown }): Promise<ImportReply>;
  viewInvoice(numberOrId: string, options?: { payments?: boolean }): Promise<Static<typeof InvoiceView>>;
  /** The invoice as its printed copy shows it (invoice-document.ts): lines, sums and the customer as on file. */
  invoiceDocument(numberOrId: string): Promise<InvoiceDocument>;
  /** The invoice a click-to-pay link opens (its numeric id and pay token, see payKey), or undefined for any other key. */
  payableInvoice(key: string): Promise<PayableInvoice | undefined>;
  /**
   * A page of the invoice export as JSON per record, as UTF-8 parts made of the stored
   * renderings (sent without parsing or re-serialising anything), and the day its statuses are
   * computed for.
   */
  exportInvoicesJson(feed: InvoiceFeed, page: Page, options?: { includeDeleted?: boolean }): Promise<{ asOf: string; records: Array<{ watermark: number; json: JsonParts }> }>;
  /**
   * exportInvoicesJson in chunks of at most `chunk` records, each read when the one before has
   * been taken: the HTTP export sends a chunk while the next one is read.
   */
  exportInvoicesJsonChunks(
    feed: InvoiceFeed,
    page: Page,
    options?: { includeDeleted?: boolean; chunk?: number },
  ): { asOf: string; records: AsyncGenerator<Array<{ watermark: number; json: JsonParts }>> };
  deleteInvoice(number: string): Promise<void>;
  dueOpenInvoices(customerIdentifier: string, asOf: string): Promise<DueInvoice[]>;

  /** `createOnly`: an identifier already recorded is refused (412 payment_exists) instead of updated. */
  importPayment(input: PaymentImportInput, channel?: Exclude<ImportChannel, 'csv'>, options?: PaymentImportOptions): Promise<ImportReply>;
  importPayment(input: PaymentCsvRow, channel: 'csv'): Promise<ImportReply>;
  /** A payment's unapplied credit applied to open invoices of its customer (payment-credit.ts). */
  applyCredit(reference: string, applications: readonly CreditApplication[]): Promise<Static<typeof PaymentView>>;
  recordPayment(input: RecordPaymentInput): Promise<Static<typeof PaymentView>>;
  /**
   * A payment reversed, its status saying why; with a `cause` (its money came back: a chargeback, an
   * ACH return) taken off it whole as a refund is (payments.ts, reversePayment).
   */
  reversePayment(reference: string, status: 'REVERSAL' | 'ERROR (NSF)' | 'ERROR (DECLINED)', reason?: string, cause?: RefundCause): Promise<Static<typeof PaymentView>>;
  /** A payment made here keeps `keepCents` of its amount; the rest goes back on its invoices (payments.ts, keepOfPayment). */
  keepOfPayment(reference: string, keepCents: number, reason: string, cause: RefundCause): Promise<Static<typeof PaymentView>>;
  /**
   * keepOfPayment in the caller's unit of work (a refund's or void's, so the payment says so when
   * the refund answers), with the payment as it was before; undefined when there is no such payment.
   */
  keepOfPaymentInTx(tx: Tx, reference: string, keepCents: number, reason: string, cause: RefundCause): Promise<{ before: Static<typeof PaymentView>; after: Static<typeof PaymentView> } | undefined>;
  /**
   * What keepOfPayment would put back owing, changing nothing (payments.ts, takeOffPlan): for a
   * refund's confirmation. Undefined when there is no such payment.
   */
  owedAgainIfKept(reference: string, keepCents: number): Promise<OwedAgain | undefined>;
  /** A payment made here that was IN PROGRESS (a bank payment) is PAID once its money settled. */
  settlePayment(reference: string): Promise<Static<typeof PaymentView>>;
  viewPayment(referenceOrToken: string, options?: { tree?: boolean }): Promise<Static<typeof PaymentView>>;
  exportPayments(page: Page, recent: boolean, options?: { tree?: boolean }): Promise<Array<Static<typeof PaymentView>>>;
  exportPaymentAmounts(page: Page): Promise<Array<PaymentAmountRecord & { watermark: number }>>;

  importDivision(input: DivisionImportInput): Promise<ImportReply>;
  countryCodes(): ReturnType<typeof countryCodes>;
  /** Stops the export read-ahead (before the store closes). */
  close(): Promise<void>;
}

export interface ReceivablesOptions {
  /** Read the next page of an invoice export ahead while a client takes in a full one (default on). See fast-export/. */
  exportReadAhead?: boolean;
  /**
   * Renames a customer's identifier in what other domains keep under it (wallets, autopay), in
   * the rename's own unit of work: a renamed customer keeps its payment methods and agreements.
   */
  onCustomerRenamed?: (tx: Tx, from: string, to: string) => Promise<void>;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function createReceivables(core: EngineCore, account: Account, settings: ReceivablesOptions = {}): Receivables {
  const run = <T>(fn: (s: ReceivablesUnit) => Promise<T>) => inUnitOfWork(core, account, fn);
  const today = () => dateInZone(core.clock.now(), account.profile().timezone);
  const sender = () => account.profile().sender_identifier;
  /** A payment as a change to it answers (no tree). */
  const changedPayment = (doc: Parameters<typeof paymentView>[0]) => paymentView(doc, { tree: false, lineShortPay: account.can('line_item_short_pay'), sender: sender() });

  const findCustomer = async (identifier: string): Promise<CustomerDoc | undefined> => {
    const [doc] = await core.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: { identifier }, sort: [{ identifier: 'asc' }], limit: 1 });
    return doc;
  };
  const divisionNames = async () => new Map((await recordsOfKind<DivisionData>(core, 'division')).map((r) => [r.data.code, r.data.name]));

  type Row = InvoiceRow & { [k: string]: unknown };
  const findInvoice = async (key: string): Promise<Row | undefined> => {
    const byNumber = await core.get<Row>('invoices', key);
    if (byNumber) return byNumber;
    const [byDisplay] = await core.find<Row>('invoices', { selector: { display_number: key }, sort: [{ display_number: 'asc' }, { id: 'asc' }], limit: 1 });
    if (byDisplay) return byDisplay;
    if (!/^\d{1,15}$/.test(key)) return undefined;
    // The numeric id is the watermark of the invoice's first version: its invoice.created event
    // in the outbox names the invoice.
    const created = await core.get<{ id: string; watermark: number; type: string; key: string }>('events', eventId(Number(key)));
    return created?.type === 'invoice.created' ? core.get<Row>('invoices', created.key) : undefined;
  };
  const decodeAll = async (numbers: string[]) => ((await core.store.getMany('invoices', numbers)) as unknown as InvoiceRow[]).map(decodeInvoice);

  const invoicePages = createInvoicePages(core, { today, readAhead: settings.exportReadAhead ?? true });

  const recentAfter = async (collection: string, page: Page): Promise<Page> => {
    const from = await recentFrom(core, collection, core.clock.now() - RECENT_MS);
    return { after: Math.max(page.after, from - 1), limit: page.limit };
  };
  const isRecent = (doc: { data: { updated_ms?: number } }) => (doc.data.updated_ms ?? 0) >= core.clock.now() - RECENT_MS;

  const payUrls = (invoice: InvoiceDoc, customer: CustomerDoc) => {
    const path = `/pay/${payKey(invoice.iid, invoice.data.pay_token)}`;
    const urls: Record<string, string> = {};
    for (const c of customer.data.contacts) if (!c.disabled) urls[c.email] = `${path}?contact=${c.token}`;
    return { url: path, urls };
  };

  return {
    async importCustomer(input, options = {}) {
      const r = await run((s) => upsertCustomer(s, input, { createOnly: options.createOnly === true }));
      return { identifier: r.customer.identifier, message: `1 customer with ${plural(r.contacts, 'contact')}` };
    },

    async viewCustomer(identifier) {
      const doc = await findCustomer(identifier);
      if (!doc) throw notFound('customer_not_found', `No customer with identifier ${identifier}`);
      const parent = doc.parent ? await core.get<CustomerDoc & { [k: string]: unknown }>('customers', doc.parent) : undefined;
      let root = parent ?? doc;
      const seen = new Set([doc.id]);
      while (root.parent && !seen.has(root.parent)) {
        seen.add(root.id);
        const up = await core.get<CustomerDoc & { [k: string]: unknown }>('customers', root.parent);
        if (!up) break;
        root = up;
      }
      const names = await divisionNames();
      return customerView(doc, { today: today(), accountCurrency: account.profile().currency, divisionName: (c) => names.get(c) }, { ...(parent ? { parent } : {}), root: root.identifier });
    },

    async exportCustomers(page, recent) {
      const ctx = { today: today(), accountCurrency: account.profile().currency };
      const docs = recent
        ? await byWatermark<CustomerDoc & { [k: string]: unknown }>(core, 'customers', await recentAfter('customers', page), { keep: isRecent })
        : await byWatermark<CustomerDoc & { [k: string]: unknown }>(core, 'customers', page);
      return docs.map((d) => customerListItem(d, ctx));
    },

    async exportCustomerOpenInvoices(identifier, page) {
      const doc = await findCustomer(identifier);
      if (!doc) throw notFound('customer_not_found', `No customer with identifier ${identifier}`);
      const numbers = Object.keys(doc.data.ledger.open);
      const invoices = await decodeAll(numbers);
      return invoices
        .filter((i) => i.watermark > page.after && i.data.owing_cents !== 0 && !i.data.deleted)
        .sort((a, b) => a.watermark - b.watermark)
        .slice(0, page.limit)
        .map((i) => openInvoiceItem({ ...i }));
    },

    async updateIdentifier(identifier, next) {
      const doc = await run(async (s) => {
        const renamed = await renameCustomer(s, identifier, next);
        if (renamed.identifier !== identifier) await settings.onCustomerRenamed?.(s.tx, identifier, renamed.identifier);
        return renamed;
      });
      return { identifier: doc.identifier, message: 'customer identifier updated' };
    },

    async issueInvitation(identifier, email, by = 'supplier') {
      if (!EMAIL_RE.test(email)) throw fail.invalid('invalid_email', `email ${email} is not an email address`, [{ field: 'email', message: 'must be an email address' }]);
      await run((s) => issueInvitation(s, identifier, email, by));
    },

    async cancelInvitation(identifier, email) {
      await run((s) => cancelInvitation(s, identifier, email));
    },

    async markSignedUp(identifier, email) {
      await run((s) => markSignedUp(s, identifier, email));
    },

    groupCustomers: (identifiers, groupId) => run((s) => groupCustomers(s, identifiers, groupId)),

    async setAutoDebit(identifier, enabled) {
      await run(async (s) => {
        const doc = await requireCustomer(s, identifier);
        if (doc.data.auto_debit === enabled) return;
        doc.data.auto_debit = enabled;
        s.touchCustomer(doc);
      });
    },

    async importInvoice(input, options = {}) {
      const r = await run((s) => importInvoice(s, input, options));
      const reply: InvoiceImportReply = { identifier: r.invoice.id, message: `1 invoice ${r.lineItems} line items` };
      // After the unit: a new invoice's numeric id (part of its link) is given when it is written.
      if (r.echoPayUrls && r.invoice.data.owing_cents > 0) reply.pay = payUrls(r.invoice, r.customer);
      return reply;
    },

    async importInvoices(inputs) {
      const count = await run(async (s) => {
        for (const input of inputs) await importInvoice(s, input);
        return inputs.length;
      });
      // Back-to-back units resolve on microtasks only; RxDB processes its change events on a
      // timer, and holds every written document until it does. Let the event loop turn.
      await new Promise((resolve) => setImmediate(resolve));
      return count;
    },

    async addAttachment(findBy, key, input) {
      return run(async (s) => {
        let invoice: InvoiceDoc | undefined;
        if (findBy === 'number') invoice = await s.invoice(key);
        else {
          const found = await s.tx.find<Row>('invoices', { selector: { display_number: key }, sort: [{ display_number: 'asc' }, { id: 'asc' }], limit: 2 });
          if (found.length > 1) throw fail.precondition('ambiguous_display_number', `More than one invoice has display_number ${key}; find it by number`);
          invoice = found[0] ? s.adoptInvoice(found[0]) : undefined;
        }
        if (!invoice || invoice.data.deleted) throw notFound('invoice_not_found', `No invoice with ${findBy} ${key}`);
        const problems = new Problems();
        const primary = input.invoice_display === undefined ? true : input.invoice_display === true || input.invoice_display === 'true';
        const file = decodeAttachment(input, problems);
        problems.throwIfAny();
        if (!file) throw fail.internal('attachment', 'attachment missing after validation');
        await attach(s, invoice, file, primary);
        return { identifier: file.fileName, message: `1 attachment for invoice ${invoice.id}` };
      });
    },

    async payableInvoice(key) {
      const parsed = parsePayKey(key);
      if (!parsed) return undefined;
      const row = await findInvoice(parsed.id);
      if (!row) return undefined;
      const doc = decodeInvoice(row);
      if (String(doc.iid) !== parsed.id || !sameSecret(doc.data.pay_token, parsed.token)) return undefined;
      const asOf = today();
      const customer = await core.get<CustomerDoc & { [k: string]: unknown }>('customers', doc.customer);
      if (!customer) return undefined;
      const d = doc.data;
      return {
        number: doc.id,
        display_number: doc.display_number,
        customer_identifier: customer.identifier,
        customer_name: customer.data.name,
        currency: d.currency,
        date: d.date,
        due_date: d.due_date ?? null,
        amount_cents: d.amount_cents,
        owing_cents: d.deleted ? 0 : d.owing_cents,
        as_of: asOf,
        discount_cents: earlyPaymentDiscount(d, asOf, account.can('discounts')),
        discount_expiry_date: d.discount_expiry_date ?? null,
        deleted: d.deleted,
      };
    },

    async invoiceDocument(numberOrId) {
      const row = await findInvoice(numberOrId);
      if (!row) throw notFound('invoice_not_found', `No invoice with number, display_number or id ${numberOrId}`);
      const doc = decodeInvoice(row);
      const customer = await core.get<CustomerDoc & { [k: string]: unknown }>('customers', doc.customer);
      return invoiceDocument(doc, customer?.data, { today: today(), discountsOn: account.can('discounts') });
    },

    async viewInvoice(numberOrId, options = {}) {
      const row = await findInvoice(numberOrId);
      if (!row) throw notFound('invoice_not_found', `No invoice with number, display_number or id ${numberOrId}`);
      const doc = decodeInvoice(row);
      const view = JSON.parse(invoiceJson(row, today(), doc.data.deleted)) as Static<typeof InvoiceView>;
      if (options.payments) {
        const amounts = await core.find<PaymentAmountDoc & { [k: string]: unknown }>('payment_amounts', { selector: { invoice: doc.id }, sort: [{ invoice: 'asc' }, { id: 'asc' }] });
        // Drawn from its payment as the account is set now (line-item short pay may have been
        // turned on or off since the allocation was stored), as the payment export draws it.
        const opts = { lineShortPay: account.can('line_item_short_pay'), sender: sender() };
        const payments = (await core.store.getMany('payments', [...new Set(amounts.map((a) => a.payment))])) as unknown as PaymentDoc[];
        const byId = new Map(payments.map((p) => [p.id, p]));
        view.payments = amounts.map((a) => {
          const payment = byId.get(a.payment);
          const allocation = payment?.data.allocations.find((x) => x.id === a.id);
          return { ...(payment && allocation ? paymentAmountView(payment.data, allocation, opts) : { ...NO_FX, ...a.data }), watermark: a.watermark };
        });
      }
      if (doc.data.owing_cents > 0 && !doc.data.deleted) {
        const customer = await core.get<CustomerDoc & { [k: string]: unknown }>('customers', doc.customer);
        if (customer) {
          const pay = payUrls(doc, customer);
          view.pay_url = pay.url;
          view.pay_urls = pay.urls;
        }
      }
      return view;
    },

    async exportInvoicesJson(feed, page, options = {}) {
      const chunks = this.exportInvoicesJsonChunks(feed, page, options);
      const records = await collect(chunks.records);
      return { asOf: chunks.asOf, records };
    },

    exportInvoicesJsonChunks: (feed, page, options) => invoicePages.chunks(feed, page, options),

    async deleteInvoice(number) {
      await run((s) => deleteInvoice(s, number));
    },

    async dueOpenInvoices(customerIdentifier, asOf) {
      const doc = await findCustomer(customerIdentifier);
      if (!doc) throw notFound('customer_not_found', `No customer with identifier ${customerIdentifier}`);
      const due = Object.entries(doc.data.ledger.open).filter(([, [date, dueDate, owing]]) => owing > 0 && (dueDate || date) <= asOf);
      const invoices = await decodeAll(due.map(([n]) => n));
      return invoices
        .filter((i) => !i.data.deleted && i.data.owing_cents > 0)
        .map((i) => ({
          number: i.id,
          display_number: i.data.display_number,
          currency: i.data.currency,
          amount_cents: i.data.amount_cents,
          owing_cents: i.data.owing_cents,
          discount_cents: earlyPaymentDiscount(i.data, asOf, account.can('discounts')),
          date: i.data.date,
          due_date: i.data.due_date ?? null,
          auto_debit: i.data.auto_debit,
          auto_debit_reference: i.data.auto_debit_reference ?? null,
        }))
        .sort((a, b) => (a.due_date ?? a.date).localeCompare(b.due_date ?? b.date) || a.number.localeCompare(b.number));
    },

    async importPayment(input: PaymentImportInput | PaymentCsvRow, channel: ImportChannel = 'json', options: PaymentImportOptions = {}) {
      const r = await run((s) => importPayment(s, input, channel, options));
      return { identifier: r.payment.id, message: `1 payment ${r.allocations} invoice amounts` };
    },

    async recordPayment(input) {
      const doc = await run((s) => recordPayment(s, input));
      return changedPayment(doc);
    },

    async applyCredit(reference, applications) {
      const doc = await run((s) => applyCredit(s, reference, applications));
      return changedPayment(doc);
    },

    async reversePayment(reference, status, reason, cause) {
      const doc = await run((s) => reversePayment(s, reference, status, reason, cause));
      return changedPayment(doc);
    },
    async keepOfPayment(reference, keepCents, reason, cause) {
      const doc = await run((s) => keepOfPayment(s, reference, keepCents, reason, cause));
      return changedPayment(doc);
    },
    async owedAgainIfKept(reference, keepCents) {
      const doc = await core.get<PaymentDoc & { [k: string]: unknown }>('payments', reference);
      if (!doc) return undefined;
      const p = doc.data;
      const plan = takeOffPlan(p, keepCents);
      return {
        payment_reference: p.reference,
        customer_identifier: p.customer_identifier,
        customer_name: p.customer_name,
        currency: p.currency,
        taken_cents: plan.taken_cents,
        invoices: plan.invoices.map((i) => {
          const a = p.allocations[i.index]!;
          return { invoice_number: a.invoice_number, display_number: a.invoice.display_number || a.invoice_number, cents: i.cents };
        }),
      };
    },
    keepOfPaymentInTx(tx, reference, keepCents, reason, cause) {
      return inUnitOfWorkInTx(tx, core, account, async (s) => {
        const found = await s.payment(reference);
        if (!found) return undefined;
        const before = changedPayment(found);
        return { before, after: changedPayment(await keepOfPayment(s, reference, keepCents, reason, cause)) };
      });
    },
    async settlePayment(reference) {
      const doc = await run((s) => settlePayment(s, reference));
      return changedPayment(doc);
    },

    async viewPayment(referenceOrToken, options = {}) {
      let doc = await core.get<PaymentDoc & { [k: string]: unknown }>('payments', referenceOrToken);
      if (!doc) {
        [doc] = await core.find<PaymentDoc & { [k: string]: unknown }>('payments', { selector: { token: referenceOrToken }, sort: [{ token: 'asc' }, { id: 'asc' }], limit: 1 });
      }
      if (!doc) throw notFound('payment_not_found', `No payment with reference or token ${referenceOrToken}`);
      return paymentView(doc, { tree: options.tree === true, lineShortPay: account.can('line_item_short_pay'), sender: sender() });
    },

    async exportPayments(page, recent, options = {}) {
      type Pay = PaymentDoc & { [k: string]: unknown };
      const docs = recent ? await byWatermark<Pay>(core, 'payments', await recentAfter('payments', page), { keep: isRecent }) : await byWatermark<Pay>(core, 'payments', page);
      const opts = { tree: options.tree === true, lineShortPay: account.can('line_item_short_pay'), sender: sender() };
      return docs.map((d) => paymentView(d, opts));
    },

    async exportPaymentAmounts(page) {
      const docs = await byWatermark<PaymentAmountDoc & { [k: string]: unknown }>(core, 'payment_amounts', page);
      // Amounts stored before they carried the FX fields answer them too.
      return docs.map((d) => ({ ...NO_FX, ...d.data, watermark: d.watermark }));
    },

    async importDivision(input) {
      const r = await run((s) => importDivision(s, input));
      return { identifier: r.division.code, message: '1 division' };
    },

    countryCodes,

    close: () => invoicePages.close(),
  };
}
