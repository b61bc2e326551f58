import { fail, notFound } from '../errors';
import { formatMoney } from '../../shared/money';
import { upsertCustomer, IDENTIFIER_RULE } from './customers';
import { Fields } from './fields';
import { NUMBER_RE } from './invoices';
import { earlyPaymentDiscount } from './early-discount';
import { REVERSED } from './ledger';
import { writeAmountRecords } from './amount-records';
import { giveBackToInvoice, restateServed, servedSnapshot, takeBackFromLater } from './served-order';
import { KEY_RE, NOTES_MAX, PAYMENT_KEY, Problems } from './problems';
import type { ReceivablesUnit } from './unit-of-work';
import type { AllocationData, AllocationLine, AllocationReferences, CustomerDoc, AllocationCut, InvoiceDoc, PaymentData, PaymentDoc, PaymentSource, PaymentStatus, PaymentCsvRow, PaymentImportInput, RefundCause } from './types';

/** Where a payment import came from: the JSON API, a CSV file, or the cashier screens. */
export type ImportChannel = 'json' | 'csv' | 'cashier';

export interface Entry extends AllocationReferences {
  invoice_number: string;
  amount: number;
  discount: number;
}

const REMIT_FIELDS = ['remit_invoice_date', 'remit_invoice_amount_cents', 'remit_customer_number', 'remit_customer_name'] as const;

function readEntry(raw: Record<string, unknown>, p: Problems, opts: { amountField: string; amount?: number; division?: string; external: boolean }): Entry | undefined {
  const f = new Fields(raw, p);
  const number = f.str('invoice_number', { pattern: NUMBER_RE, patternText: 'must be an invoice number', code: 'invalid_invoice_number' });
  if (!f.has('invoice_number')) p.add('invoice_number', 'missing_invoice_number', 'is required');
  // Negative only on a credit memo (checkInvoices): the ERP nets the memo's credit into the receipt.
  const amount = opts.amount ?? f.int(opts.amountField, { code: 'invalid_amount' });
  if (opts.amount === undefined && !f.has(opts.amountField)) p.add(opts.amountField, 'missing_amount', 'is required');
  const discount = f.int('remit_invoice_discount_cents', { min: 0 }) ?? 0;
  if (discount > 0 && amount !== undefined && amount < 0) p.add('remit_invoice_discount_cents', 'discount_on_credit_memo', 'cannot be taken on a credit memo (a negative amount)');
  const text = (name: string) => f.str(name, { max: 200 });
  const entry: Entry = { invoice_number: number ?? '', amount: amount ?? 0, discount: opts.external ? discount : 0 };
  const put = <K extends keyof Entry>(k: K, v: Entry[K] | undefined) => {
    if (v !== undefined) entry[k] = v;
  };
  put('note', f.str('notes', { max: NOTES_MAX }));
  put('purchase_order_number', text('purchase_order_number'));
  put('ref1', text('ref1'));
  put('ref2', text('ref2'));
  put('ref3', text('ref3'));
  put('line_number', text('line_number'));
  put('reason_type', f.oneOf('reason_type', ['short_pay', 'dispute'] as const, 'invalid_reason_type'));
  put('short_pay_reason_identifier', text('short_pay_reason_identifier'));
  put('division', f.str('division', { max: 60 }) ?? opts.division);
  put('match_at', f.date('match_at'));
  const remit: Record<string, string | number> = {};
  for (const name of REMIT_FIELDS) {
    const v = name === 'remit_invoice_amount_cents' ? f.int(name) : name === 'remit_invoice_date' ? f.date(name) : text(name);
    if (v !== undefined) remit[name] = v;
  }
  if (discount) remit.remit_invoice_discount_cents = discount;
  if (Object.keys(remit).length) entry.remit = remit;
  return number ? entry : undefined;
}

export interface PaymentImportResult {
  payment: PaymentDoc;
  created: boolean;
  allocations: number;
}

/**
 * A clerk recording a cheque means a new payment: one already recorded under that identifier is
 * said so, never replaced (the same cheque typed twice, or another payment's number).
 */
function refuseRecorded(existing: PaymentDoc, problems: Problems): never {
  const p = existing.data;
  problems.add('identifier', 'payment_exists', `${p.reference} is already recorded: a payment of ${formatMoney(p.amount_cents, p.currency, { locale: 'en-US' })} from ${p.customer_name || p.customer_identifier} on ${p.date}`);
  problems.throwIfAny();
  throw fail.internal('payment_exists', 'unreachable');
}

/**
 * Creates or updates an invoicing payment from an import (JSON, CSV or the cashier screens).
 * A single invoice (`invoice_number`) or several (`payment_amounts_attributes`); what exceeds an
 * invoice's owing becomes unapplied credit on the customer. `payment_total` is the CSV name of
 * the total and is refused in JSON, where the total is `amount_cents`. Updating a payment that
 * originated here accepts only its total with or without fees.
 */
/**
 * createOnly: an identifier already recorded is refused. customersOnFile: the caller may record
 * payments but not make customers (a clerk): a customer_identifier not on file is refused, not created.
 */
