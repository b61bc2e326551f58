/**
 * Money at the edge. Amounts are integer minor units everywhere; the reference API shows some of
 * them as formatted strings ("$1,234.56" on customers and invoice taxes) and payments as plain
 * decimals ("20.00"). Both come from the one money module (src/shared/money.ts).
 */
import { formatMoney as formatShared, type MoneyFormat } from '../../shared/money';

export { decimal } from '../../shared/money';

const REFERENCE: MoneyFormat = { locale: 'en-US', display: 'narrowSymbol' };
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code.toLowerCase());
}

/** The reference's formatted strings: en-US with the currency's narrow symbol ("$26,185.00", "-$123.45"). */
export function formatMoney(cents: number, currency: string): string {
  return formatShared(cents, currency, REFERENCE);
}
