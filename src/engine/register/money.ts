import { fail } from '../errors';
import { MAX_PRICE_CENTS, MAX_QUANTITY, MAX_TENDER_CENTS } from '../../shared/schemas/register-common';

/**
 * The register's arithmetic, in integer minor units. Prices are before tax (tax is added on top);
 * each line's tax is computed on the line's own net amount and rounded half up to the cent, and a
 * sale's tax is the sum of its lines' taxes. Rates are kept as integers so nothing depends on
 * floating point: tax rates in thousandths of a percent (13% = 13_000, 8.875% = 8_875), discount
 * percentages in hundredths of a percent (10% = 1_000).
 */
export const TAX_SCALE = 100_000;
export const PERCENT_SCALE = 10_000;

/** The limits the schemas hold requests to (shared/schemas/register-common.ts). */
export { MAX_QUANTITY, MAX_TENDER_CENTS };
export const MAX_UNIT_PRICE = MAX_PRICE_CENTS;

/** numerator / denominator rounded half up, for non-negative integers (exact, through BigInt). */
export function roundHalfUp(numerator: number, denominator: number): number {
  if (numerator < 0 || denominator <= 0) throw new Error('roundHalfUp takes a non-negative numerator and a positive denominator');
  const n = BigInt(numerator);
  const d = BigInt(denominator);
  const q = n / d;
  const r = n - q * d;
  return Number(2n * r >= d ? q + 1n : q);
}

/** a * b / c rounded half up, exact for safe integers. */
export function mulDivHalfUp(a: number, b: number, c: number): number {
  const n = BigInt(a) * BigInt(b);
  const d = BigInt(c);
  const q = n / d;
  const r = n - q * d;
  return Number(2n * r >= d ? q + 1n : q);
}

/** A percentage as sent (13, 8.875) → thousandths of a percent; at most three decimals. */
export function taxRateFromPercent(percent: number, field = 'tax_rate'): number {
  const scaled = percent * 1000;
  const rounded = Math.round(scaled);
  if (!Number.isFinite(percent) || percent < 0 || percent > 100 || Math.abs(scaled - rounded) > 1e-6) {
    throw fail.invalid('invalid_tax_rate', `${field} must be a percentage from 0 to 100 with at most three decimals (13, 8.875)`, [{ field, message: 'a percentage, at most three decimals' }]);
  }
  return rounded;
}

export function taxRateToPercent(rate: number): number {
  return rate / 1000;
}

/** A discount percentage (10, 12.5) → hundredths of a percent; at most two decimals. */
export function discountFromPercent(percent: number, field = 'discount.percent'): number {
  const scaled = percent * 100;
  const rounded = Math.round(scaled);
  if (!Number.isFinite(percent) || percent <= 0 || percent > 100 || Math.abs(scaled - rounded) > 1e-6) {
    throw fail.invalid('invalid_discount', `${field} must be a percentage above 0 and at most 100, with at most two decimals`, [{ field, message: 'a percentage, at most two decimals' }]);
  }
  return rounded;
}

export type Discount = { kind: 'percent'; basis_points: number } | { kind: 'amount'; amount_cents: number };

export interface LineAmounts {
  /** unit price × quantity */
  gross_cents: number;
  discount_cents: number;
  /** gross − discount: what tax is computed on */
  net_cents: number;
  tax_cents: number;
  /** net + tax */
  total_cents: number;
}

/** `money` writes an amount for the reader of a refusal (the sale's currency, the asking screen's locale). */
export function priceLine(unitPriceCents: number, quantity: number, discount: Discount | null, taxRate: number, money: (minor: number) => string = String): LineAmounts {
  const gross = unitPriceCents * quantity;
  let discountCents = 0;
  if (discount?.kind === 'percent') discountCents = mulDivHalfUp(gross, discount.basis_points, PERCENT_SCALE);
  else if (discount?.kind === 'amount') discountCents = discount.amount_cents;
  if (discountCents > gross) {
    throw fail.invalid('discount_exceeds_line', `The discount (${money(discountCents)}) is more than the line's amount (${money(gross)})`, [{ field: 'discount', message: 'more than the line amount' }]);
  }
  const net = gross - discountCents;
  const tax = mulDivHalfUp(net, taxRate, TAX_SCALE);
  return { gross_cents: gross, discount_cents: discountCents, net_cents: net, tax_cents: tax, total_cents: net + tax };
}

/**
 * The part of a line's amount that `quantity` more returned units carry, when `before` units were
 * returned already: cumulative rounding, so the parts of a fully returned line add up to exactly the
 * line's amount, whatever the order of partial returns.
 */
export function returnedPart(amount: number, lineQuantity: number, before: number, quantity: number): number {
  const upTo = (q: number) => (q >= lineQuantity ? amount : mulDivHalfUp(amount, q, lineQuantity));
  return upTo(before + quantity) - upTo(before);
}

/**
 * Bills a cashier is likely to be handed for `due` cents: exact, the next whole unit, then the next
 * multiples of 5, 10, 20, 50 and 100 units (distinct, ascending, at most five), none past what one
 * tender takes.
 */
export function cashSuggestions(due: number): number[] {
  if (due <= 0) return [];
  const out = new Set<number>([due]);
  for (const step of [100, 500, 1000, 2000, 5000, 10000]) {
    const next = Math.ceil(due / step) * step;
    // Never more than cash handed over may be (MAX_TENDER_CENTS): a button the server would refuse.
    if ((next > due || step === 100) && next <= MAX_TENDER_CENTS) out.add(next);
  }
  return [...out].sort((a, b) => a - b).slice(0, 5);
}
