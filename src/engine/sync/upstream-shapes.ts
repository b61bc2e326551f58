import { minorDigits } from '../../shared/money';
import { maskCardNumbersInFreeText } from '../security/card-data';
import { isInvoiceExtraKey } from '../receivables/invoices';
import { isLineExtraKey } from '../receivables/line-items';

/**
 * What flows between a hub and an upstream service: customers, invoices and payments as the
 * import operations take them, made from the records the export operations give. One conversion
 * serves both directions: an upstream's export record becomes the body this install imports, and
 * this install's own export record becomes the body it sends to the upstream's import. Both sides
 * then hold the same body for the same record, which is what replication compares (a record is
 * sent again only when its body changed).
 *
 * Only what an import can set is carried: balances, aging, owing and statuses are computed by each
 * side from the same invoices and payments. A body never carries null: the import operations read
 * null as absent, so a field cleared on one side is not cleared on the other.
 *
 * An invoice deleted (voided) or a payment reversed is a "retired" body: only its key and what
 * retired it (`{ number, deleted: true }`, `{ identifier, status }`), so both sides agree on it
 * whatever else their exports show of it. No import can retire a record: this install retires its
 * own copy by its own rule (upstream-fork.ts), and a retirement made here is reported, not sent
 * (upstream-retire.ts).
 */
export type UpstreamEntity = 'customers' | 'invoices' | 'payments' | 'orders';

export interface EntitySpec {
  name: UpstreamEntity;
  /** The collection whose watermark is this entity's checkpoint on this install. */
  collection: 'customers' | 'invoices' | 'payments' | 'orders';
  /** `both`: pulled and pushed; `up`: pushed only (the lanes' sales, as orders). */
  direction: 'both' | 'up';
  /** The export operation polled on the upstream (the spec's watermark protocol) and its wrapper key. */
  exportPath: string;
  /** The single-record view, used to fetch what a pulled record depends on. */
  viewPath: (key: string) => string;
  importPath: string;
  /** The identifier the import operation upserts on. */
  keyField: 'identifier' | 'number';
}

export const UPSTREAM_ENTITIES: readonly EntitySpec[] = [
  { name: 'customers', direction: 'both', collection: 'customers', exportPath: '/api/exports/customers', viewPath: (k) => `/api/exports/customer/${encodeURIComponent(k)}`, importPath: '/api/imports/customer', keyField: 'identifier' },
  { name: 'invoices', direction: 'both', collection: 'invoices', exportPath: '/api/exports/invoices', viewPath: (k) => `/api/exports/invoice/${encodeURIComponent(k)}`, importPath: '/api/imports/invoice', keyField: 'number' },
  { name: 'payments', direction: 'both', collection: 'payments', exportPath: '/api/exports/payments', viewPath: (k) => `/api/exports/payment/${encodeURIComponent(k)}`, importPath: '/api/imports/payment', keyField: 'identifier' },
  // The lanes' sales reach the hub as orders (docs/sync.md); the upstream takes them by its order
  // import. Their gateway transactions cannot be imported (the spec's order import refuses them).
  { name: 'orders', direction: 'up', collection: 'orders', exportPath: '/api/exports/orders', viewPath: (k) => `/api/exports/order/${encodeURIComponent(k)}`, importPath: '/api/imports/order', keyField: 'identifier' },
];

export type Body = Record<string, unknown>;
type Rec = Record<string, unknown>;

/** The payment statuses of a reversal (the engine's REVERSED): the payment counts for nothing. */
export const REVERSAL_STATUSES = ['REVERSAL', 'ERROR (NSF)', 'ERROR (DECLINED)'] as const;
export type ReversalStatus = (typeof REVERSAL_STATUSES)[number];
const isReversal = (s: unknown): s is ReversalStatus => (REVERSAL_STATUSES as readonly unknown[]).includes(s);

/** A deleted invoice's or a reversed payment's body: it cannot be imported, only retired. */
export function isRetired(entity: UpstreamEntity, body: Body): boolean {
  return (entity === 'invoices' && body.deleted === true) || (entity === 'payments' && isReversal(body.status));
}

/** Copies the fields that hold a value (not null, not undefined), renamed where `map` says. */
function pick(source: Rec, fields: readonly string[], map: Record<string, string> = {}): Body {
  const out: Body = {};
  for (const f of fields) {
    const v = source[f];
    if (v === null || v === undefined) continue;
    out[map[f] ?? f] = v;
  }
  return out;
}

/**
 * "$1,234.56", "1234.56", "-12.00 €" → minor units of `currency`, the record's own ("¥1,235" is
 * 1235 yen, "KWD 1.005" 1005 fils; cents when the record names none); null when there is no number in it.
 */