export interface PaymentImportOptions {
  createOnly?: boolean;
  customersOnFile?: boolean;
  /**
   * The caller records payments but does not edit records (a clerk): a payment already recorded is
   * refused (403 role_forbidden), never rewritten. Re-sending an identifier rewrites the payment and
   * takes it off its invoices, which would reopen a paid invoice.
   */
  recordOnly?: boolean;
  /** Told each allocation applied for less than asked, or given back by a payment served later (servedBefore). */
  cuts?: AllocationCut[];
}

export async function importPayment(s: ReceivablesUnit, input: PaymentImportInput | PaymentCsvRow, channel: ImportChannel = 'json', options: PaymentImportOptions = {}): Promise<PaymentImportResult> {
  const problems = new Problems();
  const f = new Fields(input, problems);
  const identifier = f.str('identifier', { pattern: PAYMENT_KEY.pattern, patternText: PAYMENT_KEY.rule, code: 'invalid_identifier' });
  if (!f.has('identifier')) problems.add('identifier', 'missing_identifier', 'is required');

  let total = readTotal(f, problems, channel);

  const existing = identifier ? await s.payment(identifier) : undefined;
  if (existing && options.createOnly) refuseRecorded(existing, problems);
  if (existing && options.recordOnly) {
    const p = existing.data;
    throw fail.forbidden('role_forbidden', `${p.reference} is already recorded (${formatMoney(p.amount_cents, p.currency, { locale: 'en-US' })} from ${p.customer_name || p.customer_identifier} on ${p.date}): your role records new payments only; an owner or a manager may change it.`);
  }
  if (existing && existing.data.source === 'arc') {
    problems.throwIfAny();
    return { payment: updateOriginated(s, existing, input, total), created: false, allocations: existing.data.allocations.length };
  }
  if (existing && REVERSED.has(existing.data.status)) problems.add('identifier', 'payment_reversed', `payment ${identifier} was reversed and cannot be changed`);

  const date = f.date('date') ?? existing?.data.date ?? s.today;
  const currencyIn = f.currency('currency');
  const invoiceNumber = f.str('invoice_number', { max: 100 });
  const multi = input.payment_amounts_attributes;
  const division = f.str('division', { max: 60 });
  const externalType = f.str('external_payment_type', { max: 40 });
  const external = externalType !== undefined;
  // An update that names no invoice keeps what the payment was applied to (a changed note must not
  // reopen the invoices it paid); `payment_amounts_attributes: []` takes it off them.
  const kept = existing && invoiceNumber === undefined && multi === undefined ? keptEntries(existing.data.allocations) : undefined;
  const entries = kept ?? readEntries(input, problems, { invoiceNumber, multi, total, external, division });
  // Nor does it change the amount received when it sends none (its credit would be lost).
  if (kept) total ??= existing?.data.amount_cents;
  const allocated = entries.reduce((sum, e) => sum + e.amount, 0);
  if (allocated < 0) problems.add('payment_amounts_attributes', 'credit_exceeds_invoices', `take more credit memo credit (${-allocated}) than they apply to invoices: a memo's credit pays invoices of the same payment`);
  else if (total === undefined) {
    if (entries.length === 0) problems.add('amount_cents', 'missing_amount', 'is required');
    total = allocated;
  } else if (allocated > total) problems.add('amount_cents', 'allocations_exceed_amount', `(${total}) is less than the amounts applied to invoices (${allocated})`);

  const customerIdentifier = f.str('customer_identifier', { pattern: KEY_RE, patternText: IDENTIFIER_RULE, code: 'invalid_customer_identifier' });
  const customerName = f.str('customer_name', { max: 200 });
  const branch = f.str('payor_bank_branch_number', { pattern: /^[0-9 -]{1,20}$/, patternText: 'must be digits' });
  const account = f.str('payor_bank_account_number', { pattern: /^[0-9 -]{1,30}$/, patternText: 'must be digits' });
  const meta = {
    payment_code: f.str('payment_code', { max: 100 }),
    payment_description: f.str('payment_description', { max: 500 }),
    external_payment_number: f.str('external_payment_number', { max: 60 }),
    payor_name: f.str('payor_name', { max: 200 }),
    settlement_date: f.date('settlement_date'),
    external_id: f.str('external_id', { max: 100 }),
    display_identifier: f.str('display_identifier', { max: 100 }),
  };

  const invoices = await loadInvoices(s, entries, problems);
  const currency = currencyIn ?? invoices[0]?.data.currency ?? existing?.data.currency ?? s.currency;
  checkInvoices(problems, entries, invoices, currency, invoiceNumber !== undefined, existing?.data.allocations ?? []);
  const customer = await paymentCustomer(s, problems, { customerIdentifier, customerName, invoices, existing, entries }, options.customersOnFile === true);
  // Kept allocations were not sent: the customer named is what conflicts with them.
  const invoiceField = (i: number) => (kept ? 'customer_identifier' : invoiceNumber !== undefined ? 'invoice_number' : `payment_amounts_attributes.${i}.invoice_number`);
  invoices.forEach((inv, i) => inv && customer && checkInvoiceCustomer(problems, invoiceField(i), inv, customer));
  problems.throwIfAny();
  if (!identifier || !customer || total === undefined) throw fail.internal('payment_fields', 'payment fields missing after validation');

  if (existing) await reverseAllocations(s, existing.data, invoices);
  const source: PaymentSource = channel === 'cashier' ? 'manual' : external ? 'external' : 'erp';
  const now = s.tx.at;
  const data: PaymentData = {
    ...(existing?.data ?? {}),
    reference: identifier,
    token: existing?.data.token ?? s.core.ids.token(),
    customer_identifier: customer.identifier,
    customer_name: customerName ?? existing?.data.customer_name ?? customer.data.name,
    date,
    currency,
    amount_cents: total,
    fee_cents: 0,
    unapplied_cents: 0,
    source,
    channel,
    status: 'PAID',
    auto_debit: false,
    allocations: [],
    timestamp: existing?.data.timestamp ?? now,
    created_at: existing?.data.created_at ?? now,
    updated_at: now,
    updated_ms: s.tx.now,
  };
  for (const [k, v] of Object.entries(meta)) if (v !== undefined) (data as unknown as Record<string, unknown>)[k] = v;
  if (externalType !== undefined) data.external_payment_type = externalType;
  if (branch !== undefined) data.payor_bank_branch_number = branch.replace(/\D/g, '');
  // Only the last four digits of a bank account are kept.
  if (account !== undefined) data.payor_bank_account_last4 = account.replace(/\D/g, '').slice(-4);
  data.payment_method = describeMethod(data);

  const doc: PaymentDoc = existing ? { ...existing, customer: customer.id, data } : { id: identifier, watermark: 0, token: data.token, customer: customer.id, data };
  await applyAllocations(s, doc, entries, invoices, existing?.data.allocations ?? [], options.cuts);
  return { payment: doc, created: !existing, allocations: entries.length };
}

