import { Type, type Static } from '@sinclair/typebox';
import { EXPECTED } from './common';
import { component, ref } from './components';
import { LooseCents, OrderInput } from './orders';

/**
 * Gateway transactions (the reference's Order Transactions). Requests accept what existing clients
 * send: amounts and expiry parts as numbers or digit strings, `contact.email: null`, 3-letter
 * countries in card addresses.
 */
const text = (max = 255) => Type.String({ maxLength: max });
const optText = (max = 255) => Type.Optional(Type.Union([text(max), Type.Null()]));
const nullableString = Type.Union([Type.String(), Type.Null()]);

export const LooseMonth = Type.Union([Type.Integer({ minimum: 1, maximum: 12 }), Type.String({ pattern: '^(0?[1-9]|1[0-2])$' })], { [EXPECTED]: 'a month number from 1 to 12' });
export const LooseYear = Type.Union([Type.Integer({ minimum: 0, maximum: 9999 }), Type.String({ pattern: '^([0-9]{2}|[0-9]{4})$' })], { [EXPECTED]: 'a year of 4 digits (or 2)' });

export const AddressInput = component(
  'AddressInput',
  Type.Object({
    address_1: optText(),
    address_2: optText(),
    city: optText(),
    province: optText(60),
    state: optText(60),
    postal_code: optText(20),
    zip: optText(20),
    country: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{2,3}$' }), Type.Null(), Type.Literal('')])),
  }),
);

/**
 * A vaulted method's settings, declared once for a new card or account (wallet create, add methods)
 * and for PATCH, which the engine applies with one rule (src/engine/wallets/method-settings.ts).
 */
export const methodSettings = {
  locked: Type.Optional(Type.Boolean({ description: 'In a wallet: visible but cannot pay (`fund_protected`).' })),
  nickname: optText(100),
  is_default: Type.Optional(Type.Boolean({ description: "In a wallet: true makes this its default method, and its other methods stop being default." })),
  is_single_use: Type.Optional(Type.Boolean()),
};
export const MethodSettings = Type.Object(methodSettings);
export type MethodSettings = Static<typeof MethodSettings>;

export const ContactInput = component(
  'ContactInput',
  Type.Object({
    email: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
    first_name: optText(100),
    last_name: optText(100),
  }),
);
export type ContactInput = Static<typeof ContactInput>;
export type AddressInput = Static<typeof AddressInput>;

export const CreditCardInput = component(
  'CreditCardInput',
  Type.Object(
    {
      name: optText(),
      expiry_month: Type.Optional(LooseMonth),
      expiry_year: Type.Optional(LooseYear),
      card_number: Type.Optional(Type.String({ maxLength: 40, description: 'Used once for the processor; never stored, logged or echoed.' })),
      cvv: Type.Optional(Type.Union([Type.String({ maxLength: 40, description: 'Required with a card_number: 3 or 4 digits (the reference\'s validation sentence otherwise). Never stored.' }), Type.Null()])),
      address: Type.Optional(Type.Union([ref(AddressInput), Type.Null()])),
      ...methodSettings,
      brand: optText(40),
      last_4_digits: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
      gateway_token: optText(80),
    },
    { description: 'A new card (name, expiry, card_number, cvv, address), or a card vaulted elsewhere (brand, last_4_digits, gateway_token, expiry).' },
  ),
);
export type CreditCardInput = Static<typeof CreditCardInput>;

export const BankAccountInput = component(
  'BankAccountInput',
  Type.Object({
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
    account_type: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
    account_holder: optText(),
    account_number: Type.Optional(Type.String({ maxLength: 34, description: 'Used once; only the last four digits are kept.' })),
    routing_number: optText(20),
    institution_number: optText(10),
    branch_number: optText(10),
    check_type: Type.Optional(Type.Union([Type.Literal('personal'), Type.Literal('business')])),
    external_name: optText(),
    external_number: optText(),
    ...methodSettings,
    gateway_token: optText(80),
    address: Type.Optional(Type.Union([ref(AddressInput), Type.Null()])),
  }),
);
export type BankAccountInput = Static<typeof BankAccountInput>;

export const GiftCardTender = Type.Object({
  name: optText(),
  card_number: Type.Optional(Type.String({ maxLength: 40 })),
  expiry_month: Type.Optional(LooseMonth),
  expiry_year: Type.Optional(LooseYear),
  pin: Type.Optional(Type.Union([Type.String({ maxLength: 12 }), Type.Null()])),
  token: Type.Optional(Type.String({ maxLength: 40 })),
});

