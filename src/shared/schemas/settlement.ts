import { Type, type Static } from '@sinclair/typebox';
import { component, ref } from './components';
import { Cents, ExportPage, ExportQuery, Watermark } from './common';

/** The reference's Settlement Reporting shapes, with Laneway's added figures (all money in minor units). */
const Fee = Type.Object({
  token: Type.String(),
  fee_type: Type.Union([Type.Literal('interchange'), Type.Literal('payfac'), Type.Literal('network'), Type.Literal('processor')]),
  included_in_batch_deposit: Type.Boolean({ description: 'true: taken from this deposit (the sandbox); false: withdrawn separately' }),
  fee_withdrawal_date: Type.String({ format: 'date' }),
  fee_amount_cents: Cents,
  fee_currency: Type.String(),
  fee_withdrawal_routing_number: Type.Union([Type.String(), Type.Null()], { description: "The routing number of the account fees are withdrawn from: the settlement bank account's, as GET /api/whoami answers it (`settlement_bank_accounts[].routing_number`); null when none is on file." }),
  fee_withdrawal_account_number: Type.Union([Type.String({ pattern: '^X*[0-9]{0,4}$' }), Type.Null()], { description: "That account's number masked as GET /api/whoami masks it (`masked_account_number`, last four digits at most), never the full number; null when none is on file." }),
  fee_routing_account_hash: Type.Union([Type.String(), Type.Null()], { description: "That account's routing and account number hash, as GET /api/whoami answers it (`routing_account_hash`); null: no full account number is kept here to hash." }),
  fee_routing_account_hash_function: Type.Union([Type.String(), Type.Null()], { description: 'The hash function of fee_routing_account_hash; null when there is no hash.' }),
});

const BatchTransaction = Type.Object({
  token: Type.String(),
  action: Type.String({ description: 'sale, capture, refund or credit; refunds and credits subtract from the deposit' }),
  amount_cents: Cents,
  currency: Type.String(),
  transaction_reference: Type.Union([Type.String(), Type.Null()]),
  payment_method: Type.String(),
  card_brand: Type.String(),
  settlement_token: Type.String(),
  transaction_date: Type.String({ format: 'date' }),
  surcharge_cents: Cents,
  fx_account_currency: Type.Union([Type.String(), Type.Null()], { description: 'Always null: Laneway converts no currency (a transaction settles in its own currency, `currency`).' }),
  fx_currency: Type.Union([Type.String(), Type.Null()], { description: 'Always null (no currency conversion).' }),
  fx_amount_cents: Type.Union([Type.Integer(), Type.Null()], { description: 'Always null (no currency conversion).' }),
  fx_rate: Type.Union([Type.String(), Type.Null()], { description: 'Always null (no currency conversion).' }),
  orders: Type.Array(Type.Object({ identifier: Type.String(), number: Type.Union([Type.String(), Type.Null()]), amount_cents: Type.Union([Cents, Type.Null()]) })),
  payments: Type.Array(Type.Object({ identifier: Type.String(), display_identifier: Type.String(), amount_cents: Cents })),
});

const Volume = { count: Type.Integer(), sales_count: Type.Optional(Type.Integer()), sales_cents: Cents, refunds_count: Type.Optional(Type.Integer()), refunds_cents: Cents };

export const SettlementBatchView = component(
  'SettlementBatch',
  Type.Object({
    token: Type.String({ description: '`<processing date>-<settlement token>-<currency>` (`-2`... after an early close)' }),
    merchant_account_token: Type.String({ description: 'The settlement token (GET /api/whoami): card merchant account, bank processor or lanes processor' }),
    mid: Type.String(),
    processing_date: Type.String({ format: 'date' }),
    batch_close_date: Type.String({ format: 'date' }),
    batch_deposit_date: Type.String({ format: 'date', description: 'The next business day after the processing day' }),
    closed_at: Type.String({ format: 'date-time' }),
    payment_method_group: Type.String(),
    currency: Type.String(),
    sales_count: Type.Integer(),
    sales_cents: Cents,
    refunds_count: Type.Integer(),
    refunds_cents: Cents,
    batch_net_amount_cents: Type.Integer({ description: 'Amount less fees (the reference\'s definition): sales and captures, less refunds and credits, less fees_cents' }),
    fees_cents: Cents,
    fee_withdrawal_amount_cents: Cents,
    deposit_amount_cents: Type.Integer({ description: 'What the deposit account gets: batch_net_amount_cents less fee_withdrawal_amount_cents (fees withdrawn apart, none in the sandbox); negative is a withdrawal' }),
    deposit_currency: Type.String(),
    deposit_routing_number: Type.Union([Type.String(), Type.Null()], { description: "The deposit account's routing number: the settlement bank account's, as GET /api/whoami answers it (`settlement_bank_accounts[].routing_number`); null when none is on file." }),
    deposit_account_number: Type.Union([Type.String({ pattern: '^X*[0-9]{0,4}$' }), Type.Null()], { description: "The deposit account's number masked as GET /api/whoami masks it (`masked_account_number`, last four digits at most), never the full number; null when none is on file." }),
    deposit_routing_account_hash: Type.Union([Type.String(), Type.Null()], { description: "The deposit account's routing and account number hash, as GET /api/whoami answers it (`routing_account_hash`); null: no full account number is kept here to hash." }),
    deposit_routing_account_hash_function: Type.Union([Type.String(), Type.Null()], { description: 'The hash function of deposit_routing_account_hash; null when there is no hash.' }),
    transaction_count: Type.Integer(),
    count_by_brand: Type.Array(Type.Object({ brand: Type.String(), ...Volume })),
    fees: Type.Array(Fee),
    transactions: Type.Optional(Type.Array(BatchTransaction)),
    exceptions: Type.Optional(Type.Array(Type.Object({ exception_type: Type.String(), exception_amount_in_cents: Cents }, { additionalProperties: true }), { description: "Returns and chargebacks of this batch's transactions (shaped as GET .../settlement/exceptions answers them); with the transactions only" })),
    watermark: Watermark,
  }),
);