/** A stored payment's allocations as the entries an update applies again. */
export function keptEntries(allocations: readonly AllocationData[]): Entry[] {
  return allocations.filter((a) => a.amount_cents + a.discount_cents !== 0).map(({ id: _id, amount_cents, discount_cents, invoice_balance_cents: _b, short_pay: _s, lines: _l, invoice: _i, ...refs }) => ({ ...refs, amount: amount_cents, discount: discount_cents }));
}

/** The payment's total: amount_cents, or the CSV's payment_total, or `amount` (the reference's single-invoice sample's name). */
function readTotal(f: Fields, problems: Problems, channel: ImportChannel): number | undefined {
  let total = f.int('amount_cents', { min: 0, code: 'invalid_amount' });
  if (f.has('payment_total')) {
    if (channel !== 'csv') problems.add('payment_total', 'payment_total_not_allowed', 'is the CSV column name of the total; in JSON send amount_cents');
    else total ??= f.int('payment_total', { min: 0, code: 'invalid_amount' });
  }
  const alias = f.int('amount', { min: 0, code: 'invalid_amount' });
  if (alias !== undefined) {
    if (total !== undefined && total !== alias) problems.add('amount', 'conflicting_amount', `differs from amount_cents (${total}); send one total`);
    total ??= alias;
  }
  return total;
}

/** What the payment applies to: one invoice (invoice_number, the whole total) or several (payment_amounts_attributes). */
function readEntries(
  input: PaymentImportInput | PaymentCsvRow,
  problems: Problems,
  sent: { invoiceNumber: string | undefined; multi: unknown; total: number | undefined; external: boolean; division: string | undefined },
): Entry[] {
  const { invoiceNumber, multi, total, external, division } = sent;
  const entries: Entry[] = [];
  if (invoiceNumber !== undefined && multi !== undefined && multi !== null) {
    problems.add('invoice_number', 'ambiguous_invoices', 'and payment_amounts_attributes cannot both be given; use payment_amounts_attributes for several invoices');
  } else if (invoiceNumber !== undefined) {
    if (total === undefined) problems.add('amount_cents', 'missing_amount', 'is required');
    const e = readEntry(input, problems, { amountField: 'amount_cents', amount: total ?? 0, external, ...(division !== undefined ? { division } : {}) });
    if (e) entries.push(e);
  } else if (multi !== undefined && multi !== null) {
    if (!Array.isArray(multi)) problems.add('payment_amounts_attributes', 'invalid_type', 'must be an array');
    else
      multi.forEach((raw: unknown, i) => {
        const p = problems.child(`payment_amounts_attributes.${i}.`);
        if (!raw || typeof raw !== 'object') return p.add('', 'invalid_type', 'must be an object');
        const e = readEntry(raw as Record<string, unknown>, p, { amountField: 'amount', external, ...(division !== undefined ? { division } : {}) });
        if (e) entries.push(e);
      });
  }
  return entries;
}

/**
 * Each invoice paid must be in the payment's currency and division, and have the line item named.
 * A negative amount takes credit off a credit memo, never more than the memo has left (over all
 * of this payment's entries on it), so a receipt cannot spend a memo's credit twice.
 */
