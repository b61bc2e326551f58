import { addDays } from '../clock';
import { CHARGEBACK_REASON, FEE_SCHEDULE } from './sandbox/test-data';
import type { TxData } from './transaction-record';
import { isOutgoing } from '../../shared/money-moves';

/**
 * What a batch keeps beside its totals, for the settlement reports: sales and refunds by card brand
 * (and tender), the sandbox's fees, and the deposit date. Kept on the batch as it closes, so a month's
 * statement reads about thirty batches, never the month's transactions.
 */
export interface BrandVolume {
  count: number;
  sales_count: number;
  sales_cents: number;
  refunds_count: number;
  refunds_cents: number;
}

export interface BatchFee {
  token: string;
  fee_type: 'interchange' | 'processor';
  fee_amount_cents: number;
  fee_currency: string;
  fee_withdrawal_date: string;
  included_in_batch_deposit: boolean;
}

export interface BatchBooks {
  brands?: Record<string, BrandVolume>;
  /** Sales that pay fees (not fee-exempt). */
  fee_basis?: { sales_count: number; sales_cents: number };
  fees_cents?: number;
}

/** The brand a report files a transaction under: the card's, or the tender for bank and gift. */
export function brandOf(t: Pick<TxData, 'card' | 'payment_method'>): string {
  if (t.card?.brand) return t.card.brand;
  return t.payment_method === 'bank_account' ? 'ach' : t.payment_method === 'gift_card' ? 'gift_card' : 'other';
}

/** The date `days` business days (Monday to Friday) after `date`. */
export function addBusinessDays(date: string, days: number): string {
  let d = date;
  for (let left = days; left > 0; ) {
    d = addDays(d, 1);
    const dow = new Date(`${d}T00:00:00Z`).getUTCDay();
    if (dow !== 0 && dow !== 6) left -= 1;
  }
  return d;
}

/** Half up, in integer arithmetic (no floating-point cents). */
const percentOf = (cents: number, basisPoints: number) => Math.floor((cents * basisPoints + 5000) / 10000);

/** The batch's fees for its fee basis (recomputed as each transaction joins). */
export function sandboxFees(batch: { token: string; payment_method_group: string; currency: string; batch_deposit_date: string }, basis: { sales_count: number; sales_cents: number }): BatchFee[] {
  const fee = (fee_type: BatchFee['fee_type'], cents: number): BatchFee => ({
    token: `${batch.token}-${fee_type}`,
    fee_type,
    fee_amount_cents: cents,
    fee_currency: batch.currency,
    fee_withdrawal_date: batch.batch_deposit_date,
    included_in_batch_deposit: true,
  });
  if (basis.sales_count === 0) return [];
  if (batch.payment_method_group === 'bank') return [fee('processor', basis.sales_count * FEE_SCHEDULE.bank_per_debit_cents)];
  return [fee('interchange', percentOf(basis.sales_cents, FEE_SCHEDULE.interchange_basis_points)), fee('processor', basis.sales_count * FEE_SCHEDULE.card_per_sale_cents)];
}

/** Adds a transaction to a batch's brand volumes and fee basis. */
export function addToBooks(books: BatchBooks, t: TxData): void {
  const brand = brandOf(t);
  const v = (books.brands ??= {})[brand] ?? { count: 0, sales_count: 0, sales_cents: 0, refunds_count: 0, refunds_cents: 0 };
  const next = { ...v, count: v.count + 1 };
  if (isOutgoing(t.action)) {
    next.refunds_count += 1;
    next.refunds_cents += t.amount_cents;
  } else {
    next.sales_count += 1;
    next.sales_cents += t.amount_cents;
    if (!t.fee_exempt) {
      const b = books.fee_basis ?? { sales_count: 0, sales_cents: 0 };
      books.fee_basis = { sales_count: b.sales_count + 1, sales_cents: b.sales_cents + t.amount_cents };
    }
  }
  books.brands = { ...books.brands, [brand]: next };
}

export function chargebackDescription(): { description: string; reason_code: string } {
  return { description: `${CHARGEBACK_REASON.code} ${CHARGEBACK_REASON.description}`, reason_code: CHARGEBACK_REASON.code };
}