export const SettlementExceptionView = component(
  'SettlementException',
  Type.Object({
    exception_type: Type.Union([Type.Literal('chargeback'), Type.Literal('return'), Type.Literal('reject')]),
    exception_description: Type.String(),
    exception_date: Type.String({ format: 'date' }),
    exception_amount_in_cents: Cents,
    reason_code: Type.String({ description: 'ACH return code (R01) or card chargeback reason (10.4)' }),
    exception_transaction: Type.Object({
      token: Type.String(),
      transaction_reference: Type.Union([Type.String(), Type.Null()]),
      amount_in_cents: Cents,
      currency: Type.String(),
      payment_method: Type.String(),
      settlement_token: Type.String(),
      action: Type.String(),
      processing_date: Type.String({ format: 'date' }),
      order: Type.Union([Type.Object({ identifier: Type.String(), number: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
    }),
    watermark: Watermark,
  }),
);

export const BatchesQuery = Type.Composite([
  ExportQuery,
  Type.Object({ include_transactions: Type.Optional(Type.Boolean({ default: true, description: 'false: leave out each batch\'s `transactions` (a busy day holds thousands)' })) }),
]);

export const BatchesAnswer = Type.Object({ batches: ExportPage(ref(SettlementBatchView)) });
/** The export convention, but `list` defaults to true: the reference answers exceptions as an array. */
export const ExceptionsQuery = Type.Composite([
  Type.Omit(ExportQuery, ['list']),
  Type.Object({ list: Type.Optional(Type.Boolean({ default: true, description: 'true (the default, as the reference answers): an array; false: keyed by watermark.' })) }),
]);

export const ExceptionsAnswer = Type.Object({ exceptions: ExportPage(ref(SettlementExceptionView)) });

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date', description: 'yyyy-mm-dd (a day that exists)' });

export const StatementsQuery = Type.Composite([
  ExportQuery,
  Type.Object({
    sample: Type.Optional(Type.Boolean({ description: 'true: answer the sample statement only' })),
    mid: Type.Optional(Type.String({ maxLength: 64, description: 'The MID or any settlement token of this account' })),
    enddate_from: Type.Optional(Day),
    enddate_to: Type.Optional(Day),
  }),
]);
export type StatementsQuery = Static<typeof StatementsQuery>;

export const MonthlyStatementSummary = component(
  'MonthlyStatement',
  Type.Object({
    identifier: Type.String(),
    start_date: Type.String({ format: 'date' }),
    end_date: Type.String({ format: 'date' }),
    statement_date: Type.String({ format: 'date' }),
    merchant_account_token: Type.String(),
    merchant_account_identifier: Type.String({ description: 'The MID' }),
    currency: Type.String(),
    net_cents: Type.Integer({ description: "The month's batch deposits" }),
    watermark: Watermark,
  }),
);
export const StatementsAnswer = Type.Object({ statements: ExportPage(ref(MonthlyStatementSummary)) });

const Row = Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer(), Type.Null()]));
export const MonthlyStatementDocument = component(
  'MonthlyStatementDocument',
  Type.Object({
    identifier: Type.String(),
    start_date: Type.String({ format: 'date' }),
    end_date: Type.String({ format: 'date' }),
    statement_date: Type.String({ format: 'date' }),
    merchant_account_token: Type.String(),
    merchant_account_identifier: Type.String(),
    currency: Type.String(),
    merchant: Type.Object({ name: Type.String(), address: Type.Array(Type.String()), timezone: Type.String() }),
    opening_in_transit_cents: Type.Integer({ description: 'Deposits of earlier months paid in this one' }),
    closing_in_transit_cents: Type.Integer({ description: "This month's deposits paid after it" }),
    deposited_in_period_cents: Type.Integer({ description: 'opening + totals.net_cents - closing' }),
    totals: Type.Record(Type.String(), Type.Integer(), { description: 'net_cents is the sum of the daily deposits' }),
    daily: Type.Array(Row),
    batches: Type.Array(Row),
    fees: Type.Array(Row),
    exceptions: Type.Array(Row),
    volume_by_brand: Type.Array(Row),
    volume_by_tender: Type.Array(Row),
  }),
);

export const StatementParams = Type.Object({
  statement_identifier: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z]+)?$' }),
  format: Type.String({ minLength: 1, maxLength: 8, description: '`pdf` or `json`' }),
});
