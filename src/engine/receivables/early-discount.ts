import type { InvoiceData } from './types';

/**
 * The early-payment discount ("2/10 net 30") a payment made on `date` takes off an invoice, in
 * minor units; 0 when none applies. The ERP sends it with the invoice (discount_amount_cents or
 * discount_rate, and discount_expiry_date); a payer who settles the invoice in full by that date
 * owes the amount less the discount. So it applies only:
 * - with the account's discount configuration on (without it the importer ignores the fields);
 * - up to and including the expiry date, in the shop's zone; a discount without one is not an
 *   early-payment discount and is never taken by itself;
 * - to an invoice nothing has been paid on yet (owing is the whole amount): the discount is the
 *   price of paying all of it early, not of the last part of it, and taken once it has closed the
 *   invoice, so it cannot be taken twice; a reversed payment gives it back;
 * - when it leaves something to pay: a discount as large as the balance is the ERP's to settle.
 */
export function earlyPaymentDiscount(d: InvoiceData, date: string, discountsOn: boolean): number {
  const discount = d.discount_amount_cents ?? 0;
  if (!discountsOn || d.deleted || discount <= 0 || !d.discount_expiry_date) return 0;
  if (date > d.discount_expiry_date) return 0;
  if (d.owing_cents !== d.amount_cents || d.owing_cents <= discount) return 0;
  return discount;
}
