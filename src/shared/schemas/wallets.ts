import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { AddressInput, BankAccountInput, ContactInput, CreditCardInput, LooseMonth, LooseYear, methodSettings } from './gateway';
import { EXPECTED, ExportQuery } from './common';

const nullableString = Type.Union([Type.String(), Type.Null()]);
const optText = (max = 255) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));

// The reference's CreditCard schema points at the onboarding Address (address1, post_code); every
// wallet answer it shows uses these names, and its examples win (docs/compatibility.md, item 10).
export const WalletAddress = component(
  'WalletAddress',
  Type.Object(
    {
      address_1: nullableString,
      address_2: nullableString,
      city: nullableString,
      state: nullableString,
      province: nullableString,
      country: nullableString,
      zip: nullableString,
      postal_code: nullableString,
    },
    { description: "The names of the reference's wallet answers: `state` and `province` are one value, as are `zip` and `postal_code`." },
  ),
);

const methodCommon = {
  token: Type.String({ description: 'Fund token: pass it as `fund_token` to pay.' }),
  gateway_token: Type.String({ description: 'Vault token of the payment method (search type `vault`).' }),
  nickname: nullableString,
  is_default: Type.Boolean(),
  is_single_use: Type.Boolean(),
  created: Type.String(),
  locked: Type.Boolean(),
  inactive: Type.Boolean(),
  last_transaction_date: nullableString,
  last_transaction: nullableString,
  last_payment: nullableString,
  address: ref(WalletAddress),
};

export const WalletCreditCard = component(
  'CreditCard',
  Type.Object({
    ...methodCommon,
    cardholder: nullableString,
    card_number: Type.String({ description: 'Display form: brand and last four, e.g. `Visa **0006`.' }),
    display_name: Type.String(),
    expiry_month: Type.Integer(),
    expiry_year: Type.Integer(),
    is_debit: Type.Boolean(),
    brand: Type.String(),
    bin: nullableString,
    last_4_digits: Type.String(),
  }),
);

export const WalletBankAccount = component(
  'BankAccount',
  Type.Object({
    ...methodCommon,
    account_holder: nullableString,
    account_number: Type.String({ description: 'Masked: ` (1234)`' }),
    display_name: Type.String(),
    routing_number: nullableString,
    institution_number: nullableString,
    branch_number: nullableString,
    account_type: Type.String(),
    check_type: nullableString,
    external_name: nullableString,
    external_number: nullableString,
    currency: Type.String(),
    domicile: Type.String(),
    state: Type.String(),
  }),
);

export const Wallet = component(
  'Wallet',
  Type.Object({
    token: Type.String(),
    credit_cards: Type.Array(ref(WalletCreditCard)),
    bank_accounts: Type.Array(ref(WalletBankAccount)),
    customers: Type.Array(Type.Object({ identifier: Type.String(), name: nullableString, contacts: Type.Array(Type.Object({ email: Type.String() })) })),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);

const WalletCustomerInput = Type.Union([
  Type.String({ minLength: 1, maxLength: 100, description: 'Short form: the customer identifier.' }),
  Type.Object({ identifier: optText(100), name: optText() }),
]);

export const WalletRequest = component(
  'WalletRequest',
  Type.Object({
    wallet: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Object({ token: Type.String({ minLength: 1, maxLength: 40 }) })], { description: 'Adds to this known wallet instead of creating one.' })),
    customer: Type.Optional(Type.Union([WalletCustomerInput, Type.Null()])),
    contact: Type.Optional(Type.Union([ref(ContactInput), Type.Null()])),
    credit_card: Type.Optional(Type.Union([ref(CreditCardInput), Type.Null()])),
    bank_account: Type.Optional(Type.Union([ref(BankAccountInput), Type.Null()])),
  }),
);
export type WalletRequest = Static<typeof WalletRequest>;

