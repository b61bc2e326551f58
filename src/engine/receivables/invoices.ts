import { addDays, DAY_MS } from '../clock';
import { decimalTimesMinor, formatMoney } from '../../shared/money';
import { fail, notFound } from '../errors';
import { attach, decodeAttachment } from './attachments';
import { CUSTOMER_FIELDS, upsertCustomer } from './customers';
import { resolveInvoiceDivision } from './divisions';
import { computedAmount, extraAttributes, Fields } from './fields';
import { mergeLineItems, readAdjustments, readLineItems } from './line-items';
import { EMAIL_RE, freeKey, KEY_RE, NOTES_MAX, Problems } from './problems';
import { amountRange, fitToAmount } from './served-order';
import type { ReceivablesUnit } from './unit-of-work';
import type { AllocationCut, CustomerDoc, InvoiceData, InvoiceDoc, InvoiceImportInput } from './types';
import { IMPORT_READ_ONLY_FIELDS } from '../../shared/schemas/receivables-common';

/** Invoice numbers are the ERP's (`INV/2026/001` is common), at most 64 characters (the stored key). */
const INVOICE_KEY = freeKey(64);
export const NUMBER_RE = INVOICE_KEY.pattern;
const NUMBER_RULE = INVOICE_KEY.rule;

const INVOICE_FIELDS = new Set([
  'number', 'customer_identifier', 'display_number', 'currency', 'amount', 'replace_line_items', 'amount_override',
  'suppress_notifications', 'attachment', 'subtotal_tax1', 'subtotal_tax2', 'date', 'order_date', 'due_date',
  'purchase_order_number', 'notes_text', 'shipping_name', 'shipping_address_1', 'shipping_address_2', 'shipping_city',
  'shipping_province', 'shipping_postal_code', 'shipping_country', 'line_item_attributes', 'auto_debit', 'division',
  'division_name', 'auto_debit_reference', 'owing_cents', 'ref1', 'ref2', 'ref3', 'adjustments_attributes',
  'plan_identifier', 'plan_start_date', 'plan_end_date', 'plan_payment_cents', 'annualized_amount_cents',
  'annualized_effective_date', 'annualized_expiry_date', 'external_id', 'summary_invoice_parent', 'summary_invoice_number',
  'service_rep_email', 'discount_amount_cents', 'discount_rate', 'discount_expiry_date', 'echo',
]);

/**
 * A name an invoice import keeps as an extra attribute of the invoice (`extended_attributes`), not
 * one of its fields, its customer's, its L3 data or what it ignores as read-only.
 */
export function isInvoiceExtraKey(key: string): boolean {
  return !INVOICE_FIELDS.has(key) && !isCustomerKey(key) && !(L3_FIELDS as readonly string[]).includes(key) && !IMPORT_READ_ONLY_FIELDS.has(key);
}
const L3_FIELDS = ['L3_po_number', 'L3_tax', 'L3_duty', 'L3_shipping', 'L3_ship_from_zip', 'L3_ship_from_country'] as const;
const PLAN_FIELDS = ['plan_identifier', 'plan_start_date', 'plan_end_date', 'plan_payment_cents', 'annualized_amount_cents'] as const;

const isCustomerKey = (key: string) => key.startsWith('customer_') && CUSTOMER_FIELDS.has(key.slice('customer_'.length));

export interface InvoiceImportResult {
  invoice: InvoiceDoc;
  customer: CustomerDoc;
  created: boolean;
  lineItems: number;
  echoPayUrls: boolean;
}

