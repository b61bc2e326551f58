import type { OrderState } from '../../shared/schemas/backoffice';

export type { OrderState };

/** What the back office knows of a register sale: the register's own answer for it (`GET /api/pos/sales/{sale}`). */
export interface SaleLookup {
  id: string;
  number: string;
  /** The sale's status as the register keeps it (`Sale.status`): what the sale's own pages show. */
  status: OrderState;
  /** What the register gave back on it (`Sale.totals.refunded_cents`: its refunds and voids, cash included). */
  refunded_cents: number;
}

/**
 * The one rule for an order's state in the back office. A register sale's order is in its sale's
 * state, the register's status (`Sale.status`: open, paid, partially refunded, refunded, voided),
 * which the sale's pages show: never worked out again from the order's draft flag or its gateway
 * transactions (a cash sale has none; a voided card sale's transaction is cancelled, not
 * refunded). Any other order is a draft until published, then open, partially refunded or
 * refunded by what its payments gave back; so is a paid register sale whose card was refunded outside
 * the register.
 */
export function orderStateOf(order: { draft: boolean; amount_cents: number | null }, refundedCents: number, sale?: Pick<SaleLookup, 'status'>): OrderState {
  const byRefunds = (): OrderState => (order.amount_cents !== null && refundedCents >= order.amount_cents ? 'refunded' : 'partially_refunded');
  // A card refunded outside the register (the back office, an ERP) leaves the register's sale
  // "paid" (the register counts that money apart): the list must not say paid for money gone back.
  if (sale) return sale.status === 'paid' && refundedCents > 0 ? byRefunds() : sale.status;
  if (order.draft) return 'draft';
  if (refundedCents <= 0) return 'open';
  return byRefunds();
}