export const TerminalInput = Type.Object({
  laneid: Type.String({ minLength: 1, maxLength: 40, description: 'A configured lane.' }),
  enable_manual_entry: Type.Optional(Type.Boolean({ default: false })),
});

export const TransactionRequest = component(
  'OrderTransactionRequest',
  Type.Object({
    order: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), ref(OrderInput), Type.Null()], { description: 'An order object, or the identifier of an existing order.' })),
    amount_cents: Type.Optional(Type.Union([LooseCents, Type.Null()])),
    currency: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{3}$' }), Type.Null()])),
    contact: Type.Optional(Type.Union([ref(ContactInput), Type.Null()])),
    fund_token: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()])),
    credit_card: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), ref(CreditCardInput), Type.Null()])),
    bank_account: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), ref(BankAccountInput), Type.Null()])),
    gift_card: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), GiftCardTender, Type.Null()])),
    terminal: Type.Optional(TerminalInput),
    transaction: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()], { description: 'The prior transaction (capture, refund, void).' })),
    transaction_reference: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'Your own text to link the transaction to other systems (a PO number, an account number): kept and shown, never unique. Several charges or refunds may carry the same one.' })),
    unique_reference: Type.Optional(
      Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
        description:
          'A retry key, as the reference\'s transactions have one ("must be unique, can be used as a duplicate transaction check"): the same request sent again with it (same action and order) answers the first transaction and charges nothing; another request under it is refused (`duplicate_unique_reference`). Declines do not hold it. Without it every request is a new transaction.',
      }),
    ),
    customer_identifier: optText(100),
    fee_exempt: Type.Optional(Type.Boolean()),
    device: optText(100),
    industry: Type.Optional(
      Type.Union(['directmarketing', 'ecommerce', 'lodging', 'restaurant', 'autorental', 'retail'].map((v) => Type.Literal(v))),
    ),
    sec_code: Type.Optional(Type.Union(['CCD', 'PPD', 'WEB', 'POP', 'TEL'].map((v) => Type.Literal(v)))),
  }),
);
export type TransactionRequest = Static<typeof TransactionRequest>;

