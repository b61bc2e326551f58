import { Type, type Static } from '@sinclair/typebox';
import { component } from './components';

/**
 * The reference's Fund Sources, Transactions and Agreements tags: the account's own fund sources,
 * money requested from or sent to someone by email (request_money / send_money), and
 * pre-authorized debit agreements with the direct debits they allow. Money moves through the
 * order-transaction gateway (the sandbox processor), so each transaction that moved money names
 * its order transaction (`gateway_transaction`).
 */

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const FundSource = component(
  'FundSource',
  Type.Object({
    type: Type.Union([Type.Literal('bank_account'), Type.Literal('credit_card'), Type.Literal('balance')]),
    token: Type.String({ description: 'The fund token: `fund_token` when approving a transaction or an agreement.' }),
    name: Type.String({ description: 'Masked display name: the account\'s last four digits only.' }),
    state: Type.Union([Type.Literal('verified'), Type.Literal('unverified'), Type.Literal('invalid'), Type.Null()], {
      description: "A bank account's verification state; null for the balance (the account's own, which has no such state: the reference gives it for bank accounts only).",
    }),
  }),
);
export type FundSourceView = Static<typeof FundSource>;

export const VaultBankRequest = Type.Object({
  currency: Type.Optional(Type.Union(['usd', 'gbp', 'eur', 'cad', 'aud'].map((c) => Type.Literal(c)))),
  business_name: Type.String({ minLength: 1, maxLength: 100, description: 'Name of the account holder.' }),
  country: Type.Optional(Type.Union([Type.Literal('CA'), Type.Literal('US'), Type.Literal('AU')])),
  account_number: Type.String({ minLength: 4, maxLength: 34, description: 'Used once: only the last four digits and a keyed fingerprint are kept.' }),
  account_type: Type.Optional(Type.Union([Type.Literal('checking'), Type.Literal('savings')])),
  institution_number: Type.Optional(Type.String({ maxLength: 10, description: 'Canada: with branch_number.' })),
  branch_number: Type.Optional(Type.String({ maxLength: 10 })),
  routing_number: Type.Optional(Type.String({ maxLength: 20, description: 'United States: a 9-digit ABA number.' })),
  nickname: Type.Optional(Type.String({ maxLength: 100 })),
  address: Type.Optional(
    Type.Object({
      address_1: Type.Optional(Type.String({ maxLength: 100 })),
      city: Type.Optional(Type.String({ maxLength: 60 })),
      province: Type.Optional(Type.String({ maxLength: 40 })),
      postal_code: Type.Optional(Type.String({ maxLength: 20 })),
      country: Type.Optional(Type.Union([Type.Literal('US'), Type.Literal('CA')])),
    }),
  ),
});
export type VaultBankInput = Static<typeof VaultBankRequest>;

export const TRANSACTION_TYPES = ['request', 'send', 'direct_debit', 'direct_credit'] as const;
export type PayportTransactionType = (typeof TRANSACTION_TYPES)[number];

export const TRANSACTION_STATES = [
  'new',
  'wait_for_claim',
  'wait_for_request_approval',
  'wait_for_bank_account_verification',
  'rejected',
  'in_progress',
  'error',
  'nsfed',
  'cancelled',
  'completed',
  'completed_but_nsfed',
] as const;
export type PayportTransactionState = (typeof TRANSACTION_STATES)[number];

export const PayportTransactionRequest = Type.Object({
  transaction_type: Type.Union(TRANSACTION_TYPES.map((t) => Type.Literal(t)), {
    description: '`request`: ask `email` for money (they approve it with their fund). `send`: send money to `email` (approved from your fund). `direct_debit`: take money under an approved debit agreement with `email`. `direct_credit`: pay `email` at once from your fund (no approval) into the bank account their wallet holds (412 `recipient_has_no_bank_account` when it holds none).',
  }),
  amount_in_cents: Type.Integer({ minimum: 1, maximum: 99_999_999_99 }),
  email: Type.String({ format: 'email', maxLength: 254 }),
  message: Type.Optional(Type.String({ maxLength: 1000 })),
  transaction_reference: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  unique_reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Unique per account: the same request sent again answers the first transaction (a retry); another request under it is refused (412).' })),
  process_on: Type.Optional(Type.String({ format: 'date' })),
  auto_withdraw: Type.Optional(Type.Boolean()),
  fund_token: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'send and direct_credit: the fund the money leaves from (default your first bank account).' })),
  link_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
});
export type PayportTransactionInput = Static<typeof PayportTransactionRequest>;

export const PayportTransaction = component(
  'PayportTransaction',
  Type.Object({
    token: Type.String(),
    type: Type.Literal('transaction'),
    transaction_type: Type.Union([Type.Literal('request_money'), Type.Literal('send_money'), Type.Literal('direct_debit'), Type.Literal('direct_credit')]),
    amount_in_cents: Type.Integer(),
    currency: Type.String(),
    email: Type.String(),
    message: nullableString,
    state: Type.Union(TRANSACTION_STATES.map((s) => Type.Literal(s))),
    from_account: nullableString,
    to_account: nullableString,
    from_fund: nullableString,
    to_fund: nullableString,
    payment_method: Type.Union([Type.Literal('credit_card'), Type.Literal('bank_account'), Type.Null()]),
    settlement_token: nullableString,
    transaction_reference: nullableString,
    unique_reference: nullableString,
    link_url: nullableString,
    process_on: nullableString,
    created_by_user: Type.String(),
    auto_withdraw: Type.Boolean(),
    auto_withdrawal_token: nullableString,
    debit_agreement: nullableString,
    gateway_transaction: Type.Union([Type.String(), Type.Null()], { description: 'The order transaction that moved the money (GET /api/exports/transaction/{token}); null until then.' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);
export type PayportTransactionView = Static<typeof PayportTransaction>;

export const ApproveRequest = Type.Object({
  fund_token: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'The fund to use; omitted, your first bank account (GET /api/funds).' })),
});

export const AGREEMENT_STATES = ['pending', 'approved', 'rejected', 'cancelled', 'revoked'] as const;
export type AgreementState = (typeof AGREEMENT_STATES)[number];

export const AgreementRequest = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254, description: 'Recipient email address.' }),
  reference: Type.Optional(Type.String({ maxLength: 100 })),
  message: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type AgreementInput = Static<typeof AgreementRequest>;

export const RejectRequest = Type.Object({ rejection_reason: Type.Optional(Type.String({ maxLength: 500 })) });

export const Agreement = component(
  'DebitAgreement',
  Type.Object({
    token: Type.String(),
    type: Type.Literal('debit_agreement'),
    state: Type.Union(AGREEMENT_STATES.map((s) => Type.Literal(s))),
    email: Type.String(),
    name: nullableString,
    reference: nullableString,
    message: nullableString,
    rejection_reason: nullableString,
    created_by_user: Type.String(),
    created_by_account: Type.String(),
    fund: Type.Union([Type.String(), Type.Null()], { description: 'Display name of the fund an approved agreement debits.' }),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
);
export type AgreementView = Static<typeof Agreement>;

export const PageQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })) });
export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
export const TransactionLookupParams = Type.Object({ token_or_unique_reference: Type.String({ minLength: 1, maxLength: 100 }) });
