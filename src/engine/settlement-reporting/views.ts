import { dateInZone } from '../clock';
import type { RecordDoc } from '../records';
import type { SettlementBatch, SettlementException, TxData } from '../gateway';
import { brandOf } from '../gateway/settlement-books';
import { netOfFees } from '../gateway/settlement';
import type { settlementBankAccount } from '../account/whoami';

export interface BatchTransactionView {
  token: string;
  action: string;
  amount_cents: number;
  currency: string;
  transaction_reference: string | null;
  payment_method: string;
  card_brand: string;
  settlement_token: string;
  transaction_date: string;
  surcharge_cents: number;
  fx_account_currency: null;
  fx_currency: null;
  fx_amount_cents: null;
  fx_rate: null;
  orders: Array<{ identifier: string; number: string | null; amount_cents: number | null }>;
  payments: Array<{ identifier: string; display_identifier: string; amount_cents: number }>;
}

export function batchTransactionView(t: TxData, timeZone: string): BatchTransactionView {
  return {
    token: t.token,
    action: t.action,
    amount_cents: t.amount_cents,
    currency: t.currency,
    transaction_reference: t.transaction_reference,
    payment_method: t.payment_method,
    card_brand: brandOf(t),
    settlement_token: t.settlement_token,
    transaction_date: dateInZone(Date.parse(t.created_at), timeZone),
    surcharge_cents: 0,
    // No foreign exchange: the transaction settles in its own currency.
    fx_account_currency: null,
    fx_currency: null,
    fx_amount_cents: null,
    fx_rate: null,
    orders: t.order ? [{ identifier: t.order.identifier, number: t.order.number, amount_cents: t.order.amount_cents }] : [],
    payments: t.payments.map((p) => ({ identifier: p.identifier, display_identifier: p.identifier, amount_cents: p.amount_cents })),
  };
}

/** The settlement bank account as GET /api/whoami answers it (settlementBankAccount): masked, never a full number. */
export type DepositAccountView = ReturnType<typeof settlementBankAccount>;

export function batchView(rec: RecordDoc<SettlementBatch>, mid: string, transactions: BatchTransactionView[] | undefined, account: DepositAccountView) {
  const b = rec.data;
  return {
    token: b.token,
    merchant_account_token: b.merchant_account_token,
    mid,
    processing_date: b.processing_date,
    batch_close_date: b.batch_close_date,
    batch_deposit_date: b.batch_deposit_date,
    closed_at: b.closed_at,
    payment_method_group: b.payment_method_group,
    currency: b.currency,
    sales_count: b.sales_count,
    sales_cents: b.sales_cents,
    refunds_count: b.refunds_count,
    refunds_cents: b.refunds_cents,
    batch_net_amount_cents: netOfFees(b),
    fees_cents: b.fees_cents ?? 0,
    fee_withdrawal_amount_cents: b.fee_withdrawal_amount_cents,
    deposit_amount_cents: b.deposit_amount_cents,
    deposit_currency: b.deposit_currency,
    // Deposited into, and fees withdrawn from, the settlement bank account.
    deposit_routing_number: account.routing_number,
    deposit_account_number: account.masked_account_number,
    deposit_routing_account_hash: account.routing_account_hash,
    deposit_routing_account_hash_function: account.routing_account_hash_function,
    transaction_count: b.transaction_count,
    count_by_brand: Object.entries(b.brands ?? {})
      .sort(([a], [c]) => a.localeCompare(c))
      .map(([brand, v]) => ({ brand, ...v })),
    fees: b.fees.map((f) => ({
      ...f,
      fee_withdrawal_routing_number: account.routing_number,
      fee_withdrawal_account_number: account.masked_account_number,
      fee_routing_account_hash: account.routing_account_hash,
      fee_routing_account_hash_function: account.routing_account_hash_function,
    })),
    ...(transactions ? { transactions } : {}),
    watermark: rec.watermark,
  };
}
export type BatchView = ReturnType<typeof batchView>;

export function exceptionView(rec: RecordDoc<SettlementException>) {
  const e = rec.data;
  return {
    exception_type: e.exception_type,
    exception_description: e.exception_description,
    exception_date: e.exception_date,
    exception_amount_in_cents: e.exception_amount_in_cents,
    reason_code: e.reason_code ?? e.return_code,
    exception_transaction: { ...e.exception_transaction, order: e.exception_transaction.order ?? null },
    watermark: rec.watermark,
  };
}
export type ExceptionView = ReturnType<typeof exceptionView>;
