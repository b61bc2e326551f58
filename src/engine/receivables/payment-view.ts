import type { Static } from '@sinclair/typebox';
import type { PaymentView } from '../../shared/schemas/receivables-payments';
import { decimal } from './money';
import type { AllocationData, PaymentAmountRecord, PaymentData, PaymentDoc } from './types';

const n = <T>(v: T | undefined) => (v === undefined ? null : v);

/** The reference's FX fields: Laneway converts no currency, so a payment and its amounts have none. */
export const NO_FX = { fx_rate: null, fx_amount: null, fx_amount_cents: null } as const;

/** Where a payment stands and came from: the same fields, in the same order, in both views. */
const outcomeFields = (p: PaymentData) => ({
  status: p.status,
  status_reason: p.status_reason ?? '',
  payment_source: p.source.toUpperCase(),
  payment_code: n(p.payment_code),
  payment_description: n(p.payment_description),
  gateway_authorization_code: n(p.gateway_authorization_code),
});

/**
 * One allocation as the reference's PaymentAmount: payment fields beside the invoice it paid,
 * amounts as plain decimals ("10.00"). Built when the allocation is written, so the allocation
 * export serves stored records as they are.
 */
export function paymentAmountView(p: PaymentData, a: AllocationData, opts: { lineShortPay: boolean; sender: string }): PaymentAmountRecord {
  const c = p.currency;
  const cumulative = p.allocations
    .filter((x) => x.invoice.customer_identifier === a.invoice.customer_identifier)
    .reduce((sum, x) => sum + x.amount_cents, 0);
  return {
    payment_reference: p.reference,
    checkout_token: null,
    invoice_number: a.invoice.display_number || a.invoice_number,
    date: p.date,
    amount: decimal(a.amount_cents, c),
    plan_fee: decimal(0, c),
    payment_amount: decimal(p.amount_cents, c),
    payment_transaction_amount: decimal(p.amount_cents + p.fee_cents, c),
    payment_transaction_token: p.token,
    payment_method: n(p.payment_method),
    payment_from_bank_account: p.payor_bank_account_last4 !== undefined || /ach|eft|bank|cheque|check/i.test(p.external_payment_type ?? ''),
    payment_from_credit_card: /card/i.test(p.external_payment_type ?? '') || /visa|master|amex|discover|card/i.test(p.payment_method ?? ''),
    payment_institution_name: null,
    payment_credit_card_brand: null,
    settlement_token: n(p.settlement_token),
    short_pay_indicator: a.short_pay ? 'Y' : 'N',
    payment_note: n(a.note),
    auto_debit_indicator: p.auto_debit ? 'Y' : 'N',
    invoice_balance: decimal(a.invoice_balance_cents, c),
    payment_timestamp: p.timestamp,
    invoice_division: n(a.invoice.division),
    invoice_division_number: n(a.invoice.division_number),
    invoice_division_name: n(a.invoice.division_name),
    pay_to_bank_account: null,
    pay_to_bank_account_name: null,
    customer_identifier: a.invoice.customer_identifier,
    customer_name: p.customer_name,
    ...outcomeFields(p),
    purchase_order_number: n(a.purchase_order_number),
    ref1: n(a.ref1),
    ref2: n(a.ref2),
    ref3: n(a.ref3),
    short_pay_reason_identifier: n(a.short_pay_reason_identifier),
    short_pay_reason: null,
    dispute_reason_identifier: a.reason_type === 'dispute' ? n(a.short_pay_reason_identifier) : null,
    dispute_reason: null,
    reason_type: n(a.reason_type),
    invoice_amount_paid: decimal(a.invoice.amount_paid_cents, c),
    invoice_amount: decimal(a.invoice.amount_cents, c),
    invoice_identifier: `${opts.sender}|${a.invoice_number}`,
    invoice_date: a.invoice.date,
    invoice_external_id: n(a.invoice.external_id),
    invoice_currency: a.invoice.currency,
    invoice_purchase_order_number: n(a.invoice.purchase_order_number),
    invoice_ref1: n(a.invoice.ref1),
    invoice_ref2: n(a.invoice.ref2),
    invoice_ref3: n(a.invoice.ref3),
    cumulative_customer_amount: decimal(cumulative, c),
    display_identifier: p.display_identifier ?? p.reference,
    discount_amount: decimal(a.discount_cents, c),
    line_number: n(a.line_number),
    remit: a.remit ?? null,
    external_payment_type: n(p.external_payment_type),
    external_payment_number: n(p.external_payment_number),
    ...NO_FX,
    ...(opts.lineShortPay ? { line_item_transactional_amounts: lineAmountsView(a, c) } : {}),
    batch_number: null,
    batch_amount: '',
    invoice_display_number: a.invoice.display_number,
    invoice_internal_number: a.invoice_number,
  };
}

/** What an allocation paid on each line item of its invoice (line-item short pay). */
function lineAmountsView(a: AllocationData, c: string) {
  return a.lines.map((l) => ({
    line_item_number: l.line_item_number,
    line_item_payment_amount: decimal(l.amount_cents, c),
    line_item_balance: decimal(l.balance_cents, c),
    line_item_short_pay_indicator: l.balance_cents > 0 ? 'Y' : 'N',
    line_item_payment_note: n(a.note),
    line_item_short_pay_reason_identifier: n(a.short_pay_reason_identifier),
    line_item_short_pay_reason: null,
    line_item_dispute_reason_identifier: null,
    line_item_dispute_reason: null,
  }));
}

/** GET /api/exports/payment/{reference_or_token}, the payment exports and the payment webhook. */
export function paymentView(doc: PaymentDoc, opts: { tree: boolean; lineShortPay: boolean; sender: string }): Static<typeof PaymentView> {
  const p = doc.data;
  const c = p.currency;
  const takenOff = p.taken_off ?? [];
  return {
    payment_reference: p.reference,
    date: p.date,
    currency: c,
    payment_amount: decimal(p.amount_cents, c),
    received_amount: decimal(p.amount_cents + takenOff.reduce((sum, t) => sum + t.amount_cents, 0), c),
    refunds: takenOff.map((t) => ({
      kind: t.kind,
      date: t.date,
      timestamp: t.at,
      amount: decimal(t.amount_cents, c),
      transaction_token: t.transaction_token,
      sale_transaction_token: t.sale_token,
      reason: t.reason,
    })),
    payment_transaction_amount: decimal(p.amount_cents + p.fee_cents, c),
    unapplied_amount: decimal(p.unapplied_cents, c),
    payment_method: n(p.payment_method),
    auto_debit_indicator: p.auto_debit ? 'Y' : 'N',
    payment_timestamp: p.timestamp,
    payment_transaction_token: p.token,
    customer_identifier: p.customer_identifier,
    customer_name: p.customer_name,
    ...outcomeFields(p),
    pay_to_bank_account: null,
    pay_to_bank_account_name: null,
    display_identifier: p.display_identifier ?? p.reference,
    external_payment_type: n(p.external_payment_type),
    external_payment_number: n(p.external_payment_number),
    payor_name: n(p.payor_name),
    payor_bank_branch_number: n(p.payor_bank_branch_number),
    payor_bank_account_number: p.payor_bank_account_last4 ? `****${p.payor_bank_account_last4}` : null,
    settlement_date: n(p.settlement_date),
    external_id: n(p.external_id),
    ...NO_FX,
    payment_amounts: p.allocations.map((a) => paymentAmountView(p, a, opts)),
    batch_number: null,
    batch_amount: '',
    ...(opts.tree ? { payment_tree: { root: p.reference, children: [] as string[] } } : {}),
    watermark: doc.watermark,
  };
}
