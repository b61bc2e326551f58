import { invoiceBody, invoiceStatusOf, type StatusBasis } from './invoice-view';
import type { JsonParts } from './exports';
import type { AttachmentSummary, InvoiceData, InvoiceDoc, InvoiceKeys, LineItemData } from './types';

/**
 * How an invoice rests in the store. Besides its indexed fields it keeps its export rendering as
 * JSON text (`view`: everything but what changes without a write, i.e. status, watermark and
 * deleted) and the few fields the rendering does not show (`p`). Exports splice status and
 * watermark into `view` and send it as it is, so a page of 2,500 invoices costs no object parsing
 * or serialising of invoices; writes and single reads decode the record from view + p. Keeping
 * one copy of each field also keeps rows small, which is what a page read costs.
 */
export interface InvoiceRow extends InvoiceKeys {
  data: { view: string; p: Private; updated_ms: number; st: StatusBasis };
}

/** What the rendering does not carry (or carries formatted). */
interface Private {
  applied: number;
  tax1?: number;
  tax2?: number;
  discount?: number;
  pay: string;
  att: Array<[string, string]>;
  created: string;
  updated: string;
  deleted?: 1;
}

type View = Record<string, unknown> & {
  shipping_address: Record<string, string | null>;
  line_item_attributes: Array<Record<string, unknown>>;
  adjustments_attributes: Array<{ label: string | null; amount_cents: number }>;
  attachments: Array<{ file_name: string; invoice_display: boolean; size: number }>;
  extended_attributes: Record<string, unknown>;
};

const OPTIONAL = [
  'due_date', 'order_date', 'purchase_order_number', 'notes_text', 'division', 'ref1', 'ref2', 'ref3', 'plan_identifier',
  'plan_start_date', 'plan_end_date', 'plan_payment_cents', 'annualized_amount_cents', 'annualized_effective_date',
  'annualized_expiry_date', 'external_id', 'summary_invoice_number', 'service_rep_email', 'discount_rate', 'discount_expiry_date',
] as const;

export function encodeInvoice(doc: InvoiceDoc, sender: string): InvoiceRow {
  const d = doc.data;
  const p: Private = {
    applied: d.applied_cents,
    pay: d.pay_token,
    att: d.attachments.map((a) => [a.sha256, a.added_at]),
    created: d.created_at,
    updated: d.updated_at,
    ...(d.subtotal_tax1 !== undefined ? { tax1: d.subtotal_tax1 } : {}),
    ...(d.subtotal_tax2 !== undefined ? { tax2: d.subtotal_tax2 } : {}),
    ...(d.discount_amount_cents !== undefined ? { discount: d.discount_amount_cents } : {}),
    ...(d.deleted ? { deleted: 1 as const } : {}),
  };
  return {
    id: doc.id,
    watermark: doc.watermark,
    display_number: d.display_number,
    customer: doc.customer,
    feed: d.deleted ? 'deleted' : d.owing_cents !== 0 ? 'open' : 'closed',
    division: d.division ?? '',
    data: { view: JSON.stringify(invoiceBody(doc, sender)), p, updated_ms: d.updated_ms, st: [d.amount_cents, d.owing_cents, d.due_date ?? d.date, d.deleted ? 1 : 0] },
  };
}

