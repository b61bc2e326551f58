import type { AccountProfile } from '../account';
import type { SettlementBatch, SettlementException } from '../gateway';
import { addBusinessDays, sandboxFees } from '../gateway/settlement-books';
import { buildStatement, type Statement } from './statements';

/**
 * `sample=true` and the `sample` identifier: a made-up January of card sales, with a chargeback and
 * an ACH return, built by the same code as real statements so a client can try both formats and
 * its parsing before its own first month closes.
 */
export function sampleStatement(profile: AccountProfile): Statement {
  const currency = profile.currency;
  const batches: SettlementBatch[] = [];
  for (let day = 1; day <= 31; day++) {
    const date = `2026-01-${String(day).padStart(2, '0')}`;
    const sales = 40 + ((day * 7) % 23);
    const salesCents = sales * 2150 + day * 37;
    const refundsCents = day % 5 === 0 ? 4599 : 0;
    const token = `${date}-SAMPLEMA-${currency}`;
    const deposit = addBusinessDays(date, 1);
    const fees = sandboxFees({ token, payment_method_group: 'card', currency, batch_deposit_date: deposit }, { sales_count: sales, sales_cents: salesCents });
    const feesCents = fees.reduce((s, f) => s + f.fee_amount_cents, 0);
    const visa = Math.round(sales * 0.6);
    const amex = Math.round(sales * 0.1);
    batches.push({
      token,
      merchant_account_token: 'SAMPLEMA',
      processing_date: date,
      batch_close_date: date,
      batch_deposit_date: deposit,
      cutoff_at: `${date}T23:00:00.000Z`,
      closed_at: `${date}T23:00:00.000Z`,
      currency,
      deposit_currency: currency,
      payment_method_group: 'card',
      transaction_count: sales + (refundsCents ? 1 : 0),
      sales_count: sales,
      sales_cents: salesCents,
      refunds_count: refundsCents ? 1 : 0,
      refunds_cents: refundsCents,
      batch_net_amount_cents: salesCents - refundsCents,
      fee_withdrawal_amount_cents: 0,
      deposit_amount_cents: salesCents - refundsCents - feesCents,
      fees,
      fees_cents: feesCents,
      brands: {
        visa: { count: visa + (refundsCents ? 1 : 0), sales_count: visa, sales_cents: visa * 2150, refunds_count: refundsCents ? 1 : 0, refunds_cents: refundsCents },
        master: { count: sales - visa - amex, sales_count: sales - visa - amex, sales_cents: salesCents - (visa + amex) * 2150, refunds_count: 0, refunds_cents: 0 },
        american_express: { count: amex, sales_count: amex, sales_cents: amex * 2150, refunds_count: 0, refunds_cents: 0 },
      },
    });
  }
  const tx = (token: string, amount: number, method: string) => ({ token, transaction_reference: null, amount_in_cents: amount, currency, payment_method: method, settlement_token: 'SAMPLEMA', action: 'sale', processing_date: '2026-01-05', order: { identifier: 'ORD-1001', number: 'S-1001' } });
  const exceptions: SettlementException[] = [
    { exception_type: 'chargeback', exception_description: '10.4 Other Fraud - Card Absent Environment', exception_date: '2026-01-15', exception_amount_in_cents: 8366, reason_code: '10.4', return_code: '10.4', response_code: 100, exception_transaction: tx('SAMPLECB0000001', 8366, 'credit_card') },
    { exception_type: 'return', exception_description: 'R01 Insufficient funds', exception_date: '2026-01-08', exception_amount_in_cents: 7000, return_code: 'R01', response_code: 100, exception_transaction: tx('SAMPLEACH000001', 7000, 'bank_account') },
  ];
  return { ...buildStatement({ profile, month: '2026-01', currency, batches, earlier: [], exceptions }), identifier: 'sample' };
}