function checkInvoices(problems: Problems, entries: Entry[], invoices: Array<InvoiceDoc | undefined>, currency: string, single: boolean, previous: readonly AllocationData[]): void {
  const creditTaken = new Map<string, number>();
  // An update re-applies the payment: the credit it took from a memo before is the memo's again.
  const ownCredit = (invoice: string) => previous.reduce((sum, a) => (a.invoice_number === invoice && a.amount_cents < 0 ? sum - a.amount_cents : sum), 0);
  entries.forEach((e, i) => {
    const inv = invoices[i];
    if (!inv) return;
    const field = single ? 'currency' : `payment_amounts_attributes.${i}.invoice_number`;
    if (e.amount < 0) {
      const amountField = `payment_amounts_attributes.${i}.amount`;
      const taken = (creditTaken.get(inv.id) ?? 0) - e.amount;
      creditTaken.set(inv.id, taken);
      const left = Math.max(0, -inv.data.owing_cents) + ownCredit(inv.id);
      const money = (cents: number) => formatMoney(cents, inv.data.currency, { locale: 'en-US' });
      if (inv.data.amount_cents >= 0) problems.add(amountField, 'not_a_credit_memo', `is negative, which applies a credit memo's credit; invoice ${inv.id} is no credit memo`);
      else if (taken > left) problems.add(amountField, 'more_than_credit', `takes ${money(taken)} of credit memo ${inv.id}'s credit, which has ${money(left)} left`);
    }
    if (inv.data.currency !== currency) problems.add(field, 'currency_mismatch', `invoice ${inv.id} is in ${inv.data.currency.toUpperCase()}, the payment in ${currency.toUpperCase()}`);
    if (e.division !== undefined && inv.data.division !== undefined && e.division !== inv.data.division) {
      problems.add(single ? 'division' : `payment_amounts_attributes.${i}.division`, 'division_mismatch', `invoice ${inv.id} belongs to division ${inv.data.division}`);
    }
    if (e.line_number !== undefined && !inv.data.line_items.some((l) => l.number === e.line_number)) {
      problems.add(single ? 'line_number' : `payment_amounts_attributes.${i}.line_number`, 'line_item_not_found', `names no line item of invoice ${inv.id}`);
    }
  });
}

/**
 * A payment pays only its own customer's invoices: otherwise one customer's money would lower what
 * another owes while the payer's ledger shows it unspent. Every path that applies money calls this.
 */
export function checkInvoiceCustomer(problems: Problems, field: string, inv: InvoiceDoc, customer: { id: string; identifier: string }): void {
  if (inv.customer === customer.id) return;
  const named = inv.data.display_number && inv.data.display_number !== inv.id ? `${inv.id} (${inv.data.display_number})` : inv.id;
  problems.add(field, 'invoice_of_another_customer', `names invoice ${named}, which is ${inv.data.customer_identifier}'s; the payment is ${customer.identifier}'s`);
}

/**
 * The customer paying: the one named (created when unknown), else the payment's as stored (an
 * update naming other invoices does not move it to their customer), else the first invoice's.
 */
async function paymentCustomer(
  s: ReceivablesUnit,
  problems: Problems,
  sent: { customerIdentifier: string | undefined; customerName: string | undefined; invoices: Array<InvoiceDoc | undefined>; existing: PaymentDoc | undefined; entries: Entry[] },
  onFileOnly: boolean,
): Promise<CustomerDoc | undefined> {
  const { customerIdentifier, customerName, invoices, existing } = sent;
  let customer: CustomerDoc | undefined;
  if (customerIdentifier !== undefined) {
    customer = await s.customerByIdentifier(customerIdentifier);
    if (!customer && onFileOnly) {
      throw fail.forbidden('customer_not_on_file', `No customer ${customerIdentifier} is on file, and recording this payment would create one: customers are added by the owner or a manager. Ask one to add the customer first.`);
    }
    customer ??= (await upsertCustomer(s, { identifier: customerIdentifier, ...(customerName ? { name: customerName } : {}) }, { problems, defaultName: customerIdentifier })).customer;
  } else if (existing) customer = await s.customerById(existing.customer);
  else if (invoices[0]) customer = await s.customerById(invoices[0].customer);
  else if (sent.entries.length === 0) problems.add('customer_identifier', 'missing_customer_identifier', 'is required for a payment not applied to an invoice');
  return customer;
}

export async function loadInvoices(s: ReceivablesUnit, entries: Entry[], problems: Problems): Promise<Array<InvoiceDoc | undefined>> {
  const out: Array<InvoiceDoc | undefined> = [];
  for (const [i, e] of entries.entries()) {
    const inv = await s.invoice(e.invoice_number);
    const field = entries.length === 1 ? 'invoice_number' : `payment_amounts_attributes.${i}.invoice_number`;
    if (!inv) problems.add(field, 'invoice_not_found', `names no invoice (${e.invoice_number})`);
    else if (inv.data.deleted) problems.add(field, 'invoice_deleted', `invoice ${e.invoice_number} is deleted`);
    out.push(inv && !inv.data.deleted ? inv : undefined);
  }
  return out;
}

function describeMethod(d: PaymentData): string | undefined {
  if (d.payment_method && d.source === 'arc') return d.payment_method;
  const parts = [d.external_payment_type, d.external_payment_number].filter(Boolean);
  if (d.payor_bank_account_last4) parts.push(`(${d.payor_bank_account_last4})`);
  return parts.length ? parts.join(' ') : undefined;
}

