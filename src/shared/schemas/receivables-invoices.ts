import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { Watermark } from './common';
import { Date8601, Nullable, NullableString, ReadOnlyImportFields, Text } from './receivables-common';

export const LineItemInput = component(
  'LineItem',
  Type.Object(
    {
      number: Type.Optional(Type.String({ maxLength: 100, description: 'Line number, once per request (a number twice is 412 duplicate_line_number); matches stored lines on update. Default: the next free position.' })),
      description: Type.Optional(Type.String({ maxLength: 4000 })),
      order_key: Type.Optional(Type.String({ maxLength: 100 })),
      purchase_order_number: Type.Optional(Type.String({ maxLength: 100 })),
      quantity: Type.Optional(Type.Number()),
      unit_cost_cents: Type.Optional(Type.Integer()),
      amount: Type.Optional(Type.Integer({ description: 'Line total in cents; default quantity x unit_cost_cents, rounded.' })),
      balance_cents: Type.Optional(Type.Integer({ description: 'Line balance (line-item short pay); default the amount less what was paid on the line.' })),
    },
    { description: 'Any other attribute is stored and returned in the line\'s `extended_attributes` (L3_* included).' },
  ),
);

export const InvoiceImport = component(
  'Invoice',
  Type.Object(
    {
      number: Type.String({ minLength: 1, maxLength: 64, description: 'Unique within the supplier; an existing number is updated. 1 to 64 characters; URL-encode it in paths (`INV%2F2026%2F001`).' }),
      customer_identifier: Type.String({ minLength: 1, maxLength: 100, description: 'Created when unknown (named by customer_name, else its identifier); customer_* attributes update it.' }),
      display_number: Type.Optional(Type.String({ maxLength: 64 })),
      currency: Type.Optional(Type.String({ description: 'ISO 4217; default the account currency.' })),
      amount: Type.Optional(Type.Integer({ description: 'Cents. Used when there are no line items, or with amount_override.' })),
      replace_line_items: Type.Optional(Type.Boolean({ description: 'true: stored line items absent from the input are deleted.' })),
      amount_override: Type.Optional(Type.Boolean({ description: 'true: `amount` replaces the amount computed from line items and taxes.' })),
      suppress_notifications: Type.Optional(Type.Boolean()),
      attachment: Type.Optional(
        Type.Object({
          content: Type.String({ description: 'Base64 PDF, at most 25 MB decoded; becomes the invoice rendering.' }),
          file_name: Type.String({ maxLength: 255 }),
        }),
      ),
      subtotal_tax1: Type.Optional(Type.Integer({ description: 'Tax in cents; added to the line items.' })),
      subtotal_tax2: Type.Optional(Type.Integer()),
      date: Type.Optional(Date8601('Invoice date; default today.')),
      order_date: Type.Optional(Date8601('Order date.')),
      due_date: Type.Optional(Date8601("Due date; default from the customer's terms, else due on the invoice date.")),
      purchase_order_number: Type.Optional(Type.String({ maxLength: 100 })),
      notes_text: Type.Optional(Type.String({ maxLength: 65536 })),
      shipping_name: Type.Optional(Text('Recipient.')),
      shipping_address_1: Type.Optional(Text('Line 1.')),
      shipping_address_2: Type.Optional(Text('Line 2.')),
      shipping_city: Type.Optional(Text('City.')),
      shipping_province: Type.Optional(Text('The part after the hyphen of an ISO 3166-2 code of shipping_country.', 60)),
      shipping_postal_code: Type.Optional(Text('Zip.', 30)),
      shipping_country: Type.Optional(Text('ISO 3166-1 alpha-2.', 3)),
      line_item_attributes: Type.Optional(Type.Array(ref(LineItemInput))),
      auto_debit: Type.Optional(Type.Union([Type.Literal('Y'), Type.Literal('N')])),
      division: Type.Optional(Type.String({ maxLength: 40, description: 'Division code: required when the account requires divisions; created when unknown under dynamic division creation.' })),
      division_name: Type.Optional(Text('Name of a division created on the fly.')),
      auto_debit_reference: Type.Optional(Type.String({ maxLength: 100 })),
      owing_cents: Type.Optional(Type.Integer({ description: 'Required under balance sync (the ERP\'s owing is kept when it lies from 0 to the amount, on the amount\'s side: 0..amount for an invoice, amount..0 for a credit memo; outside that range it is refused with 412 `owing_exceeds_amount`); otherwise ignored.' })),
      ref1: Type.Optional(Text('Reference.')),
      ref2: Type.Optional(Text('Reference.')),
      ref3: Type.Optional(Text('Reference.')),
      adjustments_attributes: Type.Optional(Type.Array(Type.Object({ label: Type.Optional(Type.String()), amount: Type.Integer() }), { description: 'Replaces the stored adjustments; shown beside the amount, not added to it.' })),
      plan_identifier: Type.Optional(Type.String({ maxLength: 100 })),
      plan_start_date: Type.Optional(Date8601('Payment plan start.')),
      plan_end_date: Type.Optional(Date8601('Payment plan end.')),
      plan_payment_cents: Type.Optional(Type.Integer({ minimum: 0 })),
      annualized_amount_cents: Type.Optional(Type.Integer({ description: 'The amount becomes this pro-rated over the inclusive span effective..expiry, counted in years from the effective date: each whole year bills exactly this amount (2027-01-01..2028-12-31 is twice it), and only the part-year rest is pro-rated, by its days over the days of the year-long period it starts (365, or 366 when that period holds a 29 February), rounded half away from zero.' })),
      annualized_effective_date: Type.Optional(Date8601('Required with annualized_amount_cents.')),
      annualized_expiry_date: Type.Optional(Date8601('Required with annualized_amount_cents.')),
      external_id: Type.Optional(Type.String({ maxLength: 100 })),
      summary_invoice_parent: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Boolean()], { description: '1/true: a summary invoice. Default 0.' })),
      summary_invoice_number: Type.Optional(Type.String({ maxLength: 64, description: 'The summary invoice this one belongs to (it must be one).' })),
      service_rep_email: Type.Optional(Type.String({ maxLength: 1000 })),
      discount_amount_cents: Type.Optional(Type.Integer({ minimum: 0, description: 'Needs the discounts capability.' })),
      discount_rate: Type.Optional(Type.Number({ description: 'Needs the discounts capability; 0.05 = 5%. When present the discount is always amount x rate.' })),
      discount_expiry_date: Type.Optional(Date8601('Needs the discounts capability.')),
      echo: Type.Optional(Type.Literal('pay_urls')),
      L3_po_number: Type.Optional(Type.String()),
      L3_tax: Type.Optional(Type.String()),
      L3_duty: Type.Optional(Type.String()),
      L3_shipping: Type.Optional(Type.String()),
      L3_ship_from_zip: Type.Optional(Type.String()),
      L3_ship_from_country: Type.Optional(Type.String()),
      ...ReadOnlyImportFields,
    },
    { description: 'customer_<field> attributes create or update the customer; any other attribute is stored and returned in `extended_attributes`; `watermark` (read-only) is ignored.' },
  ),
);

