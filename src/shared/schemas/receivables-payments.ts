import { Type } from '@sinclair/typebox';
import { component, ref } from './components';
import { Watermark } from './common';
import { Date8601, NullableString, ReadOnlyImportFields } from './receivables-common';

const PaymentAmountInput = Type.Object(
  {
    invoice_number: Type.String({ minLength: 1, maxLength: 100 }),
    amount: Type.Integer({ description: 'Applied to this invoice (cents); what exceeds its owing is unapplied credit. Negative on a credit memo: that much of its credit goes into the payment (at most the credit it has left), as an ERP nets a credit memo in a receipt.' }),
    notes: Type.Optional(Type.String()),
    purchase_order_number: Type.Optional(Type.String()),
    ref1: Type.Optional(Type.String()),
    ref2: Type.Optional(Type.String()),
    ref3: Type.Optional(Type.String()),
    line_number: Type.Optional(Type.String({ description: 'The invoice line paid first (line-item short pay).' })),
    short_pay_reason_identifier: Type.Optional(Type.String()),
    reason_type: Type.Optional(Type.Union([Type.Literal('short_pay'), Type.Literal('dispute')])),
    match_at: Type.Optional(Date8601('When the payment was matched outside Laneway.')),
    remit_invoice_date: Type.Optional(Date8601('As remitted.')),
    remit_invoice_amount_cents: Type.Optional(Type.Integer()),
    remit_invoice_discount_cents: Type.Optional(Type.Integer({ minimum: 0, description: 'With an external payment, also taken off the invoice as a discount.' })),
    remit_customer_number: Type.Optional(Type.String()),
    remit_customer_name: Type.Optional(Type.String()),
    division: Type.Optional(Type.String({ description: 'Must be the invoice\'s division when given.' })),
  },
  { additionalProperties: true },
);

export const PaymentImport = component(
  'PaymentImport',
  Type.Object({
    identifier: Type.String({ minLength: 1, maxLength: 100, description: 'Unique within the supplier; an existing identifier is updated (its allocations are re-applied).' }),
    amount_cents: Type.Optional(Type.Integer({ minimum: 0, description: 'Total payment. Required unless payment_amounts_attributes gives it. Updating a payment made in Laneway accepts only its total without or with fees.' })),
    amount: Type.Optional(Type.Integer({ minimum: 0, description: 'The total as the reference\'s single-invoice sample names it; same as amount_cents.' })),
    payment_total: Type.Optional(Type.Integer({ description: 'The CSV name of the total: refused in JSON (send amount_cents).' })),
    date: Type.Optional(Date8601('Default today.')),
    currency: Type.Optional(Type.String({ description: 'ISO 4217; default the (first) invoice\'s currency.' })),
    invoice_number: Type.Optional(Type.String({ maxLength: 100, description: 'Single-invoice payment.' })),
    payment_code: Type.Optional(Type.String()),
    payment_description: Type.Optional(Type.String()),
    payment_amounts_attributes: Type.Optional(Type.Array(PaymentAmountInput, { description: 'Several invoices (an invoice may appear more than once).' })),
    division: Type.Optional(Type.String({ description: 'Default division of entries without one.' })),
    customer_identifier: Type.Optional(Type.String({ maxLength: 100, description: 'Created when absent (named customer_name).' })),
    customer_name: Type.Optional(Type.String()),
    external_payment_type: Type.Optional(Type.String({ maxLength: 40, description: 'Marks an external payment: cash, cheque, wire, ach, credit_card, other...' })),
    external_payment_number: Type.Optional(Type.String({ maxLength: 60 })),
    payor_bank_branch_number: Type.Optional(Type.String()),
    payor_bank_account_number: Type.Optional(Type.String({ description: 'Only its last four digits are kept.' })),
    payor_name: Type.Optional(Type.String()),
    settlement_date: Type.Optional(Date8601('Settlement date.')),
    external_id: Type.Optional(Type.String()),
    notes: Type.Optional(Type.String()),
    ref1: Type.Optional(Type.String()),
    ref2: Type.Optional(Type.String()),
    ...ReadOnlyImportFields,
  }),
);

/** The reference's FX fields of a payment and of each of its amounts: Laneway converts no currency. */
const NoFx = {
  fx_rate: Type.Union([Type.String(), Type.Null()], { description: 'Always null: Laneway converts no currency, so a payment is in its own currency only (`options[fx]=true` changes nothing).' }),
  fx_amount: Type.Union([Type.String(), Type.Null()], { description: 'Always null (no currency conversion).' }),
  fx_amount_cents: Type.Union([Type.Number(), Type.Null()], { description: 'Always null (no currency conversion).' }),
};

