import { isDeepStrictEqual } from 'node:util';
import type { StoredDoc } from '../../store/schema';
import { fail } from '../errors';
import { freeFormProblem } from '../free-form';
import { maskFreeFormCardData } from '../security/card-data';
import { isCurrency } from '../receivables/money';
import { ORDER_READ_ONLY_FIELDS, type OrderInput, type OrderItemInput } from '../../shared/schemas/orders';

/** An order as stored. Extended attributes sent as top-level keys (`order_att1`) live in `extra`. */
export type Scalar = string | number | boolean | null;

export interface OrderItem {
  number: string | null;
  description: string | null;
  quantity: number | null;
  unit_cost_cents: number | null;
  amount_cents: number | null;
  tax_amount_cents: number | null;
  discount_amount_cents: number | null;
  product_code: string | null;
  category: string | null;
  attributes: Record<string, Scalar> | null;
  L3: Record<string, string | null>;
  extra: Record<string, Scalar>;
}

export const ORDER_TEXT_FIELDS = [
  'number',
  'date',
  'billing_name',
  'billing_address',
  'billing_address2',
  'billing_city',
  'billing_country',
  'billing_email',
  'billing_telephone',
  'billing_postalcode',
  'billing_state_province',
  'shipping_name',
  'shipping_address',
  'shipping_address2',
  'shipping_city',
  'shipping_country',
  'shipping_email',
  'shipping_telephone',
  'shipping_postalcode',
  'shipping_state_province',
  'customer_identifier',
  'settlement_token',
  'L3_po_number',
  'L3_tax',
  'L3_duty',
  'L3_shipping',
  'L3_ship_from_zip',
  'L3_ship_from_country',
] as const;
type TextField = (typeof ORDER_TEXT_FIELDS)[number];

const ITEM_L3 = ['L3_commodity_code', 'L3_unit_of_measure', 'L3_discount_amount', 'L3_tax_amount', 'L3_product_code'] as const;
const ITEM_KNOWN = new Set<string>([
  'number',
  'description',
  'quantity',
  'unit_cost_cents',
  'amount_cents',
  'tax_amount_cents',
  'discount_amount_cents',
  'product_code',
  'category',
  'attributes',
  ...ITEM_L3,
]);
// The read-only keys of an order's view (watermark, transactions...) are known so that an order read
// and sent back has them ignored, never stored as extended attributes.
const ORDER_KNOWN = new Set<string>([...ORDER_TEXT_FIELDS, ...ORDER_READ_ONLY_FIELDS, 'identifier', 'currency', 'amount_cents', 'draft', 'attributes', 'order_items']);