/** Takes a payment's allocations back off their invoices (an update re-applies, a reversal does not). */
export async function reverseAllocations(s: ReceivablesUnit, p: PaymentData, known: Array<InvoiceDoc | undefined>): Promise<void> {
  for (const a of p.allocations) {
      const inv = known.find((i) => i?.id === a.invoice_number) ?? (await s.invoice(a.invoice_number));
      if (!inv) continue;
      const back = a.amount_cents + a.discount_cents;
      inv.data.applied_cents -= back;
      inv.data.owing_cents += back;
      for (const l of a.lines) {
        const line = inv.data.line_items.find((x) => x.number === l.line_item_number);
        if (line) line.balance_cents += l.amount_cents;
      }
      s.putInvoice(inv);
  }
}

/**
 * Applies entries in order. Each takes at most what its invoice owes (a paid invoice takes
 * nothing; a credit memo gives the credit its negative entry names); the rest of the payment is
 * unapplied credit. With line-item short pay,
 * an amount goes to its named line first, then to the other lines in order.
 */
export async function applyAllocations(s: ReceivablesUnit, doc: PaymentDoc, entries: Entry[], invoices: Array<InvoiceDoc | undefined>, previous: readonly AllocationData[], cuts?: AllocationCut[]): Promise<void> {
  const p = doc.data;
  const lineShortPay = s.account.can('line_item_short_pay');
  let applied = 0;
  p.allocations = [];
  for (const [i, e] of entries.entries()) {
    const inv = invoices[i];
    if (!inv) continue;
    // Payments that together ask more than the invoice owes are served in one order (servedBefore),
    // whatever order they arrived in: one served after this one gives its share back first.
    if (e.amount > Math.max(0, inv.data.owing_cents)) {
      const taken = await takeBackFromLater(s, inv, e.amount - Math.max(0, inv.data.owing_cents), p);
      cuts?.push(...taken);
    }
    const owingBefore = inv.data.owing_cents;
    const room = Math.max(0, owingBefore);
    // A credit memo's entry (negative, checked to fit its credit) moves its owing up towards zero.
    const money = e.amount < 0 ? Math.max(e.amount, Math.min(0, owingBefore)) : Math.min(e.amount, room);
    const discount = e.amount < 0 ? 0 : Math.min(e.discount, room - money);
    inv.data.owing_cents -= money + discount;
    inv.data.applied_cents += money + discount;
    applied += money;
    if (e.amount > 0 && money < e.amount) cuts?.push({ payment: p.reference, invoice_number: inv.id, from_cents: e.amount, to_cents: money });
    const lines: AllocationLine[] = [];
    if (lineShortPay && money + discount > 0) {
      let left = money + discount;
      const order = [...inv.data.line_items].sort((a, b) => (a.number === e.line_number ? -1 : b.number === e.line_number ? 1 : 0));
      for (const line of order) {
        if (left <= 0) break;
        const take = Math.min(left, Math.max(0, line.balance_cents));
        if (take <= 0) continue;
        line.balance_cents -= take;
        left -= take;
        lines.push({ line_item_number: line.number, amount_cents: take, balance_cents: line.balance_cents });
      }
    }
    s.putInvoice(inv);
    const division = inv.data.division ? await s.division(inv.data.division) : undefined;
    // Served last so far: the invoice as it stands now (restated below when a payment is served after it).
    const { amount_paid_cents, ...picture } = servedSnapshot(inv, 0);
    const alloc: AllocationData = {
      id: `${p.reference}#${i + 1}`,
      invoice_number: inv.id,
      amount_cents: money,
      discount_cents: discount,
      ...picture,
      lines,
      invoice: {
        display_number: inv.data.display_number,
        date: inv.data.date,
        currency: inv.data.currency,
        amount_cents: inv.data.amount_cents,
        amount_paid_cents,
        customer_identifier: inv.data.customer_identifier,
        ...(inv.data.external_id ? { external_id: inv.data.external_id } : {}),
        ...(inv.data.purchase_order_number ? { purchase_order_number: inv.data.purchase_order_number } : {}),
        ...(inv.data.ref1 ? { ref1: inv.data.ref1 } : {}),
        ...(inv.data.ref2 ? { ref2: inv.data.ref2 } : {}),
        ...(inv.data.ref3 ? { ref3: inv.data.ref3 } : {}),
        ...(division ? { division: division.code, division_name: division.name, ...(division.external_id ? { division_number: division.external_id } : {}) } : {}),
      },
    };
    for (const k of ['note', 'purchase_order_number', 'ref1', 'ref2', 'ref3', 'line_number', 'reason_type', 'short_pay_reason_identifier', 'division', 'match_at', 'remit'] as const) {
      if (e[k] !== undefined) (alloc as unknown as Record<string, unknown>)[k] = e[k];
    }
    p.allocations.push(alloc);
  }
  p.unapplied_cents = p.amount_cents - applied;
  // Other payments on an invoice this one is served before: every picture of it in served order.
  for (const inv of new Set(invoices)) {
    if (!inv) continue;
    const own = p.allocations.reduce((sum, a) => (a.invoice_number === inv.id ? sum + a.amount_cents + a.discount_cents : sum), 0);
    if (inv.data.applied_cents !== own) await restateServed(s, inv, doc, true);
  }
  s.putPayment(doc);
  writeAmountRecords(s, doc, previous);
}

