import { fail } from '../errors';
import { decimalTimesMinor, formatMoney, minorDigits } from '../../shared/money';
import { countryAlpha3 } from '../receivables/countries';
import { MAX_ORDER_CENTS, type OrderInput } from '../../shared/schemas/orders';
import type { AvsRules, EcommerceAddress, PaymentResponse, SaleRequest } from '../../shared/schemas/ecommerce';

/**
 * A sale on a session, as the order engine and the gateway take it: decimal amounts become integer
 * minor units here (and nowhere else), the camelCase addresses become the order's billing and
 * shipping fields, and the session's AVS rules are read against the sandbox's AVS answer.
 */

export interface SalePayment {
  key: string;
  transaction: string;
  token: string;
  type: string;
  requested_cents: number;
  amount_cents: number;
  approved: boolean;
  response: PaymentResponse;
}

export interface SaleData {
  id: string;
  session: string;
  order_number: string;
  currency: string;
  total_cents: number;
  finalized: boolean;
  /** What the AVS check reads later (payments added to the sale): street line and postal code only. */
  billing: { street: string | null; postal: string | null };
  fingerprint: string;
  payments: SalePayment[];
  created_at: string;
  updated_at: string;
}

/** A decimal amount in `currency` as integer minor units; more decimals than the currency has is refused. */
export function toMinor(value: number, currency: string, path: string): number {
  const digits = minorDigits(currency);
  const scaled = value * 10 ** digits;
  const minor = Math.round(scaled);
  if (Math.abs(scaled - minor) > 1e-6) throw fail.invalid('too_many_decimals', `${path} has more decimals than ${currency} has (${digits})`, [{ field: path, message: `${path} has more decimals than ${currency} has (${digits})` }]);
  return minor;
}

/**
 * A line's amount or the sale's total as the order will hold it: a safe whole number of minor units
 * within what an order holds (MAX_ORDER_CENTS either way), else the sale is refused. Prices and
 * quantities each within their schema's bounds still multiply past it (999,999,999 x 1,000,000 is
 * 10^17 cents), which the order stored as no amount at all and then took payments against.
 */
function withinOrderLimit(minor: number, currency: string, path: string, what: string): number {
  if (Number.isSafeInteger(minor) && Math.abs(minor) <= MAX_ORDER_CENTS) return minor;
  const message = `${what} is more than an order holds: at most ${formatMoney(MAX_ORDER_CENTS, currency)} (${MAX_ORDER_CENTS} minor units) either way`;
  throw fail.invalid('invalid_amount', message, [{ field: path, message }]);
}

export const toDecimal = (minor: number, currency: string): number => minor / 10 ** minorDigits(currency);

const name = (a: EcommerceAddress) => [a.contactFirstName, a.contactLastName].filter(Boolean).join(' ') || a.companyName || null;

function addressFields(prefix: 'billing' | 'shipping', a: EcommerceAddress): Record<string, string | null> {
  return {
    [`${prefix}_name`]: name(a),
    [`${prefix}_address`]: a.address1 ?? null,
    [`${prefix}_address2`]: a.address2 ?? null,
    [`${prefix}_city`]: a.city ?? null,
    [`${prefix}_state_province`]: a.stateOrProvince ?? null,
    [`${prefix}_postalcode`]: a.postCode ?? null,
    // The order's country is 3-letter ISO (the spec's Order); the frame's address sends 2 letters.
    [`${prefix}_country`]: a.country ? (countryAlpha3(a.country) ?? a.country) : null,
    [`${prefix}_telephone`]: a.phone ?? null,
    [`${prefix}_email`]: a.email ?? null,
  };
}

