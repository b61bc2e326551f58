/**
 * Tax by rate, one way for every figure that shows it (a sale, a receipt, a refund, X and Z), and
 * the shop's fixed letter for each of its tax rates.
 *
 * A receipt marks each line with its rate's letter and lists the tax per letter. The letter of a
 * rate is given once, the first time the shop uses the rate (the sample catalog's 0, 5 and 13% get
 * A, B, C), and never changes or moves to another rate: "A" means the same rate on every receipt
 * the shop ever prints, whatever rates a given receipt happens to hold.
 */
export interface TaxTotal {
  /** thousandths of a percent */
  tax_rate: number;
  taxable_cents: number;
  tax_cents: number;
}

export interface TaxedAmount {
  tax_rate: number;
  net_cents: number;
  tax_cents: number;
}

/** Sums amounts per tax rate, lowest rate first. Signed amounts add up as given (a refund is negative). */
export function taxesByRate(items: Iterable<TaxedAmount>): TaxTotal[] {
  const by = new Map<number, TaxTotal>();
  for (const i of items) {
    const e = by.get(i.tax_rate) ?? { tax_rate: i.tax_rate, taxable_cents: 0, tax_cents: 0 };
    e.taxable_cents += i.net_cents;
    e.tax_cents += i.tax_cents;
    by.set(i.tax_rate, e);
  }
  return [...by.values()].sort((a, b) => a.tax_rate - b.tax_rate);
}

/** A journal's tax list read back as amounts (with a sign: −1 for what went back). */
export function taxedAmounts(list: ReadonlyArray<TaxTotal>, sign: 1 | -1 = 1): TaxedAmount[] {
  return list.map((t) => ({ tax_rate: t.tax_rate, net_cents: sign * t.taxable_cents, tax_cents: sign * t.tax_cents }));
}

export interface TaxMark {
  tax_rate: number;
  mark: string;
}

/** The n-th letter (0 → A, 25 → Z, 26 → AA): a shop with more than 26 rates still gets a mark each. */
export function markLetter(index: number): string {
  let n = index;
  let out = '';
  do {
    out = String.fromCharCode(65 + (n % 26)) + out;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return out;
}

/** The marks with a letter added for each rate that has none yet (in the order given), or undefined when none was missing. */
export function withMarks(marks: ReadonlyArray<TaxMark>, rates: Iterable<number>): TaxMark[] | undefined {
  const next = [...marks];
  for (const rate of rates) {
    if (!next.some((m) => m.tax_rate === rate)) next.push({ tax_rate: rate, mark: markLetter(next.length) });
  }
  return next.length === marks.length ? undefined : next;
}

export function markOf(marks: ReadonlyArray<TaxMark>, rate: number): string {
  return marks.find((m) => m.tax_rate === rate)?.mark ?? '?';
}