export function centsOf(formatted: unknown, currency?: unknown): number | null {
  const scale = 10 ** (typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency) ? minorDigits(currency) : 2);
  if (typeof formatted === 'number') return Math.round(formatted * scale);
  if (typeof formatted !== 'string') return null;
  const cleaned = formatted.replace(/[^0-9.-]/g, '');
  if (!/\d/.test(cleaned)) return null;
  return Math.round(Number.parseFloat(cleaned) * scale);
}

const CUSTOMER_FIELDS = [
  'display_number', 'name', 'email', 'first_name', 'last_name', 'notes', 'address_1', 'address_2', 'city', 'province', 'postal_code', 'country',
  'telephone', 'fax', 'business_number', 'parent_identifier', 'account_status', 'next_contact_date', 'tags', 'external_id', 'external_group_identifier',
] as const;

/**
 * A customer's list record (`GET /api/exports/customers`) as `POST /api/imports/customer` takes it.
 * last_contact_date is left out: the import keeps the later of two dates, so it is not a plain copy.
 */
export function customerBody(r: Rec): Body | null {
  if (typeof r.identifier !== 'string' || typeof r.name !== 'string' || !r.name) return null;
  const body: Body = { identifier: r.identifier, ...pick(r, CUSTOMER_FIELDS) };
  const limit = typeof r.credit_limit_cents === 'number' ? r.credit_limit_cents : centsOf(r.credit_limit, r.credit_limit_currency ?? r.currency);
  if (limit !== null) body.credit_limit_cents = limit;
  if (typeof r.notification_suppressed === 'boolean') body.notification_suppressed = r.notification_suppressed;
  else if (r.notification_suppressed === 'Y' || r.notification_suppressed === 'N') body.notification_suppressed = r.notification_suppressed === 'Y';
  return body;
}

const INVOICE_FIELDS = ['display_number', 'date', 'due_date', 'order_date', 'purchase_order_number', 'notes_text', 'shipping_name', 'division', 'ref1', 'ref2', 'ref3', 'external_id'] as const;
const SHIPPING: Record<string, string> = { address_1: 'shipping_address_1', address_2: 'shipping_address_2', city: 'shipping_city', state: 'shipping_province', zip: 'shipping_postal_code', country: 'shipping_country' };
const LINE_FIELDS = ['number', 'description', 'quantity', 'unit_cost_cents', 'order_key', 'purchase_order_number'] as const;

/**
 * An invoice's record (`GET /api/exports/invoices`) as `POST /api/imports/invoice` takes it. The
 * amount is sent with amount_override so each side stores the same amount whatever its rules for
 * computing one; line items replace the stored ones (a second import does not add them again).
 * A deleted invoice (`deleted` true, present when the export was asked `include_deleted_invoices`)
 * is its number and `deleted` only.
 */
function extrasOf(attributes: unknown, isExtra: (key: string) => boolean): Rec {
  const all = (attributes && typeof attributes === 'object' && !Array.isArray(attributes) ? attributes : {}) as Rec;
  return Object.fromEntries(Object.entries(all).filter(([key]) => isExtra(key)));
}

export function invoiceBody(r: Rec): Body | null {
  if (typeof r.number === 'string' && r.deleted === true) return { number: r.number, deleted: true };
  if (typeof r.number !== 'string' || typeof r.customer_identifier !== 'string') return null;
  const body: Body = { number: r.number, customer_identifier: r.customer_identifier, ...pick(r, INVOICE_FIELDS) };
  if (typeof r.currency === 'string') body.currency = r.currency.toUpperCase();
  if (typeof r.amount_cents === 'number') {
    body.amount = r.amount_cents;
    body.amount_override = true;
  }
  for (const tax of ['subtotal_tax1', 'subtotal_tax2'] as const) {
    const cents = centsOf(r[tax], r.currency);
    if (cents) body[tax] = cents;
  }
  const shipping = (r.shipping_address ?? {}) as Rec;
  Object.assign(body, pick(shipping, Object.keys(SHIPPING), SHIPPING));
  // What the import does by default is left out, so a service that leaves the field out of its
  // export and one that shows the default give the same body: display_number is the number unless
  // set, auto_debit is Y unless marked N.
  if (body.display_number === body.number) delete body.display_number;
  if (r.auto_debit === false || r.auto_debit === 'N') body.auto_debit = 'N';
  const lines = Array.isArray(r.line_item_attributes) ? (r.line_item_attributes as Rec[]) : [];
  body.replace_line_items = true;
  body.line_item_attributes = lines.map((l) => ({
    ...pick(l, LINE_FIELDS),
    ...(typeof l.amount_cents === 'number' ? { amount: l.amount_cents } : {}),
    ...extrasOf(l.extended_attributes, isLineExtraKey),
  }));
  // Extra attributes stay extra: one named like a field (customer_identifier, amount) would
  // otherwise rewrite that field, past the export's own value.
  Object.assign(body, extrasOf(r.extended_attributes, isInvoiceExtraKey));
  return body;
}