export const PaymentAmountView = component(
  'PaymentAmount',
  Type.Object(
    {
      payment_reference: Type.String(),
      invoice_number: Type.Optional(Type.String()),
      date: Type.Optional(Type.String()),
      amount: Type.String({ description: 'Applied, as a decimal ("10.00"); "0.00" for an allocation a later update removed.' }),
      payment_amount: Type.Optional(Type.String()),
      payment_transaction_amount: Type.Optional(Type.String()),
      invoice_balance: Type.Optional(Type.String()),
      customer_identifier: Type.Optional(Type.String()),
      status: Type.String(),
      ...NoFx,
      watermark: Type.Optional(Watermark),
    },
    { additionalProperties: true },
  ),
);

export const PaymentRefund = component(
  'PaymentRefund',
  Type.Object({
    kind: Type.Union([Type.Literal('refund'), Type.Literal('void'), Type.Literal('chargeback'), Type.Literal('return')], { description: 'A refund or void by the merchant, or the sale\'s money taken back by the payer\'s bank: a card chargeback, an ACH return.' }),
    date: Type.String({ description: 'The account\'s local day it was taken off (YYYY-MM-DD).' }),
    timestamp: Type.String({ format: 'date-time' }),
    amount: Type.String({ description: 'Taken off the payment, as a decimal ("12.50").' }),
    transaction_token: Type.Union([Type.String(), Type.Null()], { description: 'The refund or void; null when several refunds that reached the store together (a lane\'s) were taken off at once, and for a chargeback or return (no transaction of its own: see the settlement exception of the sale).' }),
    sale_transaction_token: Type.String({ description: 'The sale it gave money back of (or whose money was charged back or returned).' }),
    reason: Type.String(),
  }),
);

export const PaymentView = component(
  'PaymentResponse',
  Type.Object({
    payment_reference: Type.String(),
    date: Type.String(),
    currency: Type.String(),
    payment_amount: Type.String({ description: 'Without fees ("20.00"); what it keeps now, after any refund, void, chargeback or return of its transaction (`refunds`).' }),
    received_amount: Type.String({ description: "Laneway's own: what was received, before any refund, void, chargeback or return of its transaction was taken off (payment_amount plus each of `refunds`): the sale the settlement shows." }),
    refunds: Type.Array(ref(PaymentRefund), { description: "Laneway's own: each refund, void, chargeback or return of the payment's transaction taken off it, oldest first (payments made here only; one taken off before this was kept is not listed)." }),
    payment_transaction_amount: Type.String({ description: 'With fees.' }),
    unapplied_amount: Type.String({ description: 'Not applied to any invoice: credit on the customer.' }),
    payment_method: NullableString,
    auto_debit_indicator: Type.String(),
    payment_timestamp: Type.String(),
    payment_transaction_token: Type.String(),
    customer_identifier: Type.String(),
    customer_name: Type.String(),
    status: Type.String({ description: 'PAID, IN PROGRESS, REVERSAL, ERROR (NSF), ERROR (DECLINED), PAID (UNVERIFIED).' }),
    status_reason: Type.String(),
    payment_source: Type.String({ description: 'ERP (imported), EXTERNAL (external_payment_type), MANUAL (cashier), ARC (made in Laneway).' }),
    payment_code: NullableString,
    payment_description: NullableString,
    gateway_authorization_code: NullableString,
    pay_to_bank_account: NullableString,
    pay_to_bank_account_name: NullableString,
    display_identifier: Type.String(),
    external_payment_type: NullableString,
    external_payment_number: NullableString,
    payor_name: NullableString,
    payor_bank_branch_number: NullableString,
    payor_bank_account_number: Type.Union([Type.String({ pattern: '^\\*{4}[0-9]{0,4}$' }), Type.Null()], { description: 'Masked: last four digits.' }),
    settlement_date: NullableString,
    external_id: NullableString,
    ...NoFx,
    payment_amounts: Type.Array(ref(PaymentAmountView)),
    batch_number: NullableString,
    batch_amount: Type.String(),
    payment_tree: Type.Optional(Type.Object({ root: Type.String(), children: Type.Array(Type.String()) })),
    watermark: Watermark,
  }),
);

/** Not in the reference (its import always creates or updates): the back office records a new payment with it. */
export const CreditApplications = Type.Object(
  {
    applications: Type.Array(
      Type.Object(
        {
          invoice_number: Type.String({ minLength: 1, maxLength: 100, description: 'An open invoice of the payment\'s customer' }),
          amount_cents: Type.Integer({ minimum: 1, description: 'What to apply to it, in minor units: at most what it owes' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  { additionalProperties: false },
);

export const PaymentImportQuery = Type.Object({
  create_only: Type.Optional(Type.Boolean({ description: 'Create only: an identifier already recorded answers 412 `payment_exists` and changes nothing, instead of updating that payment.' })),
});

export const PaymentViewQuery = Type.Object({
  options: Type.Optional(
    Type.Object({
      export_payment_tree: Type.Optional(Type.Boolean()),
      fx: Type.Optional(Type.Boolean({ description: 'Accepted; Laneway converts no currency, so the fx_* fields are null with or without it.' })),
    }),
  ),
});
