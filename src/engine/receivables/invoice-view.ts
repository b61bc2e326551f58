import type { Static } from '@sinclair/typebox';
import type { CustomerOpenInvoice } from '../../shared/schemas/receivables-customers';
import { countryName } from './countries';
import { formatMoney } from './money';
import type { InvoiceDoc } from './types';

/**
 * The invoice status the reference shows, derived when read (overdue moves with the clock):
 * a deleted invoice is CLOSED; a credit memo is CREDIT while it has credit left, then CLOSED;
 * nothing owing is PAID (CLOSED for a zero invoice); past its due date OVERDUE; partly paid PARTIAL;
 * else CURRENT.
 */
export function invoiceStatusOf([amount, owing, due, deleted]: StatusBasis, today: string): string {
  if (deleted) return 'CLOSED';
  if (amount < 0) return owing < 0 ? 'CREDIT' : 'CLOSED';
  if (owing <= 0) return amount === 0 ? 'CLOSED' : 'PAID';
  if (due < today) return 'OVERDUE';
  if (owing < amount) return 'PARTIAL';
  return 'CURRENT';
}

/** What the status is derived from: [amount, owing, due date (else invoice date), deleted]. */
export type StatusBasis = [number, number, string, 0 | 1];

const n = <T>(v: T | undefined) => (v === undefined ? null : v);

/**
 * The reference's InvoiceResponse (view, exports and the invoice webhook payload), without what
 * changes with no write (status, watermark, deleted): see invoice-codec.ts.
 */
const DATE_KEY = Buffer.from('"date":"');

/**
 * The invoice's `date` read from its stored rendering without parsing it (the back office's date
 * filter passes over thousands of renderings per page and keeps few). Sound because invoiceBody
 * writes `date` before any nested value: every key before it holds a scalar, and a quote inside a
 * string is escaped, so the first `"date":"` in the bytes is the top-level key.
 */
export function viewDate(view: Buffer): string | undefined {
  const at = view.indexOf(DATE_KEY);
  return at < 0 ? undefined : view.toString('latin1', at + DATE_KEY.length, at + DATE_KEY.length + 10);
}

export function invoiceBody(doc: InvoiceDoc, sender: string): Record<string, unknown> {
  const d = doc.data;
  const sh = d.shipping ?? {};
  const line1 = [sh.address_1, sh.address_2].filter(Boolean).join(', ');
  const line2 = [[sh.city, sh.province].filter(Boolean).join(', '), sh.postal_code].filter(Boolean).join(' ');
  return {
    id: d.iid,
    number: d.number,
    display_number: d.display_number,
    customer_identifier: d.customer_identifier,
    currency: d.currency,
    amount_cents: d.amount_cents,
    owing_cents: d.owing_cents,
    subtotal_tax1: formatMoney(d.subtotal_tax1 ?? 0, d.currency),
    subtotal_tax2: formatMoney(d.subtotal_tax2 ?? 0, d.currency),
    date: d.date,
    due_date: n(d.due_date),
    order_date: n(d.order_date),
    purchase_order_number: n(d.purchase_order_number),
    notes_text: n(d.notes_text),
    shipping_name: n(sh.name),
    shipping_address: {
      address_1: n(sh.address_1),
      address_2: n(sh.address_2),
      city: n(sh.city),
      state: n(sh.province),
      country: n(sh.country),
      country_name: sh.country ? (countryName(sh.country) ?? null) : null,
      zip: n(sh.postal_code),
      line_1: line1,
      line_2: line2,
    },
    line_item_attributes: d.line_items.map((l, i) => ({
      number: l.number,
      description: n(l.description),
      quantity: n(l.quantity),
      unit_cost_cents: n(l.unit_cost_cents),
      amount_cents: l.amount_cents,
      balance_cents: l.balance_cents,
      id: i + 1,
      identifier: `${sender}|${d.number}|${l.number}`,
      invoice_id: d.iid,
      purchase_order_number: n(l.purchase_order_number),
      order_key: n(l.order_key),
      recurring_invoice_id: null,
      extended_attributes: l.extra,
    })),
    auto_debit: d.auto_debit,
    division: n(d.division),
    auto_pay_reference: n(d.auto_debit_reference),
    ref1: n(d.ref1),
    ref2: n(d.ref2),
    ref3: n(d.ref3),
    adjustments_attributes: d.adjustments.map((a, i) => ({ label: n(a.label), amount_cents: a.amount_cents, id: i + 1, invoice_id: d.iid, recurring_invoice_id: null })),
    plan_identifier: n(d.plan_identifier),
    plan_start_date: n(d.plan_start_date),
    plan_end_date: n(d.plan_end_date),
    plan_payment_cents: n(d.plan_payment_cents),
    annualized_amount_cents: n(d.annualized_amount_cents),
    annualized_effective_date: n(d.annualized_effective_date),
    annualized_expiry_date: n(d.annualized_expiry_date),
    external_id: n(d.external_id),
    delivery_status: d.suppress_notifications ? 'new' : 'not_sent',
    extended_attributes: d.extra,
    summary_invoice_parent: d.summary_invoice_parent ? '1' : '0',
    summary_invoice_number: n(d.summary_invoice_number),
    service_rep_email: n(d.service_rep_email),
    discount_amount_cents: d.discount_amount_cents ?? 0,
    discount_rate: n(d.discount_rate),
    discount_expiry_date: n(d.discount_expiry_date),
    attachments: d.attachments.map((a) => ({ file_name: a.file_name, invoice_display: a.invoice_display, size: a.size })),
    ...(d.l3 ?? {}),
  };
}

/** A record of a customer's open-invoice export. */
export function openInvoiceItem(doc: InvoiceDoc): Static<typeof CustomerOpenInvoice> {
  const d = doc.data;
  return {
    number: d.number,
    display_number: d.display_number,
    currency: d.currency,
    amount_cents: d.amount_cents,
    owing_cents: d.owing_cents,
    customer_identifier: d.customer_identifier,
    due_date: n(d.due_date),
    watermark: doc.watermark,
  };
}
