import { typedText } from './typed-text';

/**
 * Money as people read and type it. Amounts are integer minor units everywhere; this module is the
 * one place that turns them into text (Intl.NumberFormat, the currency's own minor digits) and text
 * back into them, in a given locale. The engine's edges (messages, the reference API's formatted
 * strings) and the screens both use it, so a screen and the notices beside it never disagree.
 */

export interface MoneyFormat {
  /** BCP 47 locale; default: the one commonly used with the currency (en-US for USD). */
  locale?: string | undefined;
  /** How the currency is shown; default `symbol` ("$ US" in fr-CA), `narrowSymbol` gives "$". */
  display?: 'symbol' | 'narrowSymbol' | 'code' | undefined;
}

/** Where no locale is given (API clients, logs), a currency reads as it does at home. */
const HOME: Record<string, string> = { USD: 'en-US', CAD: 'en-CA', EUR: 'en-IE', GBP: 'en-GB', AUD: 'en-AU' };

export function defaultLocale(currency: string): string {
  return HOME[currency.toUpperCase()] ?? 'en-US';
}

const digitsCache = new Map<string, number>();

/** Minor-unit digits of a currency: 2 for USD, 0 for JPY, 3 for KWD. */
export function minorDigits(currency: string): number {
  const code = currency.toUpperCase();
  let d = digitsCache.get(code);
  if (d === undefined) {
    d = new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(code, d);
  }
  return d;
}

const formats = new Map<string, Intl.NumberFormat>();