/** The due date a customer's terms give an invoice dated `date`. */
export function dueFromTerms(date: string, type: 'day' | 'date' | undefined, value: number | undefined): string | undefined {
  if (!type || value === undefined) return undefined;
  if (type === 'day') return addDays(date, value);
  const [y, m] = date.split('-').map(Number) as [number, number];
  const year = m === 12 ? y + 1 : y;
  const month = m === 12 ? 1 : m + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const day = value === -1 ? last : value === -2 ? last - 1 : value;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * Pro-rates an annual amount over the inclusive span effective..expiry. The span is counted in
 * years from the effective date: each whole year in it bills exactly the annual amount (a leap
 * year as much as any other), and only the rest, the part-year after the last whole one, is
 * pro-rated: its days over the days of the year-long period it starts (365, or 366 when that period
 * holds a 29 February). 2027-01-01..2028-12-31 is two whole years; 2028-01-01..2028-06-30 is 182
 * days of a 366-day year. The pro-rated part is rounded half away from zero, computed exactly
 * (BigInt), so a credit is its debit with the sign turned. A result past the amount bound is the
 * caller's to refuse.
 */
export function prorate(annualCents: number, effective: string, expiry: string): number {
  const [y, m, d] = effective.split('-').map(Number) as [number, number, number];
  // The effective date's anniversary k years on, in ms (29 February falls on 1 March in a common year).
  const anniversary = (k: number) => {
    const t = new Date(0);
    t.setUTCFullYear(y + k, m - 1, d);
    return t.getTime();
  };
  const end = Date.parse(`${expiry}T00:00:00Z`) + DAY_MS; // the span is inclusive: it ends as the next day starts
  let years = Math.max(0, Number(expiry.slice(0, 4)) - y - 1);
  while (anniversary(years + 1) <= end) years++;
  const restDays = BigInt(Math.round((end - anniversary(years)) / DAY_MS));
  const yearDays = BigInt(Math.round((anniversary(years + 1) - anniversary(years)) / DAY_MS));
  const annual = BigInt(annualCents);
  const magnitude = annual < 0n ? -annual : annual;
  // Half away from zero: floor((2 * |annual| * rest + year) / (2 * year)), the sign put back.
  const rest = (2n * magnitude * restDays + yearDays) / (2n * yearDays);
  return Number(BigInt(years) * annual + (annual < 0n ? -rest : rest)) || 0;
}

/**
 * createOnly: a number already used is refused (412 invoice_exists), not updated: a person typing a
 * new invoice means a new one, never to replace the ERP's. customerOnFile: an unknown
 * customer_identifier is refused (412 customer_not_found) rather than created, so a mistyped
 * identifier does not make a stray customer.
 */
export interface InvoiceImportOptions {
  createOnly?: boolean;
  customerOnFile?: boolean;
  /** Told each allocation cut because the invoice's new amount no longer allows what was applied (fitToAmount). */
  cuts?: AllocationCut[];
}

/**
 * Balance sync takes the ERP's owing as the truth, but only what the invoice itself stands for: an
 * invoice owes from 0 up to its amount, a credit memo gives from 0 up to its own credit. Anything
 * else is the ERP's mistake, and kept it would charge (or credit) the customer money no invoice
 * stands for: a memo owing a positive balance would be paid by card, an invoice owing less than 0
 * would be credit. The problem (naming the allowed range), or undefined.
 */
export function owingBeyondAmount(amount: number, owing: number): string | undefined {
  const [low, high] = amountRange(amount);
  if (owing >= low && owing <= high) return undefined;
  return amount >= 0
    ? `(${owing}) must be from 0 to the invoice's amount (${amount}): an invoice owes no more than it is for, and never less than nothing`
    : `(${owing}) must be from the credit memo's amount (${amount}) to 0: a credit memo gives no more credit than its own, and never owes`;
}

/**
 * Creates or updates one invoice (an existing number is updated), with its customer created or
 * updated from customer_* attributes. Every rule is checked before anything changes; a broken one
 * throws 412 naming each field.
 */
export async function importInvoice(s: ReceivablesUnit, input: InvoiceImportInput, options: InvoiceImportOptions = {}): Promise<InvoiceImportResult> {
  const problems = new Problems();
  const f = new Fields(input, problems);
  const { number, customerIdentifier, existing } = await readIdentity(s, f, problems);
  if (existing && !existing.data.deleted && options.createOnly) refuseExisting(existing, problems);
  const prev: Partial<InvoiceData> = existing?.data ?? {};
  // Fields are read in this order so that problems are named in the order of the reference's list.
  const header = readHeader(f, problems, prev);
  const plan = readPlan(s, f, problems, prev);
  const discount = readDiscount(s, f, problems);
  if (s.account.can('balance_sync') && header.owingIn === undefined) problems.add('owing_cents', 'missing_owing_cents', 'is required: this account uses balance sync');
  const summary = await readSummary(s, f, problems, number, prev);
  const l3 = readL3(f, prev);
  const lineInputs = readLineItems(input.line_item_attributes, problems);
  const lines = mergeLineItems(prev.line_items ?? [], lineInputs, header.replaceLines, problems);
  const adjustments = readAdjustments(input.adjustments_attributes, problems) ?? prev.adjustments ?? [];
  const division = await resolveInvoiceDivision(s, header.divisionCode, header.divisionName, prev.division, problems);
  const attachment = readAttachment(input, problems);
  const amount = invoiceAmount({ ...header, ...plan, lines, lineInputs }, prev, problems);
  // A discount of the whole invoice or more is never given (early-discount.ts): said, not kept unused.
  // (A rate, sent or kept, decides the discount itself: the amount sent beside it is not used.)
  const byRate = (discount.rate ?? prev.discount_rate ?? null) !== null;
  if (discount.enabled && !byRate && discount.amount !== undefined && amount !== undefined && amount > 0 && discount.amount >= amount) {
    problems.add('discount_amount_cents', 'discount_not_less_than_amount', `(${discount.amount}) must be less than the invoice amount (${amount})`);
  }
  const syncedOwing = s.account.can('balance_sync') ? header.owingIn : undefined;
  const beyond = syncedOwing !== undefined && amount !== undefined ? owingBeyondAmount(amount, syncedOwing) : undefined;
  if (beyond) problems.add('owing_cents', 'owing_exceeds_amount', beyond);
  const customer = customerIdentifier ? await invoiceCustomer(s, input, customerIdentifier, existing, number, header.currency, problems, options.customerOnFile === true) : undefined;
  const extra = extraAttributes(input, INVOICE_FIELDS, problems, (k) => !isInvoiceExtraKey(k));
  problems.throwIfAny();
  if (!number || !customer || amount === undefined) throw fail.internal('invoice_fields', 'invoice fields missing after validation');

  const data = invoiceData(s, existing, { number, customer, amount, lines, adjustments, extra, isParent: summary.isParent }, header);
  setOptionalFields(data, prev, { header, plan, summaryNumber: summary.summaryNumber, division });
  if (discount.enabled) setDiscount(data, prev, discount, amount);
  if (Object.keys(l3).length) data.l3 = l3;
  const invoiceDate = data.date;
  setField(data, prev, 'due_date', header.dueDate ?? prev.due_date ?? dueFromTerms(invoiceDate, customer.data.terms_type, customer.data.terms_value));
  // Balance sync: the ERP's owing is the truth. Otherwise owing is what payments left of the amount.
  data.owing_cents = syncedOwing ?? amount - data.applied_cents;

  const doc: InvoiceDoc = existing
    ? { ...existing, customer: customer.id, data }
    : { id: number, watermark: 0, display_number: data.display_number, customer: customer.id, feed: 'open', division: data.division ?? '', iid: 0, data };
  s.putInvoice(doc);
  // A new amount that no longer allows what payments applied to it (an ERP's correction: lowered,
  // turned into a credit memo, a memo's credit lowered or turned into an invoice): the payments
  // served last on it (served-order.ts) give back what does not fit, so an invoice owes from 0 to
  // its amount, a memo from its amount to 0, and every install cuts the same payments.
  const cuts = await fitToAmount(s, doc);
  options.cuts?.push(...cuts);
  if (attachment) await attach(s, doc, attachment, true);
  return { invoice: doc, customer, created: !existing, lineItems: lineInputs?.length ?? 0, echoPayUrls: header.echo === 'pay_urls' };
}

/** The invoice's number and customer identifier (both required), and the invoice stored under that number. */
async function readIdentity(s: ReceivablesUnit, f: Fields, problems: Problems) {
  const number = f.str('number', { pattern: NUMBER_RE, patternText: NUMBER_RULE, code: 'invalid_number' });
  if (!f.has('number')) problems.add('number', 'missing_number', 'is required');
  const customerIdentifier = f.str('customer_identifier', { pattern: KEY_RE, patternText: 'must be 1 to 100 letters and digits (with - _ . inside)', code: 'invalid_customer_identifier' });
  if (!f.has('customer_identifier')) problems.add('customer_identifier', 'missing_customer_identifier', 'is required');
  const existing = number ? await s.invoice(number) : undefined;
  if (existing?.data.deleted) problems.add('number', 'invoice_deleted', `${number} was deleted and cannot be imported again`);
  return { number, customerIdentifier, existing };
}

/** Names the invoice a create-only import would have replaced, so the person sees which one it is. */
function refuseExisting(existing: InvoiceDoc, problems: Problems): void {
  const d = existing.data;
  const amount = formatMoney(d.amount_cents, d.currency, { locale: 'en-US' });
  problems.add('number', 'invoice_exists', `${d.number} is already an invoice: ${amount} to ${d.customer_identifier} dated ${d.date}. Open it, or choose another number.`);
}

type InvoiceHeader = ReturnType<typeof readHeader>;

/** The invoice's own fields: amounts and taxes, dates, texts, shipping, auto debit, division, references. */
function readHeader(f: Fields, problems: Problems, prev: Partial<InvoiceData>) {
  const text = (name: string, max = 200) => f.str(name, { max });
  const displayNumber = f.str('display_number', { pattern: NUMBER_RE, patternText: NUMBER_RULE, code: 'invalid_display_number' });
  const currency = f.currency('currency');
  const amountIn = f.int('amount', { code: 'invalid_amount' });
  const replaceLines = f.bool('replace_line_items') ?? false;
  const amountOverride = f.bool('amount_override') ?? false;
  const suppress = f.bool('suppress_notifications');
  const tax1 = f.int('subtotal_tax1');
  const tax2 = f.int('subtotal_tax2');
  const date = f.date('date');
  const orderDate = f.date('order_date');
  const dueDate = f.date('due_date');
  const po = text('purchase_order_number', 100);
  const notes = f.str('notes_text', { max: NOTES_MAX, code: 'notes_too_long' });
  // Read with the rest, before the problems are thrown: a field read after that would lose its problem.
  const shipping = readShipping(f, prev);
  const autoDebit = f.oneOf('auto_debit', ['Y', 'N'] as const, 'invalid_auto_debit');
  const divisionCode = f.str('division', { max: 40 });
  const divisionName = f.str('division_name', { max: 200 });
  const autoDebitReference = text('auto_debit_reference', 100);
  const owingIn = f.int('owing_cents', { code: 'invalid_owing_cents' });
  const refs = { ref1: text('ref1'), ref2: text('ref2'), ref3: text('ref3') };
  const externalId = text('external_id', 100);
  const serviceRep = f.str('service_rep_email', { max: 1000 });
  if (serviceRep !== undefined && serviceRep.split(';').some((e) => !EMAIL_RE.test(e.trim()))) problems.add('service_rep_email', 'invalid_email', 'must be email addresses separated by semicolons');
  const echo = f.oneOf('echo', ['pay_urls'] as const, 'invalid_echo');
  return {
    displayNumber, currency, amountIn, replaceLines, amountOverride, suppress, tax1, tax2, date, orderDate, dueDate, po, notes,
    shipping, autoDebit, divisionCode, divisionName, autoDebitReference, owingIn, refs, externalId, serviceRep, echo,
  };
}

/** Shipping fields as sent; a new country without a new province drops the old country's province. */
function readShipping(f: Fields, prev: Partial<InvoiceData>) {
  const text = (name: string, max = 200) => f.str(name, { max });
  const name = text('shipping_name');
  const address1 = text('shipping_address_1');
  const address2 = text('shipping_address_2');
  const city = text('shipping_city');
  const postalCode = text('shipping_postal_code', 30);
  const country = f.country('shipping_country');
  const movedCountry = country !== undefined && country !== prev.shipping?.country;
  const province = f.province('shipping_province', country ?? prev.shipping?.country, movedCountry ? prev.shipping?.province : undefined);
  return { name, address_1: address1, address_2: address2, city, province, postal_code: postalCode, country };
}

type InvoicePlan = ReturnType<typeof readPlan>;

/** Payment plan and annualized amount fields; an account with payment plans requires the plan's fields. */
function readPlan(s: ReceivablesUnit, f: Fields, problems: Problems, prev: Partial<InvoiceData>) {
  const planIdentifier = f.str('plan_identifier', { max: 100 });
  const planStart = f.date('plan_start_date');
  const planEnd = f.date('plan_end_date');
  const planPayment = f.int('plan_payment_cents', { min: 0 });
  const annualized = f.int('annualized_amount_cents');
  const effective = f.date('annualized_effective_date');
  const expiry = f.date('annualized_expiry_date');
  if (s.account.can('payment_plans')) {
    for (const name of PLAN_FIELDS) {
      if (!f.has(name) && prev[name] === undefined) problems.add(name, 'missing_plan_field', 'is required: this account uses payment plans');
    }
  }
  if (planStart && planEnd && planEnd < planStart) problems.add('plan_end_date', 'invalid_plan_dates', 'must not be before plan_start_date');
  if (annualized !== undefined) {
    if (!effective) problems.add('annualized_effective_date', 'missing_annualized_date', 'is required with annualized_amount_cents');
    if (!expiry) problems.add('annualized_expiry_date', 'missing_annualized_date', 'is required with annualized_amount_cents');
    if (effective && expiry && expiry < effective) problems.add('annualized_expiry_date', 'invalid_annualized_dates', 'must not be before annualized_effective_date');
  }
  return { planIdentifier, planStart, planEnd, planPayment, annualized, effective, expiry };
}

type InvoiceDiscount = ReturnType<typeof readDiscount>;

/**
 * Discounts need the account's discount configuration; without it the fields are ignored, as
 * owing_cents is without balance sync (the reference's own example sends them).
 */
function readDiscount(s: ReceivablesUnit, f: Fields, problems: Problems) {
  const amount = f.int('discount_amount_cents', { min: 0 });
  const rate = f.num('discount_rate');
  const expiry = f.date('discount_expiry_date');
  const enabled = s.account.can('discounts');
  if (enabled && rate !== undefined && (rate < 0 || rate >= 1)) {
    problems.add('discount_rate', 'invalid_discount_rate', 'must be a fraction from 0 to less than 1 (0.05 is 5%)');
  }
  return { enabled, amount, rate, expiry };
}

/** Level 3 card data, merged over what the invoice kept. */
function readL3(f: Fields, prev: Partial<InvoiceData>): Record<string, string> {
  const l3: Record<string, string> = { ...(prev.l3 ?? {}) };
  for (const name of L3_FIELDS) {
    const v = name === 'L3_ship_from_country' ? f.country(name) : f.str(name, { max: 100 });
    if (v !== undefined) l3[name] = v;
  }
  return l3;
}

function readAttachment(input: InvoiceImportInput, problems: Problems): ReturnType<typeof decodeAttachment> {
  if (input.attachment === undefined || input.attachment === null) return undefined;
  if (typeof input.attachment !== 'object') {
    problems.add('attachment', 'invalid_type', 'must be an object with file_name and content');
    return undefined;
  }
  return decodeAttachment(input.attachment as { file_name: unknown; content: unknown }, problems, 'attachment.');
}

/** The fields every invoice has, over what the stored invoice kept. */
function invoiceData(
  s: ReceivablesUnit,
  existing: InvoiceDoc | undefined,
  sent: { number: string; customer: CustomerDoc; amount: number; lines: InvoiceData['line_items']; adjustments: InvoiceData['adjustments']; extra: Record<string, unknown>; isParent: boolean },
  header: InvoiceHeader,
): InvoiceData {
  const prev: Partial<InvoiceData> = existing?.data ?? {};
  const now = s.tx.at;
  return {
    ...(existing?.data ?? {}),
    number: sent.number,
    display_number: header.displayNumber ?? prev.display_number ?? sent.number,
    iid: prev.iid ?? 0,
    customer_identifier: sent.customer.identifier,
    currency: header.currency ?? prev.currency ?? s.currency,
    amount_cents: sent.amount,
    owing_cents: 0,
    applied_cents: prev.applied_cents ?? 0,
    date: header.date ?? prev.date ?? s.today,
    line_items: sent.lines,
    adjustments: sent.adjustments,
    auto_debit: header.autoDebit !== undefined ? header.autoDebit === 'Y' : (prev.auto_debit ?? true),
    summary_invoice_parent: sent.isParent,
    suppress_notifications: header.suppress ?? prev.suppress_notifications ?? false,
    deleted: false,
    attachments: prev.attachments ?? [],
    pay_token: prev.pay_token ?? s.core.ids.token(),
    extra: { ...(prev.extra ?? {}), ...sent.extra },
    created_at: prev.created_at ?? now,
    updated_at: now,
    updated_ms: s.tx.now,
  };
}

/** Sets a field to the value sent, else keeps the stored one; a field with neither is left out. */
function setField<K extends keyof InvoiceData>(data: InvoiceData, prev: Partial<InvoiceData>, k: K, v: InvoiceData[K] | undefined): void {
  const value = v !== undefined ? v : prev[k];
  if (value === undefined) delete data[k];
  else data[k] = value as InvoiceData[K];
}

/** The optional fields, each the value sent or the one kept, in the stored record's order. */
function setOptionalFields(
  data: InvoiceData,
  prev: Partial<InvoiceData>,
  sent: { header: InvoiceHeader; plan: InvoicePlan; summaryNumber: string | undefined; division: string | undefined },
): void {
  const { header, plan } = sent;
  const set = <K extends keyof InvoiceData>(k: K, v: InvoiceData[K] | undefined) => setField(data, prev, k, v);
  set('subtotal_tax1', header.tax1);
  set('subtotal_tax2', header.tax2);
  set('order_date', header.orderDate);
  set('purchase_order_number', header.po);
  set('notes_text', header.notes);
  const shipping = mergeShipping(prev.shipping, header.shipping);
  if (Object.keys(shipping).length) data.shipping = shipping;
  set('division', sent.division);
  set('auto_debit_reference', header.autoDebitReference);
  set('ref1', header.refs.ref1);
  set('ref2', header.refs.ref2);
  set('ref3', header.refs.ref3);
  set('plan_identifier', plan.planIdentifier);
  set('plan_start_date', plan.planStart);
  set('plan_end_date', plan.planEnd);
  set('plan_payment_cents', plan.planPayment);
  set('annualized_amount_cents', plan.annualized);
  set('annualized_effective_date', plan.effective);
  set('annualized_expiry_date', plan.expiry);
  set('external_id', header.externalId);
  set('summary_invoice_number', sent.summaryNumber);
  set('service_rep_email', header.serviceRep);
}

/** The shipping fields sent, over the stored ones. */
function mergeShipping(kept: InvoiceData['shipping'], sent: InvoiceHeader['shipping']): NonNullable<InvoiceData['shipping']> {
  const shipping = { ...(kept ?? {}) };
  for (const k of ['name', 'address_1', 'address_2', 'city', 'province', 'postal_code', 'country'] as const) {
    const v = sent[k];
    if (v !== undefined) shipping[k] = v;
  }
  return shipping;
}

function setDiscount(data: InvoiceData, prev: Partial<InvoiceData>, discount: InvoiceDiscount, amount: number): void {
  setField(data, prev, 'discount_expiry_date', discount.expiry);
  setField(data, prev, 'discount_rate', discount.rate);
  // A rate, sent now or kept, always decides the discount (even beside discount_amount_cents),
  // from the invoice amount as it is now.
  const rate = discount.rate ?? prev.discount_rate;
  setField(data, prev, 'discount_amount_cents', rate !== undefined && rate !== null ? decimalTimesMinor(rate, amount) : discount.amount);
}

/** Summary invoices: whether this one is a parent, and the parent it names (which must be one). */
async function readSummary(s: ReceivablesUnit, f: Fields, problems: Problems, number: string | undefined, prev: Partial<InvoiceData>) {
  const summaryParent = f.bool('summary_invoice_parent');
  const summaryNumber = f.str('summary_invoice_number', { pattern: NUMBER_RE, patternText: NUMBER_RULE });
  const isParent = summaryParent ?? prev.summary_invoice_parent ?? false;
  if (summaryNumber !== undefined) {
    if (isParent) problems.add('summary_invoice_number', 'invalid_summary', 'cannot be set on a summary invoice (summary_invoice_parent)');
    else if (summaryNumber === number) problems.add('summary_invoice_number', 'invalid_summary', 'cannot name the invoice itself');
    else {
      const parent = await s.invoice(summaryNumber);
      if (!parent || parent.data.deleted) problems.add('summary_invoice_number', 'summary_invoice_not_found', `names no invoice (${summaryNumber})`);
      else if (!parent.data.summary_invoice_parent) problems.add('summary_invoice_number', 'not_a_summary_invoice', `${summaryNumber} is not a summary invoice (summary_invoice_parent)`);
    }
  }
  return { isParent, summaryNumber };
}

/**
 * Amount: an override wins; then an annualized amount pro-rated; then line items with taxes; else
 * the amount sent (or kept). Adjustments (a fuel surcharge...) are shown beside the amount, not
 * added to it: the reference's own example has a 400.00 line, a 20.00 surcharge and an amount of
 * 400.00.
 */
function invoiceAmount(
  sent: {
    amountIn: number | undefined;
    amountOverride: boolean;
    annualized: number | undefined;
    effective: string | undefined;
    expiry: string | undefined;
    lines: InvoiceData['line_items'];
    lineInputs: unknown[] | undefined;
    replaceLines: boolean;
    tax1: number | undefined;
    tax2: number | undefined;
  },
  prev: Partial<InvoiceData>,
  problems: Problems,
): number | undefined {
  const { amountIn, amountOverride, annualized, effective, expiry, lines, lineInputs, replaceLines, tax1, tax2 } = sent;
  let amount: number | undefined;
  if (amountOverride) {
    if (amountIn === undefined && !problems.has('amount')) problems.add('amount', 'missing_amount', 'is required with amount_override');
    amount = amountIn;
  } else if (annualized !== undefined && effective && expiry) {
    amount = computedAmount(prorate(annualized, effective, expiry), problems, 'amount', 'annualized_amount_cents pro-rated');
  } else if (lines.length > 0 || (amountIn === undefined && replaceLines && lineInputs !== undefined && (prev.line_items ?? []).length > 0)) {
    // (Every stored line replaced by none: the amount is what is left, the taxes.) Summed exactly,
    // so a total past the bound is refused rather than rounded back into it.
    const t1 = tax1 ?? prev.subtotal_tax1 ?? 0;
    const t2 = tax2 ?? prev.subtotal_tax2 ?? 0;
    const total = lines.reduce((sum, l) => sum + BigInt(l.amount_cents), BigInt(t1) + BigInt(t2));
    amount = computedAmount(Number(total), problems, 'amount', 'line items and taxes');
  } else amount = amountIn ?? prev.amount_cents;
  // Line items sent and none kept: each has its problem already (no amount, or one beyond the bound).
  const linesRefused = lines.length === 0 && (lineInputs?.length ?? 0) > 0;
  if (amount === undefined && !amountOverride && !linesRefused && !problems.has('amount')) problems.add('amount', 'missing_amount', 'is required (or line_item_attributes)');
  return amount;
}

/**
 * The invoice's customer: created when unknown, updated from customer_* attributes when any are
 * sent. An invoice with payments applied keeps its customer and its currency.
 */
async function invoiceCustomer(
  s: ReceivablesUnit,
  input: InvoiceImportInput,
  customerIdentifier: string,
  existing: InvoiceDoc | undefined,
  number: string | undefined,
  currency: string | undefined,
  problems: Problems,
  onFileOnly: boolean,
): Promise<CustomerDoc | undefined> {
  const hasCustomerFields = Object.keys(input).some((k) => isCustomerKey(k) && k !== 'customer_identifier');
  let customer = await s.customerByIdentifier(customerIdentifier);
  if (!customer && onFileOnly) {
    problems.add('customer_identifier', 'customer_not_found', `No customer ${customerIdentifier} is on file: check the identifier, or add the customer first.`);
    return undefined;
  }
  if (existing && customer?.id !== existing.customer && (existing.data.applied_cents !== 0)) {
    problems.add('customer_identifier', 'invoice_has_payments', `cannot move invoice ${number} to another customer: payments are applied to it`);
  }
  if (existing && currency && currency !== existing.data.currency && existing.data.applied_cents !== 0) {
    problems.add('currency', 'invoice_has_payments', 'cannot change: payments are applied to this invoice');
  }
  if (!customer || hasCustomerFields) {
    customer = (await upsertCustomer(s, input, { prefix: 'customer_', identifier: customerIdentifier, problems, defaultName: customerIdentifier })).customer;
  }
  return customer;
}

/** Soft-deletes an invoice: it leaves the customer's balance and the open-invoice export. */
export async function deleteInvoice(s: ReceivablesUnit, number: string): Promise<InvoiceDoc> {
  const doc = await s.invoice(number);
  if (!doc) throw notFound('invoice_not_found', `No invoice ${number}`);
  if (doc.data.deleted) return doc;
  doc.data.deleted = true;
  s.putInvoice(doc);
  return doc;
}