export const InvoiceImportQuery = Type.Object({
  create_only: Type.Optional(Type.Boolean({ description: 'Create only: a number already used answers 412 `invoice_exists` (naming that invoice) and changes nothing, instead of updating that invoice.' })),
  customer_on_file: Type.Optional(Type.Boolean({ description: 'The customer must exist: an unknown customer_identifier answers 412 `customer_not_found` instead of creating the customer.' })),
});

export const InvoiceImportResult = Type.Object({
  identifier: Type.String(),
  message: Type.String({ description: 'e.g. "1 invoice 2 line items".' }),
  pay_url: Type.Optional(Type.String({ description: 'With echo=pay_urls, for an invoice in an owing position: the click-to-pay page of the invoice (tag Click to pay).' })),
  pay_urls: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Click-to-pay URL per contact email.' })),
});

const LineItemView = Type.Object({
  number: Type.String(),
  description: NullableString,
  quantity: Nullable(Type.Number()),
  unit_cost_cents: Nullable(Type.Integer()),
  amount_cents: Type.Integer(),
  balance_cents: Type.Integer(),
  id: Type.Integer({ description: 'Position of the line in the invoice.' }),
  identifier: Type.String(),
  invoice_id: Type.Integer(),
  purchase_order_number: NullableString,
  order_key: NullableString,
  recurring_invoice_id: Type.Null(),
  extended_attributes: Type.Record(Type.String(), Type.Unknown()),
});