export interface OrderData extends Record<TextField, string | null> {
  identifier: string;
  currency: string | null;
  amount_cents: number | null;
  draft: boolean;
  attributes: Record<string, Scalar> | null;
  order_items: OrderItem[];
  extra: Record<string, Scalar>;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

export interface OrderRow {
  id: string;
  published: boolean;
  data: OrderData;
}

export interface OrderDoc extends StoredDoc, OrderRow {}

export const ORDERS = 'orders';

const NULL_TEXT = Object.freeze(Object.fromEntries(ORDER_TEXT_FIELDS.map((f) => [f, null]))) as Readonly<Record<TextField, null>>;

/** The stored form: text fields that are null are left out (most of them, for a web order). */
export function orderDoc(data: OrderData): OrderRow {
  const stored: Partial<OrderData> = { ...data };
  for (const f of ORDER_TEXT_FIELDS) if (stored[f] === null) delete stored[f];
  return { id: data.identifier, published: !data.draft, data: stored as OrderData };
}

/** A stored order with its absent text fields back as null. */
export function hydrateOrder<T extends OrderRow | undefined>(doc: T): T {
  return (doc ? { ...doc, data: { ...NULL_TEXT, ...doc.data } } : doc) as T;
}

/** Cents sent as an integer or a digit string. */
export function cents(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function toItem(input: OrderItemInput): OrderItem {
  const extra: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(input)) if (!ITEM_KNOWN.has(k)) extra[k] = v as Scalar;
  const free = maskFreeFormCardData({ extra, attributes: input.attributes ?? null });
  const L3: Record<string, string | null> = {};
  // null is "not sent", as the view answers an L3 field the import did not give: a GET's body sent back is the same order.
  for (const k of ITEM_L3) if (input[k] !== undefined && input[k] !== null) L3[k] = input[k];
  const quantity = input.quantity === null || input.quantity === undefined ? null : Number(input.quantity);
  return {
    number: text(input.number),
    description: input.description ?? null,
    quantity: quantity !== null && Number.isFinite(quantity) ? quantity : null,
    unit_cost_cents: cents(input.unit_cost_cents),
    amount_cents: cents(input.amount_cents),
    tax_amount_cents: cents(input.tax_amount_cents),
    discount_amount_cents: cents(input.discount_amount_cents),
    product_code: input.product_code ?? null,
    category: input.category ?? null,
    attributes: free.attributes,
    L3,
    extra: free.extra,
  };
}

/** Refuses free-form values past their bounds, before anything is written (read-only keys are not looked at). */
export function checkImportable(input: Record<string, unknown>): void {
  const unnamed = (record: Record<string, unknown>, known: ReadonlySet<string>) => Object.fromEntries(Object.entries(record).filter(([k]) => !known.has(k)));
  const records: Array<[string, Record<string, unknown>]> = [['', unnamed(input, ORDER_KNOWN)]];
  if (Array.isArray(input.order_items)) {
    input.order_items.forEach((item: unknown, i) => {
      if (item && typeof item === 'object') records.push([`order_items.${i}.`, unnamed(item as Record<string, unknown>, ITEM_KNOWN)]);
    });
  }
  for (const [prefix, values] of records) {
    const problem = freeFormProblem(values);
    if (problem) throw fail.precondition(problem.code, `${prefix}${problem.field} ${problem.message}`, [{ field: `${prefix}${problem.field}`, code: problem.code, message: `${prefix}${problem.field} ${problem.message}` }]);
  }
  // The schema takes any three letters; an order's money is in a real currency, as an invoice's is.
  if (typeof input.currency === 'string' && input.currency && !isCurrency(input.currency)) {
    const message = 'currency must be an ISO 4217 currency code';
    throw fail.precondition('invalid_currency', message, [{ field: 'currency', code: 'invalid_currency', message }]);
  }
}

/**
 * The order after applying `input` to `existing` (or a new one). Fields present in the input
 * replace stored ones (null clears); absent fields keep their value; `order_items`, when present,
 * replaces the whole list; extended attributes merge by key.
 */
export function applyOrderInput(existing: OrderData | undefined, input: OrderInput, identifier: string, at: string): OrderData {
  const base: OrderData =
    existing ??
    ({
      identifier,
      currency: null,
      amount_cents: null,
      draft: false,
      attributes: null,
      order_items: [],
      extra: {},
      created_at: at,
      updated_at: at,
      published_at: null,
      ...NULL_TEXT,
    } as unknown as OrderData);
  const next: OrderData = { ...base, extra: { ...base.extra } };
  const record = input as Record<string, unknown>;
  for (const f of ORDER_TEXT_FIELDS) {
    if (record[f] !== undefined) next[f] = text(record[f]);
  }
  for (const f of ['billing_country', 'shipping_country', 'L3_ship_from_country'] as const) {
    if (next[f]) next[f] = next[f].toUpperCase();
  }
  if (input.currency !== undefined) next.currency = input.currency ? input.currency.toLowerCase() : null;
  if (input.amount_cents !== undefined) next.amount_cents = cents(input.amount_cents);
  if (input.draft !== undefined) next.draft = input.draft;
  // Free-form: card data in them is masked whatever its key (checkImportable bounded their depth).
  if (input.attributes !== undefined) next.attributes = maskFreeFormCardData(input.attributes ?? null);
  if (input.order_items !== undefined) next.order_items = (input.order_items ?? []).map(toItem);
  for (const [k, v] of Object.entries(record)) {
    if (!ORDER_KNOWN.has(k)) next.extra[k] = maskFreeFormCardData({ [k]: v })[k] as Scalar;
  }
  if (!next.draft && !next.published_at) next.published_at = at;
  return next;
}

/** Same content, ignoring timestamps: a retried create is recognised and answered, not refused. */
export function sameOrder(a: OrderData, b: OrderData): boolean {
  // An item's L3 field stored as null (sent as null before null was taken as not sent) is the same as none.
  const items = (o: OrderData) => o.order_items.map((i) => ({ ...i, L3: Object.fromEntries(Object.entries(i.L3).filter(([, v]) => v !== null)) }));
  const strip = (o: OrderData) => ({ ...o, order_items: items(o), created_at: '', updated_at: '', published_at: '' });
  return isDeepStrictEqual(strip(a), strip(b));
}

/** The value of an extended attribute: from `attributes`, else a top-level extra key. */
export function extendedAttribute(o: OrderData, key: string): Scalar | undefined {
  if (o.attributes && key in o.attributes) return o.attributes[key];
  if (key in o.extra) return o.extra[key];
  return undefined;
}

export function itemView(item: OrderItem): Record<string, unknown> {
  return {
    number: item.number,
    description: item.description,
    quantity: item.quantity,
    unit_cost_cents: item.unit_cost_cents,
    amount_cents: item.amount_cents,
    tax_amount_cents: item.tax_amount_cents,
    discount_amount_cents: item.discount_amount_cents,
    product_code: item.product_code,
    category: item.category,
    attributes: item.attributes,
    // Every L3 key of the line, as the order's L3 fields are: null when the import did not send it.
    ...Object.fromEntries(ITEM_L3.map((k) => [k, item.L3[k] ?? null])),
    ...item.extra,
  };
}