export const WalletMethodRequest = Type.Object({
  credit_card: Type.Optional(Type.Union([ref(CreditCardInput), Type.Null()])),
  bank_account: Type.Optional(Type.Union([ref(BankAccountInput), Type.Null()])),
});
export type WalletMethodRequest = Static<typeof WalletMethodRequest>;

export const WalletMethodPatch = Type.Object({
  credit_card: Type.Optional(
    Type.Object({
      name: optText(),
      expiry_month: Type.Optional(LooseMonth),
      expiry_year: Type.Optional(LooseYear),
      cvv: Type.Optional(Type.Union([Type.String({ maxLength: 8 }), Type.Null()])),
      ...methodSettings,
      address: Type.Optional(Type.Union([ref(AddressInput), Type.Null()])),
    }),
  ),
  bank_account: Type.Optional(
    Type.Object({
      account_type: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
      account_holder: optText(),
      check_type: Type.Optional(Type.Union([Type.Literal('personal'), Type.Literal('business')])),
      external_name: optText(),
      external_number: optText(),
      ...methodSettings,
      address: Type.Optional(Type.Union([ref(AddressInput), Type.Null()])),
    }),
  ),
});
export type WalletMethodPatch = Static<typeof WalletMethodPatch>;

export const WalletResponse = Type.Object({
  wallet_token: Type.String(),
  fund_token: nullableString,
  wallets: Type.Array(ref(Wallet)),
});

/** The reference's 412 body for wallet operations: the code in `wallets.error`. */
export const WalletErrorBody = component(
  'WalletError',
  Type.Object({
    wallet_token: Type.Null(),
    fund_token: Type.Null(),
    wallets: Type.Object({ error: Type.String({ description: 'Stable code, e.g. customer_not_found, fund_address_unspecified' }) }),
    error: Type.String(),
    code: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.Optional(Type.String()), code: Type.Optional(Type.String()), message: Type.String() }))),
  }),
);

/** The reference's 412 body for changing or removing one payment method: the code in `error`. */
export const WalletMethodErrorBody = component(
  'WalletMethodError',
  Type.Object({
    error: Type.String({ description: 'Stable code, as the reference answers it: payment_method_not_found, payment_method_inactive, card_expired...' }),
    code: Type.String({ description: 'The same code, where every other error of this API has it.' }),
    message: Type.String({ description: 'What went wrong, for people.' }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.Optional(Type.String()), code: Type.Optional(Type.String()), message: Type.String() }))),
  }),
);

export const WalletSearchQuery = Type.Object({
  type: Type.Union([Type.Literal('email'), Type.Literal('customer'), Type.Literal('fund'), Type.Literal('vault')]),
  locator: Type.String({ minLength: 1, maxLength: 200 }),
});

export const WalletExportQuery = ExportQuery;

export const WalletExportPage = Type.Object({
  wallets: Type.Union([Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.Intersect([ref(Wallet), Type.Object({ watermark: Type.Integer() })])), Type.Array(Type.Intersect([ref(Wallet), Type.Object({ watermark: Type.Integer() })]))]),
});

// ---- Autopay ----

export const AutopayCreate = Type.Object({
  autopay_reference: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })])),
  customer_identifier: Type.String({ minLength: 1, maxLength: 100 }),
  fund_token: Type.String({ minLength: 1, maxLength: 40 }),
});
export type AutopayCreate = Static<typeof AutopayCreate>;

export const AutopayUpdate = Type.Object({
  customer_identifier: Type.String({ minLength: 1, maxLength: 100 }),
  fund_token: Type.String({ minLength: 1, maxLength: 40, description: 'The new fund.' }),
  token: Type.String({ minLength: 1, maxLength: 40, description: 'The fund the agreements use now.' }),
});

export const AutopayRevoke = Type.Object({
  customer_identifier: Type.String({ minLength: 1, maxLength: 100 }),
  token: Type.String({ minLength: 1, maxLength: 40, description: 'The agreement token.' }),
});

export const AutopayLookup = Type.Object({ customer_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) });