const PAYMENT_FIELDS = ['date', 'customer_identifier', 'customer_name', 'payment_code', 'payment_description', 'external_payment_number', 'payor_name', 'settlement_date', 'external_id'] as const;

/**
 * A payment's record (`GET /api/exports/payments`) as `POST /api/imports/payment` takes it: the
 * total, and what it applied to each invoice, a credit memo's credit it netted included (negative);
 * an allocation a later update removed, or one left at nothing, is left out.
 * A payment taken here by card or bank is an external payment upstream, of that method. A reversed
 * payment (status REVERSAL, ERROR (NSF), ERROR (DECLINED)) is its reference, status and reason only.
 */
export function paymentBody(r: Rec): Body | null {
  if (typeof r.payment_reference === 'string' && isReversal(r.status)) return { identifier: r.payment_reference, status: r.status, ...(typeof r.status_reason === 'string' && r.status_reason ? { status_reason: r.status_reason } : {}) };
  const amount = centsOf(r.payment_amount, r.currency);
  if (typeof r.payment_reference !== 'string' || amount === null) return null;
  const body: Body = { identifier: r.payment_reference, amount_cents: amount, ...pick(r, PAYMENT_FIELDS) };
  if (typeof r.currency === 'string') body.currency = r.currency.toUpperCase();
  const method = r.external_payment_type ?? r.payment_method;
  if (typeof method === 'string' && method) body.external_payment_type = method;
  const allocations = (Array.isArray(r.payment_amounts) ? (r.payment_amounts as Rec[]) : [])
    .filter((a) => a.removed !== true && typeof a.invoice_number === 'string')
    .map((a) => ({ invoice_number: a.invoice_number as string, amount: centsOf(a.amount, r.currency) ?? 0 }))
    // A credit memo's entry is negative (the receipt nets the memo's credit): it is carried, or
    // the other side would read the receipt as applying more than its amount.
    .filter((a) => a.amount !== 0);
  if (allocations.length > 0) body.payment_amounts_attributes = allocations;
  return body;
}

/** Set by each install for itself, or refused by the order import: not carried. */
const ORDER_OWN = new Set(['watermark', 'transactions', 'created_at', 'updated_at', 'settlement_token']);

/**
 * An order's record (`GET /api/exports/orders`) as `POST /api/imports/order` takes it: its fields,
 * items and attributes; not its transactions, and not the settlement token (a processor
 * configuration of this install's, unknown upstream).
 */
export function orderBody(r: Rec): Body | null {
  if (typeof r.identifier !== 'string') return null;
  const body: Body = {};
  for (const [k, v] of Object.entries(r)) if (!ORDER_OWN.has(k) && v !== null && v !== undefined) body[k] = v;
  if (Array.isArray(r.order_items)) body.order_items = (r.order_items as Rec[]).map((item) => pick(item, Object.keys(item)));
  return body;
}

/**
 * An upstream's records reach this install here, not through the HTTP edge that masks card numbers
 * in request bodies (the cloud service masks nothing), and the replication stores the body as the
 * upstream's state: a card number in its free text is masked here, as in a request body. This
 * install's own records are masked already, so both sides still hold the same body.
 */
export function bodyOfRecord(entity: UpstreamEntity, record: Rec): Body | null {
  const body = bodyOfEntity(entity, record);
  return body && maskCardNumbersInFreeText(structuredClone(body));
}

function bodyOfEntity(entity: UpstreamEntity, record: Rec): Body | null {
  switch (entity) {
    case 'customers':
      return customerBody(record);
    case 'invoices':
      return invoiceBody(record);
    case 'payments':
      return paymentBody(record);
    case 'orders':
      return orderBody(record);
  }
}

export function keyOfBody(entity: UpstreamEntity, body: Body): string {
  return String(entity === 'invoices' ? body.number : body.identifier);
}

/** The invoices a payment body applies to: they must exist before it is imported. */
export function invoicesOfPayment(body: Body): string[] {
  const list = (body.payment_amounts_attributes ?? []) as Array<{ invoice_number: string }>;
  return [...new Set(list.map((a) => a.invoice_number))];
}
