/**
 * Money at the edge. Amounts are integer minor units everywhere; the reference API shows some of
 * them as formatted strings ("$1,234.56" on customers and invoice taxes) and payments as plain
 * decimals ("20.00"). Formatters are cached per currency: exports format thousands of amounts.
 */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()));

export function isCurrency(code: string): boolean {
  return CURRENCIES.has(code.toLowerCase());
}

const digitsCache = new Map<string, number>();

/** Minor-unit digits of a currency (2 for USD, 0 for JPY). */
export function minorDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    d = new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(currency, d);
  }
  return d;
}

const currencyFormats = new Map<string, Intl.NumberFormat>();

/** "$26,185.00", "-$123.45": en-US with the currency's narrow symbol, as the reference shows. */
export function formatMoney(cents: number, currency: string): string {
  let f = currencyFormats.get(currency);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase(), currencyDisplay: 'narrowSymbol' });
    currencyFormats.set(currency, f);
  }
  return f.format(cents / 10 ** minorDigits(currency.toUpperCase()));
}

/** "20.00": the plain decimal the reference uses on payments. */
export function decimal(cents: number, currency: string): string {
  const digits = minorDigits(currency.toUpperCase());
  const negative = cents < 0;
  const abs = Math.abs(cents);
  if (digits === 0) return `${negative ? '-' : ''}${abs}`;
  const scale = 10 ** digits;
  const whole = Math.floor(abs / scale);
  const frac = String(abs % scale).padStart(digits, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}
