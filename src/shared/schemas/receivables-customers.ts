import { Type } from '@sinclair/typebox';
import { component, ref } from './components';
import { Watermark } from './common';
import { CentsField, Date8601, Nullable, NullableString, ReadOnlyImportFields, Text } from './receivables-common';

/** The reference's own examples send some numbers and flags as strings ("2000000", "false"). */
const IntLike = (description: string) => Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]+$' })], { description });
const BoolLike = (description: string) => Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')], { description });

const Identifier = Type.String({ minLength: 1, maxLength: 100, description: 'Letters and digits (with - _ . inside), unique within the supplier.' });

export const ContactInput = component(
  'Contact',
  Type.Object({
    email: Type.String({ format: 'email', description: 'Email address of the contact.' }),
    first_name: Type.Optional(Text('First name.')),
    last_name: Type.Optional(Text('Last name.')),
    title: Type.Optional(Text('Title.')),
    department: Type.Optional(Text('Department.')),
    telephone: Type.Optional(Text('Phone number.')),
    bulk_activate: Type.Optional(Type.Boolean({ description: 'true activates the contact on import. Default false.' })),
  }),
);

/** Defaults are described, never declared: validation must not inject them into an update. */
export const CustomerImport = component(
  'Customer',
  Type.Object(
    {
      identifier: Identifier,
      display_number: Type.Optional(Type.String({ maxLength: 100 })),
      name: Type.String({ minLength: 1, maxLength: 200, description: 'Required when the customer is created.' }),
      email: Type.Optional(Type.String({ format: 'email', description: 'Email of the default contact (it becomes a contact).' })),
      first_name: Type.Optional(Text('First name of the default contact.')),
      last_name: Type.Optional(Text('Last name of the default contact.')),
      notes: Type.Optional(Type.String({ maxLength: 65536, description: 'Up to 64K.' })),
      address_1: Type.Optional(Text('Billing address line 1.')),
      address_2: Type.Optional(Text('Billing address line 2.')),
      city: Type.Optional(Text('City.')),
      province: Type.Optional(Text('State or province: the part after the hyphen of an ISO 3166-2 code of `country` ("ON" for CA-ON).', 60)),
      postal_code: Type.Optional(Text('Zip or postal code.', 30)),
      country: Type.Optional(Text('ISO 3166-1 country code (alpha-2; alpha-3 is accepted and stored as alpha-2).', 3)),
      telephone: Type.Optional(Text('Phone.')),
      fax: Type.Optional(Text('Fax.')),
      url: Type.Optional(Type.String({ maxLength: 2048, description: 'Web site: an http or https address, or a bare host name (`www.acmeinc.com`, linked over https). Another scheme (`javascript:`, `data:`...), a user name or password in it, or no host name is refused with 412 `invalid_url`.' })),
      business_number: Type.Optional(Type.String({ maxLength: 20, description: 'EIN or business number: at most 20 letters and digits.' })),
      locale: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('fr'), Type.Literal('es')])),
      parent_identifier: Type.Optional(Type.String({ maxLength: 100, description: 'An existing customer; a loop in the hierarchy is refused.' })),
      pdf_attachment_opt_in: Type.Optional(BoolLike('Default false.')),
      account_status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')], { description: 'Default open.' })),
      last_contact_date: Type.Optional(Date8601('Ignored when the stored last contact date is more recent.')),
      next_contact_date: Type.Optional(Date8601('Always overwrites the stored value.')),
      credit_limit_cents: Type.Optional(IntLike('Credit limit in cents, 0 or more.')),
      credit_limit_currency: Type.Optional(Type.String({ description: 'ISO 4217. When blank: the currency of most of the customer\'s invoices, else the account currency.' })),
      credit_rating: Type.Optional(Text('Credit rating.')),
      terms_type: Type.Optional(Type.Union([Type.Literal('date'), Type.Literal('day')])),
      terms_value: Type.Optional(IntLike("'day': 0..100 days after the invoice date. 'date': day 1..27 of the next month, -1 last day, -2 second-last day. Sets the due date of invoices imported without one.")),
      company_bio: Type.Optional(Type.String({ maxLength: 65536 })),
      ignores_cc_payment_rules: Type.Optional(BoolLike('Default false.')),
      notification_suppressed: Type.Optional(BoolLike('Default false: true suppresses every notification to the customer.')),
      tags: Type.Optional(Type.String({ maxLength: 200, description: 'Tags separated by semicolons.' })),
      external_id: Type.Optional(Type.String({ maxLength: 100 })),
      external_group_identifier: Type.Optional(Type.String({ maxLength: 100, description: 'Under restricted grouping, grouped customers must share it.' })),
      replace_contacts: Type.Optional(
        BoolLike(
          'Default false. true: stored contacts in the payload are updated unless signed up; stored supplier-created contacts absent from the payload are deleted, or disabled when signed up.',
        ),
      ),
      contacts: Type.Optional(Type.Array(ref(ContactInput))),
      line_item_attributes: Type.Optional(Type.Array(ref(ContactInput), { description: 'The name the reference schema gives the contacts array; accepted as `contacts`.' })),
      ...ReadOnlyImportFields,
    },
    { description: 'Any other attribute is stored and returned in `attributes_marshal`; `watermark` (read-only) is ignored.' },
  ),
);