/** Whether a field sent for a payment made here says what the payment already holds. */
function sameAsStored(p: PaymentData, field: 'invoice_number' | 'payment_amounts_attributes' | 'customer_identifier' | 'currency' | 'date' | 'external_payment_type', sent: unknown): boolean {
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v).trim() : undefined);
  const applied = p.allocations.filter((a) => a.amount_cents !== 0);
  switch (field) {
    case 'customer_identifier':
      return text(sent) === p.customer_identifier;
    case 'currency':
      return text(sent)?.toLowerCase() === p.currency.toLowerCase();
    case 'date':
      return text(sent) === p.date;
    case 'external_payment_type':
      return text(sent) === p.external_payment_type;
    case 'invoice_number':
      return applied.length === 1 && text(sent) === applied[0]!.invoice_number;
    case 'payment_amounts_attributes': {
      if (!Array.isArray(sent) || sent.length !== applied.length) return false;
      const key = (invoice: unknown, amount: unknown) => `${text(invoice) ?? ''}\u0000${text(amount) ?? ''}`;
      const stored = applied.map((a) => key(a.invoice_number, a.amount_cents)).sort();
      const given = sent.map((e: unknown) => (e && typeof e === 'object' ? key((e as Record<string, unknown>).invoice_number, (e as Record<string, unknown>).amount) : '')).sort();
      return stored.every((k, i) => k === given[i]);
    }
  }
}

function updateOriginated(s: ReceivablesUnit, existing: PaymentDoc, input: PaymentImportInput | PaymentCsvRow, total: number | undefined): PaymentDoc {
  const p = existing.data;
  const problems = new Problems();
  const withFees = p.amount_cents + p.fee_cents;
  if (total !== undefined && total !== p.amount_cents && total !== withFees) {
    problems.add('amount_cents', 'payment_amount_not_allowed', `of a payment made here can only be its total without fees (${p.amount_cents}) or with fees (${withFees})`);
  }
  for (const field of ['invoice_number', 'payment_amounts_attributes', 'customer_identifier', 'currency', 'date', 'external_payment_type'] as const) {
    const sent = input[field];
    // A client that reads the payment and sends it back sends these as they are: only a change is refused.
    if (sent !== undefined && sent !== null && sent !== '' && !sameAsStored(p, field, sent)) {
      problems.add(field, 'payment_not_editable', 'cannot change on a payment made here (only its total, with or without fees, and its references)');
    }
  }
  const f = new Fields(input, problems);
  const code = f.str('payment_code', { max: 100 });
  const description = f.str('payment_description', { max: 500 });
  const externalId = f.str('external_id', { max: 100 });
  problems.throwIfAny();
  if (code !== undefined) p.payment_code = code;
  if (description !== undefined) p.payment_description = description;
  if (externalId !== undefined) p.external_id = externalId;
  s.putPayment(existing);
  writeAmountRecords(s, existing, p.allocations);
  return existing;
}

export interface RecordPaymentInput {
  customer_identifier: string;
  /** Received, without fees (minor units). */
  amount_cents: number;
  fee_cents?: number;
  currency?: string;
  /** YYYY-MM-DD; today in the shop's zone by default. */
  date?: string;
  /**
   * Invoices paid and how much each; by default the customer's open invoices, oldest due first.
   * `discount_cents`: the invoice's early-payment discount taken with a payment of the rest of it;
   * taken only while early-discount.ts still gives at least that much on the payment's date and the
   * two close the invoice; otherwise the payment is recorded without it.
   * `owing_cents`: what the invoice owed when the payment was priced (a click-to-pay sale). If it
   * owes anything else when the payment is written, or the discount is no longer given, nothing is
   * recorded: 409 `amount_changed` (the caller gives the money back). Checked in the payment's own
   * unit of work, so no other change of the balance can come between the check and the write.
   */
  invoices?: Array<{ number: string; amount_cents: number; discount_cents?: number; owing_cents?: number }>;
  /** What took it: 'autopay', 'portal', 'terminal'... */
  channel: string;
  /** Shown as payment_method, e.g. "Visa (4242)". Never a full card or account number. */
  payment_method?: string;
  /** The gateway transaction token: the payment is found by it, as payment_transaction_token. */
  transaction_token?: string;
  authorization_code?: string;
  settlement_token?: string;
  status?: PaymentStatus;
  reference?: string;
}

