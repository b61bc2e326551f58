import { countryName } from './countries';
import { earlyPaymentDiscount } from './early-discount';
import type { CustomerData, InvoiceDoc } from './types';

/**
 * An invoice as its printed copy shows it (the PDF a reminder attaches and the back office opens):
 * amounts in minor units as stored, the customer as on file, and the sums the engine's rules make
 * (what was applied, the early-payment discount still open). The renderer formats; it decides nothing.
 */
export interface InvoiceDocument {
  number: string;
  display_number: string;
  /** ISO 4217, upper case. */
  currency: string;
  /** The customer's locale (its language, and its country when known, `fr-CA`), for amounts; undefined: the currency's home format. */
  locale: string | undefined;
  date: string;
  due_date: string | null;
  order_date: string | null;
  purchase_order_number: string | null;
  customer: { identifier: string; name: string; address: string[] };
  ship_to: { name: string | null; address: string[] } | null;
  lines: Array<{ number: string; description: string | null; purchase_order_number: string | null; quantity: number | null; unit_cost_cents: number | null; amount_cents: number }>;
  /** The lines' amounts added up; null for an invoice without lines (its amount was sent whole). */
  subtotal_cents: number | null;
  taxes: Array<{ label: string; amount_cents: number }>;
  /** Shown beside the total, not added to it (the reference's adjustments: README, invoice amount precedence). */
  adjustments: Array<{ label: string | null; amount_cents: number }>;
  /** The invoice's amount: line items and taxes, or the amount the ERP set (override, pro-rating). */
  total_cents: number;
  /** Payments, credits and discounts taken, applied so far. */
  paid_cents: number;
  owing_cents: number;
  /** The early-payment discount a payment in full takes today, and the last day it does. */
  early_discount: { amount_cents: number; pay_by: string } | null;
  notes: string | null;
  deleted: boolean;
}

/** Postal lines of an address as the customer and account records hold one: street lines, "City, PROV POSTAL", the country's name. */
export function addressLines(a: { address_1?: string | null | undefined; address_2?: string | null | undefined; city?: string | null | undefined; province?: string | null | undefined; postal_code?: string | null | undefined; country?: string | null | undefined }): string[] {
  const cityLine = [[a.city, a.province].filter(Boolean).join(', '), a.postal_code].filter(Boolean).join(' ');
  const country = a.country ? (countryName(a.country) ?? a.country) : undefined;
  return [a.address_1, a.address_2, cityLine, country].filter((l): l is string => Boolean(l && l.trim()));
}

/** The customer's language with its country (`fr` + `CA`), as Intl knows it; undefined when the customer has no language on file. */
export function customerLocale(customer: Pick<CustomerData, 'locale' | 'country'> | undefined): string | undefined {
  if (!customer?.locale) return undefined;
  for (const tag of [customer.country ? `${customer.locale}-${customer.country.toUpperCase()}` : undefined, customer.locale]) {
    if (tag && Intl.NumberFormat.supportedLocalesOf(tag).length > 0) return tag;
  }
  return undefined;
}

export function invoiceDocument(doc: InvoiceDoc, customer: CustomerData | undefined, rules: { today: string; discountsOn: boolean }): InvoiceDocument {
  const d = doc.data;
  const sh = d.shipping ?? {};
  const shipAddress = addressLines(sh);
  const lines = d.line_items.map((l) => ({
    number: l.number,
    description: l.description ?? null,
    purchase_order_number: l.purchase_order_number ?? null,
    quantity: l.quantity ?? null,
    unit_cost_cents: l.unit_cost_cents ?? null,
    amount_cents: l.amount_cents,
  }));
  const tax1 = d.subtotal_tax1 ?? 0;
  const tax2 = d.subtotal_tax2 ?? 0;
  // Both taxes when the ERP sent two; else one "Tax" line (zero on an invoice of lines, none on an amount sent whole).
  const taxes =
    tax1 !== 0 && tax2 !== 0 ? [{ label: 'Tax 1', amount_cents: tax1 }, { label: 'Tax 2', amount_cents: tax2 }]
    : tax1 + tax2 !== 0 || lines.length > 0 ? [{ label: 'Tax', amount_cents: tax1 + tax2 }]
    : [];
  const discount = earlyPaymentDiscount(d, rules.today, rules.discountsOn);
  return {
    number: d.number,
    display_number: d.display_number || d.number,
    currency: d.currency.toUpperCase(),
    locale: customerLocale(customer),
    date: d.date,
    due_date: d.due_date ?? null,
    order_date: d.order_date ?? null,
    purchase_order_number: d.purchase_order_number ?? null,
    customer: { identifier: d.customer_identifier, name: customer?.name ?? d.customer_identifier, address: customer ? addressLines(customer) : [] },
    ship_to: sh.name || shipAddress.length > 0 ? { name: sh.name ?? null, address: shipAddress } : null,
    lines,
    subtotal_cents: lines.length > 0 ? lines.reduce((s, l) => s + l.amount_cents, 0) : null,
    taxes,
    adjustments: d.adjustments.map((a) => ({ label: a.label ?? null, amount_cents: a.amount_cents })),
    total_cents: d.amount_cents,
    paid_cents: d.applied_cents,
    owing_cents: d.deleted ? 0 : d.owing_cents,
    early_discount: discount > 0 && d.discount_expiry_date ? { amount_cents: discount, pay_by: d.discount_expiry_date } : null,
    notes: d.notes_text ?? null,
    deleted: d.deleted,
  };
}