const Contact = Type.Object({
  email: Type.String(),
  first_name: NullableString,
  last_name: NullableString,
  telephone: NullableString,
  title: NullableString,
  department: NullableString,
  activated_at: NullableString,
  invited_at: NullableString,
  login_at: NullableString,
  user_first_name: NullableString,
  user_last_name: NullableString,
  user_role: NullableString,
  user_telephone: NullableString,
  user_title: NullableString,
  user_department: NullableString,
  disabled: Type.Boolean(),
});

const YN = Type.Union([Type.Literal('Y'), Type.Literal('N')]);
const Money = (description: string) => Type.String({ description: `${description} Formatted in the customer's main currency ("$1,234.56").` });

export const CustomerView = component(
  'CustomerResponse',
  Type.Object(
    {
      identifier: Type.String(),
      display_number: Type.String(),
      name: Type.String(),
      business_number: Type.String(),
      first_name: Type.String(),
      last_name: Type.String(),
      email: Type.String(),
      address_1: Type.String(),
      address_2: Type.String(),
      postal_code: Type.String(),
      city: Type.String(),
      province: Type.String(),
      country: Type.String(),
      telephone: Type.String(),
      fax: Type.String(),
      status: Type.String({ description: 'Not Activated, Invited, Activated, Signed Up or Paying.' }),
      auto_debit: YN,
      invite_sent: Nullable(Type.String({ format: 'date', description: 'The latest invitation, YYYY-MM-DD; null when none was sent.' })),
      signed_up: Nullable(Type.String({ format: 'date', description: 'The first sign-up, YYYY-MM-DD; null when no contact signed up.' })),
      notification_suppressed: YN,
      notification_override: YN,
      paper_invoices: YN,
      paper_statements: YN,
      currency: Type.String({ description: 'The main currency: most of its invoices, else the account currency.' }),
      balance: Money('Open invoices owing (current + overdue).'),
      credit: Money('Credit memos still open (negative).'),
      current: Money('Owing, not yet due.'),
      unapplied_payment: Money('Payments not applied to an invoice.'),
      aging: Money('Overdue.'),
      aging_30: Money('1-30 days overdue.'),
      aging_60: Money('31-60 days overdue.'),
      aging_90: Money('61-90 days overdue.'),
      aging_older: Money('91+ days overdue.'),
      notes: Type.String(),
      parent_identifier: Type.String(),
      parent_name: Type.String(),
      parent_email: Type.String(),
      adp: Type.String(),
      adp_arc: Type.String(),
      adp_external: Type.String(),
      last_contact_date: Type.String(),
      next_contact_date: Type.String(),
      credit_limit: Type.String(),
      credit_limit_currency: Type.String(),
      oldest_open_invoice: Type.String(),
      oldest_open_invoice_age: Type.String({ description: 'Days since its invoice date.' }),
      oldest_open_invoice_balance: Type.String(),
      last_payment_date: Nullable(Type.String({ format: 'date', description: 'The latest payment\'s date, YYYY-MM-DD; null before any payment.' })),
      last_payment_amount: Type.String(),
      last_payment_source: Nullable(Type.Union(['arc', 'external', 'erp', 'manual'].map((s) => Type.Literal(s)), { description: 'arc (made here), external, erp or manual (cashier); null before any payment.' })),
      account_status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
      tags: Type.String(),
      user_tags: Type.String(),
      divisions_names: Type.String(),
      divisions_codes: Type.String(),
      url: Type.String(),
      group_id: Type.String(),
      external_group_identifier: Type.String(),
      credit_card_fee_exempt: YN,
      auto_update_cc_expiry: YN,
      cash_on_delivery: YN,
      external_id: Type.String(),
      locale: Type.String(),
      terms_type: Type.String(),
      terms_value: Nullable(Type.Integer()),
      credit_rating: Type.String(),
      company_bio: Type.String(),
      pdf_attachment_opt_in: YN,
      ignores_cc_payment_rules: YN,
      attributes_marshal: Type.Record(Type.String(), Type.Unknown(), { description: 'Extra attributes given on import.' }),
      watermark: Watermark,
      root_identifier: Type.String(),
      contacts: Type.Array(Contact),
    },
    { description: 'With more than one currency, `<currency>_balance`, `<currency>_aging_30`... are added per currency.' },
  ),
);