/** Records a payment taken by Laneway itself (autopay, the portal, a lane): source `arc`. */
export async function recordPayment(s: ReceivablesUnit, input: RecordPaymentInput): Promise<PaymentDoc> {
  const customer = await s.customerByIdentifier(input.customer_identifier);
  if (!customer) throw notFound('customer_not_found', `No customer with identifier ${input.customer_identifier}`, 'precondition');
  if (!Number.isSafeInteger(input.amount_cents) || input.amount_cents < 0) throw fail.invalid('invalid_amount', 'amount_cents must be a whole number of minor units, 0 or more');
  const fee = input.fee_cents ?? 0;
  if (!Number.isSafeInteger(fee) || fee < 0) throw fail.invalid('invalid_fee', 'fee_cents must be a whole number of minor units, 0 or more');
  const reference = input.reference ?? s.core.ids.token();
  if (await s.payment(reference)) throw fail.conflict('payment_exists', `payment ${reference} already exists`);
  const currency = (input.currency ?? s.currency).toLowerCase();
  let targets = input.invoices;
  if (!targets) {
    const open = Object.entries(customer.data.ledger.open)
      .filter(([, item]) => item[2] > 0 && item[3] === currency)
      .sort((a, b) => (a[1][1] || a[1][0]).localeCompare(b[1][1] || b[1][0]) || a[0].localeCompare(b[0]));
    let left = input.amount_cents;
    targets = [];
    for (const [number, item] of open) {
      if (left <= 0) break;
      const take = Math.min(left, item[2]);
      targets.push({ number, amount_cents: take });
      left -= take;
    }
  }
  const priced = targets.map((t) => t.owing_cents !== undefined);
  for (const t of targets) {
    if (t.owing_cents === undefined) continue;
    const inv = await s.invoice(t.number);
    const owes = !inv || inv.data.deleted ? 0 : inv.data.owing_cents;
    if (owes !== t.owing_cents) throw fail.conflict('amount_changed', `invoice ${inv?.data.display_number ?? t.number} owes ${owes}, not the ${t.owing_cents} this payment was priced for`);
  }
  const entries: Entry[] = targets.map((t) => ({ invoice_number: t.number, amount: t.amount_cents, discount: t.discount_cents ?? 0 }));
  const problems = new Problems();
  const invoices = await loadInvoices(s, entries, problems);
  const date = input.date ?? s.today;
  invoices.forEach((inv, i) => {
    if (inv && inv.data.currency !== currency) problems.add(`invoices.${i}`, 'currency_mismatch', `invoice ${inv.id} is in ${inv.data.currency.toUpperCase()}`);
    if (inv) checkInvoiceCustomer(problems, `invoices.${i}`, inv, customer);
    // The money was taken before this records it (a card sale, a debit), so nothing here may refuse
    // it. A discount the invoice no longer gives (an ERP payment or a new version of the invoice
    // landed while the card was charged) is not taken: the money applies as money, any excess is the
    // customer's credit, and the merchant sees both. Unless the caller priced it against the
    // balance (owing_cents, a click-to-pay sale): then it is refused, and the caller gives it back.
    const e = entries[i]!;
    if (inv && e.discount && (e.discount > earlyPaymentDiscount(inv.data, date, s.account.can('discounts')) || e.amount + e.discount !== inv.data.owing_cents)) {
      if (priced[i]) throw fail.conflict('amount_changed', `invoice ${inv.data.display_number} no longer gives the ${e.discount} discount this payment was priced with`);
      s.core.logger.warn({ invoice: inv.id, discount_cents: e.discount, owing_cents: inv.data.owing_cents }, 'early-payment discount no longer available when its payment was recorded: applied without it');
      e.discount = 0;
    }
  });
  if (entries.reduce((sum, e) => sum + e.amount, 0) > input.amount_cents) problems.add('invoices', 'allocations_exceed_amount', 'apply more than amount_cents');
  problems.throwIfAny();
  const now = s.tx.at;
  const data: PaymentData = {
    reference,
    token: input.transaction_token ?? s.core.ids.token(),
    customer_identifier: customer.identifier,
    customer_name: customer.data.name,
    date,
    currency,
    amount_cents: input.amount_cents,
    fee_cents: fee,
    unapplied_cents: 0,
    source: 'arc',
    channel: input.channel,
    status: input.status ?? 'PAID',
    auto_debit: input.channel === 'autopay',
    allocations: [],
    timestamp: now,
    created_at: now,
    updated_at: now,
    updated_ms: s.tx.now,
    ...(input.payment_method ? { payment_method: input.payment_method } : {}),
    ...(input.authorization_code ? { gateway_authorization_code: input.authorization_code } : {}),
    ...(input.settlement_token ? { settlement_token: input.settlement_token } : {}),
  };
  const doc: PaymentDoc = { id: reference, watermark: 0, token: data.token, customer: customer.id, data };
  await applyAllocations(s, doc, entries, invoices, []);
  return doc;
}

/** A payment made here that was IN PROGRESS (its bank transaction had not settled) is PAID; any other status stays. */
export async function settlePayment(s: ReceivablesUnit, reference: string): Promise<PaymentDoc> {
  const doc = await s.payment(reference);
  if (!doc) throw notFound('payment_not_found', `No payment ${reference}`);
  if (doc.data.status !== 'IN PROGRESS') return doc;
  doc.data.status = 'PAID';
  doc.data.updated_at = s.tx.at;
  doc.data.updated_ms = s.tx.now;
  s.putPayment(doc);
  writeAmountRecords(s, doc, doc.data.allocations);
  return doc;
}

/** What keeping less of a payment takes off it (takeOffPlan). */
export interface TakeOffPlan {
  /** Taken off the payment's amount. */
  taken_cents: number;
  /** Off its unapplied credit. */
  from_credit_cents: number;
  /** Each allocation (by position) it comes off, and what its invoice owes again. */
  invoices: Array<{ index: number; invoice_number: string; cents: number }>;
  /** Keeping nothing, the payment is reversed whole, its discounts too. */
  reverses: boolean;
}

/**
 * The rule keepOfPayment applies, worked out without changing anything, so a refund's confirmation
 * can say what it will put back owing by the very rule that will do it.
 */