export const AutopayFailure = component(
  'AutopayFailure',
  Type.Object(
    {
      date: Type.String({ description: "The run's day (YYYY-MM-DD, the account's time zone)." }),
      currency: Type.String(),
      amount_cents: Type.Integer({ description: 'What the sale asked for.' }),
      invoices: Type.Array(Type.String(), { description: 'The invoice numbers it was to pay: they stay owing.' }),
      cause: Type.Union(['method_removed', 'method_locked', 'declined', 'refused'].map((c) => Type.Literal(c)), {
        description: 'method_removed / method_locked: the gateway refused the agreement\'s payment method; declined: the issuer or bank declined the sale; refused: the gateway refused it for another reason (`code`).',
      }),
      code: nullableString,
      message: Type.Union([Type.String(), Type.Null()], { description: "The gateway's words, for a decline; may name the method's token, so screens word the cause themselves." }),
      transaction: Type.Union([Type.String(), Type.Null()], { description: 'The declined sale (none when the gateway refused before making one).' }),
    },
    { description: 'A sale of an autopay run that was not made: its invoices were not paid.' },
  ),
);
export type AutopayFailure = Static<typeof AutopayFailure>;

const autopayFields = {
  agreement_token: Type.String(),
  fund_token: Type.String(),
  timing: Type.String(),
  autopay_limit: Type.String(),
  autopay_reference: nullableString,
  autopay_references: Type.Array(Type.String()),
  autopay_inherited_from_customer_identifier: nullableString,
  can_delete: Type.Boolean(),
  customer_identifier: Type.String(),
  state: Type.String({ description: 'approved or revoked' }),
  created_at: Type.String(),
  last_run_date: nullableString,
  last_result: nullableString,
  fund_display: Type.Union([Type.String(), Type.Null()], { description: "The fund as people name it (a card's brand and last four), never its token; null when no such fund is stored." }),
  fund_problem: Type.Union([Type.Literal('removed'), Type.Literal('locked'), Type.Literal('expired'), Type.Null()], {
    description: 'Why the fund cannot pay today (removed from its wallet, locked, an expired card): autopay stays on but each charge fails until the agreement is moved to another fund (PUT) or made again; null when it can pay.',
  }),
  last_failures: Type.Array(ref(AutopayFailure), { description: 'The sales of the last run that were not made (empty when all were, or nothing was due).' }),
};

export const Autopay = component('Autopay', Type.Object(autopayFields));

export const AutopayHoldCause = Type.Union(['refunded', 'voided', 'charged_back', 'returned', 'returned_nsf'].map((c) => Type.Literal(c)), {
  description: 'Why its charged money came back: a refund or void of the sale, a chargeback, a bank return (returned_nsf: the third for missing funds).',
});
export const HeldInvoice = Type.Object({ invoice_number: Type.String(), cause: AutopayHoldCause, held_at: Type.String() });
export type HeldInvoice = Static<typeof HeldInvoice>;

export const AutopaySkipReason = Type.Union(['balance_changed', 'charged_with_changed_invoice'].map((c) => Type.Literal(c)), {
  description: "balance_changed: what the invoice owed changed while its charge was made (another payment, a credit applied); charged_with_changed_invoice: it was in the same charge as such an invoice. Either way the charge was voided (or refunded past the day's cut-off).",
});
export const SkippedInvoice = Type.Object({
  invoice_number: Type.String(),
  reason: AutopaySkipReason,
  message: Type.String(),
  transaction: Type.String({ description: 'The charge given back.' }),
  date: Type.String({ description: 'The run, YYYY-MM-DD in the account time zone.' }),
});
export type SkippedInvoice = Static<typeof SkippedInvoice>;