const NullableCents = Nullable(Type.Integer());

export const CustomerListItem = component(
  'CustomersResponse',
  Type.Object({
    identifier: Type.String(),
    display_number: NullableString,
    name: Type.String(),
    email: NullableString,
    business_number: NullableString,
    first_name: NullableString,
    last_name: NullableString,
    address_1: NullableString,
    address_2: NullableString,
    postal_code: NullableString,
    city: NullableString,
    province: NullableString,
    country: NullableString,
    telephone: NullableString,
    fax: NullableString,
    status: Type.String(),
    auto_debit: Type.String(),
    invite_sent: NullableString,
    signed_up: NullableString,
    notification_suppressed: Type.Boolean(),
    notification_override: Type.Boolean(),
    paper_invoices: Type.Boolean(),
    paper_statements: Type.Boolean(),
    parent_identifier: NullableString,
    currency: Type.String(),
    balance_cents: CentsField('Owing on open invoices.'),
    aging_cents: CentsField('Overdue.'),
    aging_30_cents: CentsField('1-30 days overdue.'),
    aging_60_cents: CentsField('31-60 days overdue.'),
    aging_90_cents: CentsField('61-90 days overdue.'),
    aging_120_cents: CentsField('91-120 days overdue.'),
    aging_180_cents: CentsField('121-180 days overdue.'),
    aging_older_cents: CentsField('181+ days overdue.'),
    current_cents: CentsField('Not yet due.'),
    credit_cents: CentsField('Open credit memos (negative).'),
    unapplied_payment_cents: CentsField('Payments not applied to invoices.'),
    prepayment_cents: CentsField('Always 0: payments on account are unapplied payments.'),
    owing_cents: CentsField('balance + credit - unapplied payments.'),
    notes: NullableString,
    adp: NullableString,
    adp_arc: NullableString,
    adp_external: NullableString,
    last_contact_date: NullableString,
    next_contact_date: NullableString,
    credit_limit_cents: NullableCents,
    account_status: Type.String(),
    tags: NullableString,
    user_tags: NullableString,
    attributes_marshal: Type.Record(Type.String(), Type.Unknown()),
    external_id: NullableString,
    external_group_identifier: NullableString,
    watermark: Watermark,
  }),
);

export const CustomerOpenInvoice = component(
  'CustomerOpenInvoice',
  Type.Object({
    number: Type.String(),
    display_number: Type.String(),
    currency: Type.String(),
    amount_cents: Type.Integer(),
    owing_cents: Type.Integer(),
    customer_identifier: Type.String(),
    due_date: NullableString,
    watermark: Watermark,
  }),
);

export const UpdateIdentifierBody = Type.Object({
  new_identifier: Type.String({ minLength: 1, description: "The customer's new identifier, unique within the supplier." }),
});

export const InvitationBody = Type.Object({
  identifier: Type.String({ minLength: 1, description: 'The customer identifier.' }),
  email: Type.String({ minLength: 1, description: 'Contact email address.' }),
});

export const IdentifierParams = Type.Object({ identifier: Type.String({ minLength: 1, maxLength: 200 }) });

export { CentsField };

export const CustomerImportQuery = Type.Object({
  create_only: Type.Optional(Type.Boolean({ description: 'Create only: an identifier already used answers 412 `customer_exists` and changes nothing, instead of updating that customer.' })),
});