export const InvoiceView = component(
  'InvoiceResponse',
  Type.Object({
    id: Type.Integer({ description: 'Numeric id: the watermark of the invoice\'s first version.' }),
    number: Type.String(),
    display_number: Type.String(),
    customer_identifier: Type.String(),
    currency: Type.String({ description: 'ISO 4217, lower case.' }),
    amount_cents: Type.Integer(),
    owing_cents: Type.Integer(),
    subtotal_tax1: Type.String({ description: 'Formatted ("$1.30").' }),
    subtotal_tax2: Type.String(),
    date: Type.String(),
    due_date: NullableString,
    order_date: NullableString,
    purchase_order_number: NullableString,
    notes_text: NullableString,
    shipping_name: NullableString,
    shipping_address: Type.Object({
      address_1: NullableString,
      address_2: NullableString,
      city: NullableString,
      state: NullableString,
      country: NullableString,
      country_name: NullableString,
      zip: NullableString,
      line_1: Type.String(),
      line_2: Type.String(),
    }),
    line_item_attributes: Type.Array(LineItemView),
    auto_debit: Type.Boolean(),
    division: NullableString,
    auto_pay_reference: NullableString,
    ref1: NullableString,
    ref2: NullableString,
    ref3: NullableString,
    adjustments_attributes: Type.Array(Type.Object({ label: NullableString, amount_cents: Type.Integer(), id: Type.Integer(), invoice_id: Type.Integer(), recurring_invoice_id: Type.Null() })),
    plan_identifier: NullableString,
    plan_start_date: NullableString,
    plan_end_date: NullableString,
    plan_payment_cents: Nullable(Type.Integer()),
    annualized_amount_cents: Nullable(Type.Integer()),
    annualized_effective_date: NullableString,
    annualized_expiry_date: NullableString,
    external_id: NullableString,
    status: Type.Union(['DRAFT', 'CURRENT', 'OVERDUE', 'PARTIAL', 'PAID', 'CREDIT', 'CLOSED'].map((s) => Type.Literal(s)), {
      description: 'CLOSED when deleted; CREDIT/CLOSED for credit memos; PAID when nothing is owed; OVERDUE past its due date; PARTIAL when partly paid; else CURRENT.',
    }),
    delivery_status: Type.String({ description: '`not_sent`, or `new` (not tracked) when notifications are suppressed.' }),
    extended_attributes: Type.Record(Type.String(), Type.Unknown()),
    summary_invoice_parent: Type.String({ description: '"1" for a summary invoice, else "0".' }),
    summary_invoice_number: NullableString,
    service_rep_email: NullableString,
    discount_amount_cents: Type.Integer(),
    discount_rate: Nullable(Type.Number()),
    discount_expiry_date: NullableString,
    attachments: Type.Array(Type.Object({ file_name: Type.String(), invoice_display: Type.Boolean(), size: Type.Integer() })),
    pay_url: Type.Optional(Type.String()),
    pay_urls: Type.Optional(Type.Record(Type.String(), Type.String())),
    payments: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true, description: 'PaymentAmount records.' }))),
    deleted: Type.Optional(Type.Boolean()),
    watermark: Watermark,
  }),
);

export const AttachmentBody = Type.Object({
  find_by: Type.Union([Type.Literal('number'), Type.Literal('display_number')], { description: 'How the path\'s invoice_number is matched.' }),
  invoice_display: Type.Optional(Type.Boolean({ description: 'true (the default): the invoice\'s primary document; false: supplementary.' })),
  file_name: Type.String({ minLength: 1, maxLength: 255, description: 'With an extension (the content decides it is a PDF); no path separators.' }),
  content: Type.String({ minLength: 1, description: 'Base64 PDF, at most 25 MB decoded.' }),
});

export const InvoiceViewQuery = Type.Object({
  // The reference lists both forms: `options[payments]=true`, and `options` as an array of option
  // names (`options[]=payments`, or `options=payments`).
  options: Type.Optional(
    Type.Union([
      Type.Object({
        payments: Type.Optional(Type.Boolean({ description: 'true appends `payments` (the invoice\'s PaymentAmounts).' })),
      }),
      Type.Array(Type.String(), { description: 'Option names: `payments` appends `payments`.' }),
      Type.String({ description: 'One option name, as `options=payments`.' }),
    ]),
  ),
});

/** Whether the invoice view's `options` (either form) asks for `name`. */
export function invoiceViewOption(options: Static<typeof InvoiceViewQuery>['options'], name: 'payments'): boolean {
  if (typeof options === 'string') return options === name;
  if (Array.isArray(options)) return options.includes(name);
  return options?.[name] === true;
}