/** The order the sale creates (a draft until finalized) and its total in minor units. */
export function orderOf(identifier: string, sale: SaleRequest, date: string): { input: OrderInput; total: number } {
  const cur = sale.currency;
  let total = 0;
  const items = sale.lines.map((line, i) => {
    const unit = toMinor(line.price, cur, `/lines/${i}/price`);
    const discount = line.discount !== undefined ? toMinor(line.discount, cur, `/lines/${i}/discount`) : 0;
    const amount = withinOrderLimit(decimalTimesMinor(line.quantity, unit) - discount, cur, `/lines/${i}`, `Line ${i + 1} (price x quantity less its discount)`);
    total += amount;
    return {
      number: line.number,
      description: line.description,
      quantity: line.quantity,
      unit_cost_cents: unit,
      amount_cents: amount,
      ...(discount ? { discount_amount_cents: discount } : {}),
      ...(line.l3TaxAmount !== undefined ? { L3_tax_amount: String(line.l3TaxAmount) } : {}),
      ...(line.l3CommodityCode ? { L3_commodity_code: line.l3CommodityCode } : {}),
      ...(line.l3UnitOfMeasure ? { L3_unit_of_measure: line.l3UnitOfMeasure } : {}),
      ...(line.l3ProductCode ? { L3_product_code: line.l3ProductCode } : {}),
      ...(line.l3DiscountAmount !== undefined ? { L3_discount_amount: String(line.l3DiscountAmount) } : {}),
      ...(line.type ? { category: line.type } : {}),
      ...(line.lineAttributes ? { attributes: line.lineAttributes } : {}),
    };
  });
  const extra = (v: number | undefined, path: string) => (v !== undefined ? toMinor(v, cur, path) : 0);
  total += extra(sale.shippingAmount, '/shippingAmount') + extra(sale.taxAmount, '/taxAmount') - extra(sale.discountAmount, '/discountAmount');
  if (total < 0) throw fail.invalid('negative_total', 'The lines, shipping and tax less the discount come to less than zero', [{ field: '/lines', message: 'The order total is negative' }]);
  withinOrderLimit(total, cur, '/lines', 'The sale (its lines, shipping and tax less the discount)');
  const attributes: Record<string, string | number | boolean> = { ...(sale.orderAttributes ?? {}) };
  const named: Array<[string, string | undefined]> = [
    ['purchase_order_number', sale.purchaseOrderNumber],
    ['shipping_agent_number', sale.shippingAgentNumber],
    ['shipping_agent_service_number', sale.shippingAgentServiceNumber],
    ['shipping_agent_description', sale.shippingAgentDescription],
    ['shipping_agent_service_description', sale.shippingAgentServiceDescription],
  ];
  for (const [k, v] of named) if (v) attributes[k] = v;
  if (sale.shippingAmount !== undefined) attributes.shipping_amount = sale.shippingAmount;
  if (sale.taxAmount !== undefined) attributes.tax_amount = sale.taxAmount;
  if (sale.discountAmount !== undefined) attributes.discount_amount = sale.discountAmount;
  attributes.channel = 'ecommerce';
  const input = {
    identifier,
    number: sale.orderNumber,
    // The shop's day of the sale, as an order the ERP imports carries its date.
    date,
    currency: cur.toLowerCase(),
    amount_cents: total,
    draft: true,
    ...(sale.customerNumber ? { customer_identifier: sale.customerNumber } : {}),
    ...addressFields('billing', sale.billingAddress),
    ...addressFields('shipping', sale.shippingAddress),
    ...(sale.l3PoNumber ? { L3_po_number: sale.l3PoNumber } : {}),
    ...(sale.l3Tax !== undefined ? { L3_tax: String(sale.l3Tax) } : {}),
    ...(sale.l3Duty !== undefined ? { L3_duty: String(sale.l3Duty) } : {}),
    ...(sale.l3Shipping !== undefined ? { L3_shipping: String(sale.l3Shipping) } : {}),
    ...(sale.l3ShipFromZip ? { L3_ship_from_zip: sale.l3ShipFromZip } : {}),
    ...(sale.l3ShipFromCountry ? { L3_ship_from_country: sale.l3ShipFromCountry } : {}),
    attributes,
    order_items: items,
  } as OrderInput;
  return { input, total };
}

const ADDRESS_MISMATCH = new Set(['N', 'W', 'Z']);
const POSTCODE_MISMATCH = new Set(['N', 'A']);
const AVS_UNKNOWN = new Set(['U', 'R', 'S', 'G', 'I', 'E', 'P', 'B']);

/** Why the session's AVS rules refuse this AVS answer, or null when they let it through. */
export function avsRefusal(rules: AvsRules | undefined, avs: string | null): string | null {
  if (!rules) return null;
  if (rules.rejectAddressMismatch && avs !== null && ADDRESS_MISMATCH.has(avs)) return `the billing street does not match the card's (AVS ${avs})`;
  if (rules.rejectPostCodeMismatch && avs !== null && POSTCODE_MISMATCH.has(avs)) return `the billing postal code does not match the card's (AVS ${avs})`;
  if (rules.rejectUnknown && (avs === null || AVS_UNKNOWN.has(avs))) return `the billing address could not be checked (AVS ${avs ?? 'none'})`;
  return null;
}