export function decodeInvoice(row: InvoiceRow): InvoiceDoc {
  const v = JSON.parse(row.data.view) as View;
  const p = row.data.p;
  const sh = v.shipping_address;
  const shipping: NonNullable<InvoiceData['shipping']> = {};
  const ship = (k: keyof typeof shipping, value: unknown) => {
    if (typeof value === 'string') shipping[k] = value;
  };
  ship('name', v.shipping_name);
  ship('address_1', sh.address_1);
  ship('address_2', sh.address_2);
  ship('city', sh.city);
  ship('province', sh.state);
  ship('postal_code', sh.zip);
  ship('country', sh.country);
  const l3: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) if (k.startsWith('L3_') && typeof value === 'string') l3[k] = value;
  const data: InvoiceData = {
    number: v.number as string,
    display_number: v.display_number as string,
    iid: v.id as number,
    customer_identifier: v.customer_identifier as string,
    currency: v.currency as string,
    amount_cents: v.amount_cents as number,
    owing_cents: v.owing_cents as number,
    applied_cents: p.applied,
    date: v.date as string,
    line_items: v.line_item_attributes.map((l) => {
      const line: LineItemData = { number: l.number as string, amount_cents: l.amount_cents as number, balance_cents: l.balance_cents as number, extra: l.extended_attributes as Record<string, unknown> };
      for (const k of ['description', 'order_key', 'purchase_order_number', 'quantity', 'unit_cost_cents'] as const) {
        if (l[k] !== null && l[k] !== undefined) (line as unknown as Record<string, unknown>)[k] = l[k];
      }
      return line;
    }),
    adjustments: v.adjustments_attributes.map((a) => ({ ...(a.label !== null ? { label: a.label } : {}), amount_cents: a.amount_cents })),
    auto_debit: v.auto_debit as boolean,
    summary_invoice_parent: v.summary_invoice_parent === '1',
    suppress_notifications: v.delivery_status === 'new',
    deleted: p.deleted === 1,
    attachments: v.attachments.map((a, i): AttachmentSummary => ({ ...a, sha256: p.att[i]?.[0] ?? '', added_at: p.att[i]?.[1] ?? '' })),
    pay_token: p.pay,
    extra: v.extended_attributes,
    created_at: p.created,
    updated_at: p.updated,
    updated_ms: row.data.updated_ms,
  };
  for (const k of OPTIONAL) if (v[k] !== null && v[k] !== undefined) (data as unknown as Record<string, unknown>)[k] = v[k];
  if (typeof v.auto_pay_reference === 'string') data.auto_debit_reference = v.auto_pay_reference;
  if (p.tax1 !== undefined) data.subtotal_tax1 = p.tax1;
  if (p.tax2 !== undefined) data.subtotal_tax2 = p.tax2;
  if (p.discount !== undefined) data.discount_amount_cents = p.discount;
  if (Object.keys(shipping).length) data.shipping = shipping;
  if (Object.keys(l3).length) data.l3 = l3;
  return { id: row.id, watermark: row.watermark, display_number: row.display_number, customer: row.customer, feed: row.feed, division: row.division, iid: data.iid, data };
}

/** What an export adds in front of the stored rendering: the fields that change without a write. */
function exportHead(row: { watermark: number; st: StatusBasis }, today: string, includeDeleted: boolean): string {
  return `{"status":"${invoiceStatusOf(row.st, today)}","watermark":${row.watermark}${includeDeleted ? `,"deleted":${row.st[3] === 1}` : ''},`;
}

/** The export JSON of one stored invoice as of `today`. */
export function invoiceJson(row: InvoiceRow, today: string, includeDeleted: boolean): string {
  return exportHead({ watermark: row.watermark, st: row.data.st }, today, includeDeleted) + row.data.view.slice(1);
}

/** The values of INVOICE_EXPORT_FIELDS (invoice-layout.ts) for one invoice. */
export type InvoiceFields = [watermark: number, feed: InvoiceRow['feed'], updatedMs: number | null, st: StatusBasis];

/**
 * invoiceJson for a page of exports, from the rendering's stored bytes: the same JSON, as a head
 * and the bytes after the rendering's opening brace.
 */
export function invoiceJsonParts(row: { watermark: number; st: StatusBasis }, view: Buffer | null, today: string, includeDeleted: boolean): JsonParts {
  if (!view || view[0] !== 0x7b) throw new Error(`invoice at watermark ${row.watermark} has no stored rendering`);
  return { head: exportHead(row, today, includeDeleted), rest: view.subarray(1) };
}