const GatewayResponseDetail = Type.Object(
  {
    token: nullableString,
    gateway_token: nullableString,
    gateway_status: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
    authorization_code: nullableString,
    authorization_response: nullableString,
    avs_response: nullableString,
    cvv_response: nullableString,
    approved_amount_cents: Type.Integer(),
    error_code: nullableString,
    message: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  { description: "The sandbox processor's answer. `errors` is keyed by what failed (`gateway`, `credit_card`, ...)." },
);

const Emv = Type.Object({
  laneid: Type.String(),
  entry_mode: Type.String({ description: 'chip, contactless, swipe or manual' }),
  aid: nullableString,
  application_label: nullableString,
  tvr: nullableString,
  tsi: nullableString,
  cardholder_verification: Type.String({ description: 'pin, signature or none' }),
  authorization_code: nullableString,
  signature: Type.Union([Type.Object({ media_type: Type.String(), data: Type.String() }), Type.Null()]),
  reversal: Type.Union([Type.String(), Type.Null()], { description: 'Why an approved payment was reversed (the device did not confirm).' }),
  tip_cents: Type.Optional(Type.Integer({ minimum: 0, description: 'Tip the customer added on the device; included in amount_in_cents.' })),
});

/** One gateway transaction: the reference's OrderTransaction plus Laneway's money-state fields. */
export const OrderTransaction = component(
  'OrderTransaction',
  Type.Object(
    {
      token: Type.String(),
      amount_in_cents: Type.Integer(),
      message: nullableString,
      link_url: nullableString,
      type: Type.Literal('transaction'),
      transaction_type: Type.String({ description: 'request_money (money in) or send_money (money out)' }),
      email: nullableString,
      state: Type.String({ description: 'completed, declined, in_progress, cancelled (voided or reversed), completed_but_nsfed (ACH returned)' }),
      transaction_reference: nullableString,
      unique_reference: Type.Union([Type.String(), Type.Null()], { description: 'The unique_reference the request carried, as sent, on approved requests (the retry key is it with the action and order).' }),
      from_account: nullableString,
      to_account: nullableString,
      from_fund: Type.Union([Type.String(), Type.Null()], { description: 'The balance or bank account a send or direct credit is drawn from; null on gateway transactions' }),
      to_fund: Type.Union([Type.String(), Type.Null()], { description: 'The balance or bank account a request or direct debit pays into; null on gateway transactions' }),
      process_on: nullableString,
      created_by_user: nullableString,
      created_at: Type.String(),
      auto_withdraw: Type.Boolean(),
      auto_withdrawal_token: nullableString,
      step_types: Type.Array(Type.String()),
      action: Type.Union(['verify', 'authorize', 'capture', 'sale', 'void', 'refund', 'credit'].map((v) => Type.Literal(v))),
      payment_method: Type.Union(['credit_card', 'bank_account', 'gift_card', 'pos_terminal'].map((v) => Type.Literal(v))),
      wallet: nullableString,
      credit_card: nullableString,
      bank_account: nullableString,
      gift_card: nullableString,
      settlement_token: Type.String(),
      currency: Type.String(),
      fx_amount_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Always null: Laneway converts no currency (the reference leaves it out when no FX occurred; here the key is always there).' }),
      fx_rate: Type.Union([Type.String(), Type.Null()], { description: 'Always null: Laneway converts no currency.' }),
      approved_amount_cents: Type.Integer(),
      fee_amount_cents: Type.Integer(),
      fee_exempt: Type.Boolean(),
      gateway_response: GatewayResponseDetail,
      gateway_token: nullableString,
      gateway_authorization_code: nullableString,
      gateway_authorization_response: nullableString,
      gateway_error_scope: nullableString,
      gateway_error_code: nullableString,
      gateway_error_message: nullableString,
      authorization_response: Type.String({ description: '100 approval, 200 decline' }),
      response_code: Type.Integer({ description: 'See GET /api/reference_data/v1/response_codes' }),
      avs_response: nullableString,
      cvv_response: nullableString,
      credit_card_bin: nullableString,
      credit_card_masked_number: nullableString,
      credit_card_brand: nullableString,
      credit_card_expiry: Type.Union([Type.String({ description: 'MMYYYY' }), Type.Null()]),
      bank_account_masked_number: nullableString,
      bank_account_routing: nullableString,
      bank_account_type: nullableString,
      bank_account_check_type: nullableString,
      sec_code: nullableString,
      orders: Type.Array(Type.Object({ identifier: Type.String(), number: nullableString, amount_cents: Type.Union([Type.Integer(), Type.Null()]) })),
      payments: Type.Array(Type.Object({ identifier: Type.String(), amount_cents: Type.Integer() })),
      parent_transaction: Type.Union([Type.String(), Type.Null()], { description: 'The prior transaction a capture, refund or void acts on.' }),
      processing_date: Type.String({ description: 'The processing day (YYYY-MM-DD) whose cut-off batches this transaction.' }),
      settlement: Type.Object({
        status: Type.String({ description: 'none, pending (in the open batch), batched, settled, returned, voided' }),
        batch: nullableString,
        cutoff_at: Type.String({ description: 'The cut-off after which a void is impossible.' }),
        settled_at: nullableString,
      }),
      authorization: Type.Union([
        Type.Object({
          authorized_cents: Type.Integer(),
          captured_cents: Type.Integer(),
          voided_cents: Type.Integer(),
          released_cents: Type.Integer(),
          remaining_cents: Type.Integer({ description: 'Still reserved and capturable.' }),
          hold_expires_at: Type.String(),
          status: Type.String({ description: 'open, captured, voided, released' }),
        }),
        Type.Null(),
      ]),
      refunded_cents: Type.Integer(),
      voided_by: nullableString,
      terminal: Type.Union([Emv, Type.Null()]),
    },
    { description: 'A gateway transaction. Never carries a full card or account number.' },
  ),
);

export const TransactionResponse = component(
  'OrderTransactionResponse',
  Type.Object({
    success: Type.Boolean(),
    transaction: Type.String({ description: 'Token of this transaction (for capture, refund, void).' }),
    authorization: nullableString,
    gateway_token: nullableString,
    order: Type.Union([Type.String(), Type.Null()], { description: 'The order identifier.' }),
    wallet: nullableString,
    credit_card: Type.Union([Type.String(), Type.Null()], { description: 'The card fund token of a card transaction; null for other tenders.' }),
    bank_account: Type.Union([Type.String(), Type.Null()], { description: 'The bank account fund token of an ACH/EFT transaction; null for other tenders.' }),
    gift_card: Type.Union([Type.String(), Type.Null()], { description: 'The gift card token of a gift card transaction; null for other tenders.' }),
    response_code: Type.Integer(),
    transactions: Type.Array(ref(OrderTransaction)),
  }),
);
export type TransactionResponse = Static<typeof TransactionResponse>;
export type OrderTransactionView = Static<typeof OrderTransaction>;