function currencyFormat(currency: string, options: MoneyFormat): Intl.NumberFormat {
  const code = currency.toUpperCase();
  const locale = options.locale ?? defaultLocale(code);
  const display = options.display ?? 'symbol';
  const key = `${locale}|${code}|${display}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { style: 'currency', currency: code, currencyDisplay: display });
    formats.set(key, f);
  }
  return f;
}

/** Minor units as a number of major units; never −0 (a zero amount has no sign). */
function major(minor: number, currency: string): number {
  const v = minor / 10 ** minorDigits(currency);
  return v === 0 ? 0 : v;
}

/** "$1,234.56", "1 234,56 $ US", "¥1,235": the currency's own minor digits, no negative zero. */
export function formatMoney(minor: number, currency: string, options: MoneyFormat = {}): string {
  return currencyFormat(currency, options).format(major(minor, currency));
}

/** "12,50" in fr-CA, "12.50" in en-US: an amount as the cashier would type it (no currency). */
export function formatAmount(minor: number, currency: string, locale: string, grouping = false): string {
  const d = minorDigits(currency);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: d, maximumFractionDigits: d, useGrouping: grouping }).format(major(minor, currency));
}

/** "20.00": the plain decimal the reference API uses on payments. */
export function decimal(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const negative = minor < 0;
  const abs = Math.abs(minor);
  if (digits === 0) return `${negative ? '-' : ''}${abs}`;
  const scale = 10 ** digits;
  return `${negative ? '-' : ''}${Math.floor(abs / scale)}.${String(abs % scale).padStart(digits, '0')}`;
}

// ---------------------------------------------------------------------------------------------
// Parsing what a cashier typed.

export type AmountProblem = 'empty' | 'not_an_amount' | 'negative' | 'ambiguous' | 'too_many_decimals' | 'too_large';
export type ParsedAmount = { ok: true; minor: number } | { ok: false; problem: AmountProblem; message: string };

export interface ParseOptions {
  allowNegative?: boolean;
  /** Largest amount accepted, in minor units (default 999,999,999: what the register's API takes). */
  max?: number;
}

const SPACES = /[\s\u00a0\u202f\u2009\u2007]/g;
const APOSTROPHES = /[’']/g;

interface Separators {
  /**
   * What reads as the decimal separator, as {@link typedText} writes it: the plain number format's
   * and, where it differs and is not the group mark, the currency format's. fr-CH shows money as
   * "1 234.56 $US" and plain numbers as "1 234,5": both "." and "," read as its decimal.
   */
  decimals: string[];
  /** The group separator, spaces of any kind written as ' ' and apostrophes as "'", as {@link typedText} writes it ("," for ar-EG's "٬"). */
  group: string;
  /** The decimal and group separators as the locale shows them in a field (formatAmount), for messages. */
  shownDecimal: string;
  shownGroup: string;
  /** Middle groups of 2 digits (en-IN: 12,34,567). */
  indian: boolean;
}

const separatorCache = new Map<string, Separators>();

/** A separator as it is compared with typed text: normalized as typed text is, spaces as ' ', apostrophes as "'". */
const asTyped = (mark: string) => typedText(mark).replace(SPACES, ' ').replace(APOSTROPHES, "'");

export function separators(locale: string, currency = 'USD'): Separators {
  const key = `${locale}|${currency.toUpperCase()}`;
  let s = separatorCache.get(key);
  if (!s) {
    const parts = new Intl.NumberFormat(locale).formatToParts(1234567.5);
    const moneyParts = currencyFormat(currency, { locale }).formatToParts(1234567.5);
    const rawGroup = parts.find((p) => p.type === 'group')?.value ?? ',';
    const shownDecimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
    const group = asTyped(rawGroup);
    const decimals = [...new Set([shownDecimal, moneyParts.find((p) => p.type === 'decimal')?.value ?? shownDecimal].map(asTyped))].filter((d) => d !== group);
    const intText = typedText(parts.filter((p) => p.type === 'integer' || p.type === 'group').map((p) => p.value).join(''));
    s = { decimals, group, shownDecimal, shownGroup: rawGroup, indian: /^\d{2}\D\d{2}\D\d{3}$/.test(intText) };
    separatorCache.set(key, s);
  }
  return s;
}

/** Everything the locale may write around an amount of this currency: "$", "$ US", "US$", "USD". */
function currencyMarks(currency: string, locale: string): string[] {
  const code = currency.toUpperCase();
  const marks = new Set<string>([code]);
  for (const display of ['symbol', 'narrowSymbol'] as const) {
    for (const p of currencyFormat(code, { locale, display }).formatToParts(1)) if (p.type === 'currency') marks.add(typedText(p.value).replace(SPACES, ' ').trim());
  }
  return [...marks].sort((a, b) => b.length - a.length);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What the cashier typed, as minor units, read with the locale's own decimal and group
 * separators: "12,50" is 1250 cents in fr-CA and refused in en-US, where "," groups thousands.
 * Whatever this module writes in a locale (formatMoney, formatAmount) reads back here in that
 * locale: fr-CH shows money with "." and plain numbers with ",", so both read as its decimal;
 * ar-EG writes "١٬٢٣٤٫٥٠" (see {@link typedText}, which reads every typed number).
 * Anything that could mean two different amounts is refused with a message saying how to type it
 * (never guessed): a "." in fr-CA ("12.50" or "1.234"), "1,234" in fr-CA (1 234 or 1,23?),
 * "12,50" in en-US. Spaces of any kind and apostrophes ("1’234.50", Swiss) group thousands in
 * every locale where they are not the decimal. Full-width digits and signs ("１２．５０") are read
 * as the ASCII ones.
 */
export function parseMoney(typed: string, currency: string, locale: string, options: ParseOptions = {}): ParsedAmount {
  const text = typedText(typed);
  const code = currency.toUpperCase();
  const digits = minorDigits(code);
  const sep = separators(locale, code);
  const example = formatAmount(1250 * 10 ** Math.max(0, digits - 2), code, locale);
  const thousands = formatAmount(1234 * 10 ** digits, code, locale, true).split(sep.shownDecimal)[0]!;
  const bad = (problem: AmountProblem, message: string): ParsedAmount => ({ ok: false, problem, message });

  let s = text.replace(SPACES, ' ').trim();
  if (!s) return bad('empty', `Type an amount such as ${example}.`);
  for (const mark of currencyMarks(code, locale)) s = s.replace(new RegExp(escapeRe(mark), 'gi'), ' ');
  s = s.trim();
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  if (/^[-−]/.test(s)) {
    negative = true;
    s = s.slice(1).trim();
  } else if (/[-−]$/.test(s)) {
    negative = true;
    s = s.slice(0, -1).trim();
  }
  s = s.replace(APOSTROPHES, "'");
  if (!/^\d[\d.,' ]*$/.test(s) || !/\d$/.test(s)) return bad('not_an_amount', `Type an amount such as ${example}.`);
  if (negative && !options.allowNegative) return bad('negative', 'The amount cannot be negative.');

  const spaceGroups = asTyped(sep.shownGroup) === ' ';
  const clear = `Type the ${digits ? `cents after "${sep.shownDecimal}" (${example})` : `amount without decimals (${example})`}${spaceGroups ? ', thousands with a space or nothing' : `, thousands with "${sep.shownGroup}" or nothing`} (${thousands}).`;
  const ambiguous = () => bad('ambiguous', `"${text.trim()}" could mean two amounts here. ${clear}`);

  // The decimal part: after one of the locale's decimal separators, which must be the last separator.
  let whole = s;
  let fraction = '';
  const at = Math.max(...sep.decimals.map((d) => s.lastIndexOf(d)));
  const point = at >= 0 ? s[at]! : '';
  if (point && s.indexOf(point) === at) {
    whole = s.slice(0, at);
    fraction = s.slice(at + 1);
    if (!/^\d+$/.test(fraction)) return bad('not_an_amount', `Type an amount such as ${example}.`);
  }
  // A separator the locale does not use ("." in fr-CA): a decimal point or a thousands group?
  // Spaces and apostrophes group wherever they are not the decimal.
  const groupChars = new Set([' ', "'", sep.group].filter((c) => !sep.decimals.includes(c)));
  for (const ch of whole.replace(/\d/g, '')) if (!groupChars.has(ch)) return ch === "'" ? bad('not_an_amount', `Type an amount such as ${example}.`) : ambiguous();
  if (fraction.length > digits) {
    // "1,234" in fr-CA: a thousand written the en-US way, or too many decimals? Not after a lone
    // zero: "0,035" is no thousands group in any locale (see below), only decimals too many.
    if (fraction.length === 3 && /^[1-9]\d{0,2}$/.test(whole) && (point === ',' || point === '.')) return ambiguous();
    return bad('too_many_decimals', digits === 0 ? `${code} amounts have no decimals. ${clear}` : `${code} amounts have at most ${digits} decimals. ${clear}`);
  }
  if (/[^\d]/.test(whole)) {
    const groups = whole.split(/[^\d]/);
    const mixed = new Set(whole.replace(/\d/g, '')).size > 1;
    const middleOk = (g: string) => g.length === 3 || (sep.indian && g.length === 2);
    // A thousands group never follows a lone 0 ("0,500" is not 500): such a number is refused as ambiguous.
    const valid = !mixed && groups.length > 1 && /^[1-9]\d{0,2}$/.test(groups[0]!) && groups[groups.length - 1]!.length === 3 && groups.slice(1, -1).every(middleOk);
    // "12,50" in en-US is a decimal comma, not a thousands group: refuse rather than read 1250.
    if (!valid) return sep.group === ' ' && !/[.,]/.test(whole) ? bad('not_an_amount', `Type an amount such as ${example}.`) : ambiguous();
  }
  const intDigits = whole.replace(/\D/g, '');
  if (intDigits.length > 12) return bad('too_large', 'That amount is too large.');
  const minor = Number(intDigits) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  if (minor > (options.max ?? 999_999_999)) return bad('too_large', `That amount is too large: at most ${formatMoney(options.max ?? 999_999_999, code, { locale })}.`);
  return { ok: true, minor: negative && minor !== 0 ? -minor : minor };
}

/**
 * A percentage typed the locale's way ("12,5" in fr-CA), from 0 to 100, with at most two decimals,
 * or three for a tax rate (Québec's QST is 9,975 %; 8.875 % in New York City). Read as an amount
 * of a currency with as many minor digits, so the locale's separators are read as for money.
 */
export function parsePercent(text: string, locale: string, decimals: 2 | 3 = 2): { ok: true; percent: number } | { ok: false; message: string } {
  const example = decimals === 3 ? `${new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(9.975)} or 13` : `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(12.5)} or 10`;
  const scale = 10 ** decimals;
  const r = parseMoney(typedText(text).replace(/%/g, ''), decimals === 3 ? 'KWD' : 'USD', locale, { max: 100 * scale });
  if (r.ok) return { ok: true, percent: r.minor / scale };
  if (r.problem === 'too_large') return { ok: false, message: 'A percentage is at most 100.' };
  return { ok: false, message: `Type a percentage such as ${example} (at most ${decimals === 3 ? 'three' : 'two'} decimals).` };
}

// ---------------------------------------------------------------------------------------------
// Rules about amounts the register and the screens share.

/**
 * Cash handed over "far above" what is due, so that it is asked to be confirmed before the drawer
 * opens: ten times the balance or more, and change of at least 100 major units (a 100 note for a
 * coffee is normal; 1 250 for 12,50 is a slip of the decimal separator).
 */
/** Cash handed over for a balance: what pays the sale, and the change given back (the register's rule and the screen's preview). */
export function cashSplit(tenderedMinor: number, dueMinor: number): { applied: number; change: number } {
  const applied = Math.min(tenderedMinor, dueMinor);
  return { applied, change: tenderedMinor - applied };
}

export function cashFarAboveDue(tenderedMinor: number, dueMinor: number, currency: string): boolean {
  const hundred = 100 * 10 ** minorDigits(currency);
  return tenderedMinor >= dueMinor * 10 && tenderedMinor - dueMinor >= hundred;
}

/**
 * A decimal quantity times an amount in minor units, rounded half away from zero, computed on the
 * quantity as it was written (0.285, not the binary 0.28499999...): 0.285 × 100 is 29, where the
 * float product rounds to 28.
 */
export function decimalTimesMinor(quantity: number, minor: number): number {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(quantity));
  if (!m || !Number.isSafeInteger(minor)) {
    const exact = quantity * minor;
    return Math.sign(exact) * Math.round(Math.abs(exact)) || 0;
  }
  const fraction = m[3] ?? '';
  const scale = fraction.length - Number(m[4] ?? 0);
  let product = BigInt(`${m[2]}${fraction}`) * BigInt(Math.abs(minor));
  if (scale < 0) product *= 10n ** BigInt(-scale);
  const unit = 10n ** BigInt(Math.max(0, scale));
  const whole = product / unit;
  const rounded = 2n * (product - whole * unit) >= unit ? whole + 1n : whole;
  const negative = (m[1] === '-') !== minor < 0;
  return rounded === 0n ? 0 : Number(negative ? -rounded : rounded);
}