export const AutopayRetrieveResponse = Type.Object({
  ...Object.fromEntries(Object.entries(autopayFields).map(([k, v]) => [k, Type.Optional(v)])),
  autopays: Type.Array(ref(Autopay), { description: "Every active agreement of the customer; the top-level fields repeat the newest one's." }),
  held_invoices: Type.Optional(
    Type.Array(HeldInvoice, { description: 'Invoices autopay no longer charges on its own because a charge of theirs came back. A new agreement releases them.' }),
  ),
  skipped_invoices: Type.Optional(
    Type.Array(SkippedInvoice, { description: "Invoices the last run of an agreement charged and gave the charge back for, and why. The next run charges what they owe then." }),
  ),
});

export const AutopayPreviewQuery = Type.Object({
  customer_identifier: Type.String({ minLength: 1, maxLength: 100 }),
  autopay_reference: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })])),
});
export type AutopayPreviewQuery = Static<typeof AutopayPreviewQuery>;

export const AutopayPreview = component(
  'AutopayPreview',
  Type.Object({
    as_of_date: Type.String({ description: "Today in the account's time zone (YYYY-MM-DD): invoices due on or before it are charged at once." }),
    charges: Type.Array(
      Type.Object({
        currency: Type.String({ description: 'ISO 4217: one sale per currency.' }),
        amount_cents: Type.Integer(),
        invoices: Type.Array(Type.Object({ invoice_number: Type.String(), due_date: Type.String(), amount_cents: Type.Integer({ description: 'Owing less an early-payment discount still open today.' }) })),
      }),
      { description: 'Empty: nothing is due, so the agreement charges nothing before the next due date.' },
    ),
  }),
);
export type AutopayPreview = Static<typeof AutopayPreview>;

// ---- Gift cards ----

const giftCardIdentity = {
  card_number: Type.String({ minLength: 1, maxLength: 40 }),
  expiry_month: Type.Optional(LooseMonth),
  expiry_year: Type.Optional(LooseYear),
  pin: Type.Optional(Type.Union([Type.String({ maxLength: 12 }), Type.Null()])),
};

export const GiftCardLoad = Type.Object({
  ...giftCardIdentity,
  activated: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Boolean()], { description: '"true" activates, "false" deactivates, omitted leaves the status unchanged.' })),
  load_amount_cents: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100_000_000 }), Type.String({ pattern: '^[0-9]{1,9}$' })], { [EXPECTED]: 'a whole number of cents from 0 to 100000000' })),
});
export type GiftCardLoad = Static<typeof GiftCardLoad>;

export const GiftCardRead = Type.Object(giftCardIdentity);
export type GiftCardRead = Static<typeof GiftCardRead>;

export const GiftCardLoadResponse = Type.Object({
  success: Type.Boolean(),
  token: Type.String(),
  balance: Type.Integer(),
  activated: Type.Boolean(),
});

export const GiftCardView = Type.Object(
  {
    id: Type.Integer(),
    token: Type.String(),
    last4: Type.String(),
    balance: Type.Integer({ description: 'Cents' }),
    activated: Type.Boolean(),
    currency: Type.String(),
    expiry_month: Type.Union([Type.Integer(), Type.Null()]),
    expiry_year: Type.Union([Type.Integer(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    pin: Type.Object(
      {
        set: Type.Boolean({ description: 'Whether the card has a PIN' }),
        failures: Type.Integer({ description: 'Wrong PINs in a row (reset by the right PIN or an unlock)' }),
        paused_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'No PIN is checked before this instant (after repeated wrong PINs)' }),
        locked: Type.Boolean({ description: 'Too many wrong PINs: no PIN is checked until the card is unlocked' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type GiftCardView = Static<typeof GiftCardView>;

export const GiftCardReadResponse = Type.Object({
  id: Type.Optional(Type.Integer()),
  token: Type.Optional(Type.String({ description: 'Pay with it as `gift_card: "<token>"`.' })),
  balance: Type.Integer(),
  activated: Type.Boolean(),
  created_at: Type.Optional(Type.String({ description: 'M/D/YYYY h:mm:ss AM in the account time zone' })),
  expires_at: Type.Optional(Type.String()),
});