export function takeOffPlan(p: PaymentData, keepCents: number): TakeOffPlan {
  const keep = Math.max(0, keepCents);
  if (REVERSED.has(p.status) || p.amount_cents <= keep) return { taken_cents: 0, from_credit_cents: 0, invoices: [], reverses: false };
  if (keep === 0) {
    const invoices = p.allocations.map((a, index) => ({ index, invoice_number: a.invoice_number, cents: a.amount_cents + a.discount_cents }));
    return { taken_cents: p.amount_cents, from_credit_cents: p.unapplied_cents, invoices: invoices.filter((i) => i.cents > 0), reverses: true };
  }
  let back = p.amount_cents - keep;
  const fromCredit = Math.min(back, p.unapplied_cents);
  back -= fromCredit;
  const invoices: TakeOffPlan['invoices'] = [];
  for (let i = p.allocations.length - 1; i >= 0 && back > 0; i--) {
    const a = p.allocations[i]!;
    const take = Math.min(back, a.amount_cents);
    if (take <= 0) continue;
    back -= take;
    invoices.push({ index: i, invoice_number: a.invoice_number, cents: take });
  }
  return { taken_cents: p.amount_cents - keep, from_credit_cents: fromCredit, invoices, reverses: false };
}

/**
 * A payment made here whose money went partly back to the payer (its card transaction refunded or
 * voided): it keeps `keepCents`, and the rest comes off its unapplied credit first, then off its
 * invoices, last applied first, so they are owed again (takeOffPlan). A payment already at or under
 * `keepCents` (or reversed) is left as it is, so a repeat does nothing. What was taken off is kept
 * on the payment with its cause, so the payment still says what it received.
 *
 * Keeping nothing, it is a REVERSAL (or `reversedAs`: ERROR (NSF) for a return for missing funds)
 * of amount 0 with nothing applied (its discount back on the invoice too). Not a reversal of what it
 * still held before: that was the last refund's share, or several refunds' when they were taken off
 * together, so the same refunds read differently.
 */
export async function keepOfPayment(s: ReceivablesUnit, reference: string, keepCents: number, reason: string, cause: RefundCause, reversedAs: ReversalStatus = 'REVERSAL'): Promise<PaymentDoc> {
  const doc = await s.payment(reference);
  if (!doc) throw notFound('payment_not_found', `No payment ${reference}`);
  const p = doc.data;
  const plan = takeOffPlan(p, keepCents);
  if (plan.taken_cents === 0) return doc;
  const previous = p.allocations.map((a) => ({ ...a }));
  if (plan.reverses) {
    await reverseAllocations(s, p, []);
    p.allocations = [];
    p.unapplied_cents = 0;
    p.status = reversedAs;
    return keptOnly(s, doc, plan, reason, cause, previous);
  }
  p.unapplied_cents -= plan.from_credit_cents;
  for (const { index, cents: take } of plan.invoices) {
    const inv = await giveBackToInvoice(s, p.allocations[index]!, take);
    if (inv) await restateServed(s, inv);
  }
  // Allocation ids are positions: only those emptied at the end go (their amount records say removed).
  while (p.allocations.length > 0 && p.allocations.at(-1)!.amount_cents === 0 && p.allocations.at(-1)!.discount_cents === 0) p.allocations.pop();
  return keptOnly(s, doc, plan, reason, cause, previous);
}

function keptOnly(s: ReceivablesUnit, doc: PaymentDoc, plan: TakeOffPlan, reason: string, cause: RefundCause, previous: readonly AllocationData[]): PaymentDoc {
  const p = doc.data;
  p.amount_cents -= plan.taken_cents;
  p.taken_off = [...(p.taken_off ?? []), { kind: cause.kind, sale_token: cause.sale_token, transaction_token: cause.transaction_token, at: s.tx.at, date: s.today, amount_cents: plan.taken_cents, reason }];
  p.status_reason = reason;
  p.updated_at = s.tx.at;
  p.updated_ms = s.tx.now;
  s.putPayment(doc);
  writeAmountRecords(s, doc, previous);
  return doc;
}

export type ReversalStatus = 'REVERSAL' | 'ERROR (NSF)' | 'ERROR (DECLINED)';

/**
 * Reverses a payment (an ACH return, a chargeback, a decline found later): its allocations come
 * off the invoices, its unapplied credit off the customer, and its status says why.
 *
 * With a `cause` (a payment made here whose money the payer's bank took back: a chargeback or an
 * ACH return of its sale), it is taken off the payment as a refund or void of all it still keeps is
 * (keepOfPayment, keeping nothing): amount 0, nothing applied, the chargeback or return listed
 * among what was taken off, so the payment, its amount records and the invoices agree. Without one
 * (an upstream's reversal of a payment it sent) the payment keeps its amount and allocations, as
 * its sender has them.
 */
export async function reversePayment(s: ReceivablesUnit, reference: string, status: ReversalStatus, reason?: string, cause?: RefundCause): Promise<PaymentDoc> {
  const doc = await s.payment(reference);
  if (!doc) throw notFound('payment_not_found', `No payment ${reference}`);
  if (REVERSED.has(doc.data.status)) return doc;
  if (cause && doc.data.amount_cents > 0) return keepOfPayment(s, reference, 0, reason ?? status, cause, status);
  await reverseAllocations(s, doc.data, []);
  doc.data.status = status;
  if (reason) doc.data.status_reason = reason;
  s.putPayment(doc);
  writeAmountRecords(s, doc, doc.data.allocations);
  return doc;
}
