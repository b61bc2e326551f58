import { numberFromText } from '../../shared/number-text';
import { freeFormProblem } from '../free-form';
import { maskFreeFormCardData } from '../security/card-data';
import { isCurrency } from './money';
import { normalizeCountry, normalizeProvince } from './countries';
import type { Problems } from './problems';
import { DATE_RE, EMAIL_RE, given, validDate } from './problems';

type Input = Record<string, unknown>;

/**
 * The bound every amount (and every whole number) of an import passes, sent or computed: a whole
 * number that a double holds exactly, from -(2^53 - 1) to 2^53 - 1. Beyond it, sums and balances
 * silently lose cents.
 */
export function isWholeAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * An amount the engine computed (a line's quantity x unit cost, an invoice's total, a pro-rated
 * amount) held to the bound a sent amount is: beyond it, the field is refused with the code a sent
 * amount gets (invalid_amount) and undefined is returned.
 */
export function computedAmount(value: number, problems: Problems, field: string, from: string): number | undefined {
  if (isWholeAmount(value)) return value;
  problems.add(field, 'invalid_amount', `computed from ${from} (${value}) is beyond the largest amount, ${Number.MAX_SAFE_INTEGER} minor units either way`);
  return undefined;
}

/**
 * Typed reads of one import record with the field rules every domain shares. JSON requests are
 * already type-checked by their schema; the CSV importer hands strings, so numbers and booleans
 * are also read from their text forms here. Every read that fails adds a problem naming the field;
 * '' and null read as "not given".
 */
export class Fields {
  constructor(
    readonly input: Input,
    readonly problems: Problems,
  ) {}

  has(name: string): boolean {
    return given(this.input[name] as unknown);
  }

  str(name: string, opts: { max?: number; pattern?: RegExp; patternText?: string; code?: string } = {}): string | undefined {
    const raw = this.input[name];
    if (!given(raw)) return undefined;
    if (typeof raw !== 'string' && typeof raw !== 'number') {
      this.problems.add(name, 'invalid_type', 'must be a string');
      return undefined;
    }
    const value = String(raw);
    if (opts.max !== undefined && value.length > opts.max) {
      this.problems.add(name, opts.code ?? 'too_long', `must be at most ${opts.max} characters`);
      return undefined;
    }
    if (opts.pattern && !opts.pattern.test(value)) {
      this.problems.add(name, opts.code ?? 'invalid_format', opts.patternText ?? 'has an invalid format');
      return undefined;
    }
    return value;
  }

  int(name: string, opts: { min?: number; max?: number; code?: string } = {}): number | undefined {
    const raw = this.input[name];
    if (!given(raw)) return undefined;
    const value = typeof raw === 'string' ? (numberFromText(raw.trim(), false) ?? raw) : raw;
    if (!isWholeAmount(value)) {
      this.problems.add(name, opts.code ?? 'invalid_integer', 'must be a whole number (minor currency units for amounts)');
      return undefined;
    }
    if ((opts.min !== undefined && value < opts.min) || (opts.max !== undefined && value > opts.max)) {
      this.problems.add(name, opts.code ?? 'out_of_range', `must be between ${opts.min ?? '-∞'} and ${opts.max ?? '∞'}`);
      return undefined;
    }
    return value;
  }

  num(name: string): number | undefined {
    const raw = this.input[name];
    if (!given(raw)) return undefined;
    const value = typeof raw === 'string' ? numberFromText(raw.trim(), true) : raw;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.problems.add(name, 'invalid_number', "must be a number written with digits and a '.' as the decimal point (2.5), no other sign or separator");
      return undefined;
    }
    return value;
  }

  bool(name: string): boolean | undefined {
    const raw = this.input[name];
    if (!given(raw)) return undefined;
    if (typeof raw === 'boolean') return raw;
    const text = String(raw).trim().toLowerCase();
    if (['true', 'y', 'yes', '1'].includes(text)) return true;
    if (['false', 'n', 'no', '0'].includes(text)) return false;
    this.problems.add(name, 'invalid_boolean', 'must be true or false');
    return undefined;
  }

  date(name: string): string | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    if (!DATE_RE.test(raw) || !validDate(raw)) {
      // 2026-02-30 has the shape: say it is the day that is not in the calendar.
      this.problems.add(name, 'invalid_date', DATE_RE.test(raw) ? `must be a date YYYY-MM-DD that exists (${raw} is not in the calendar)` : 'must be a date YYYY-MM-DD');
      return undefined;
    }
    return raw;
  }

  email(name: string): string | undefined {
    const raw = this.str(name, { max: 254 });
    if (raw === undefined) return undefined;
    if (!EMAIL_RE.test(raw)) {
      this.problems.add(name, 'invalid_email', 'must be an email address');
      return undefined;
    }
    return raw;
  }

  oneOf<T extends string>(name: string, values: readonly T[], code = 'invalid_value'): T | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    const found = values.find((v) => v.toLowerCase() === raw.toLowerCase());
    if (!found) this.problems.add(name, code, `must be one of ${values.join(', ')}`);
    return found;
  }

  currency(name: string): string | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    if (!isCurrency(raw)) {
      this.problems.add(name, 'invalid_currency', 'must be an ISO 4217 currency code');
      return undefined;
    }
    return raw.toLowerCase();
  }

  country(name: string): string | undefined {
    const raw = this.str(name);
    if (raw === undefined) return undefined;
    const code = normalizeCountry(raw);
    if (!code) this.problems.add(name, 'invalid_country', 'must be an ISO 3166-1 country code (alpha-2, e.g. CA)');
    return code;
  }

  /**
   * A province is checked against its country's ISO 3166-2 subdivisions when the country is known.
   * `kept` is the province stored before, given when only the country changes: it must belong to
   * the new country too (else the record would say Ontario, France).
   */
  province(name: string, country: string | undefined, kept?: string): string | undefined {
    const sent = this.str(name, { max: 60 });
    const raw = sent ?? kept;
    if (raw === undefined || !country) return sent;
    const code = normalizeProvince(country, raw);
    if (!code) {
      const why = sent === undefined ? `the stored ${name} ${raw} is not a subdivision of ${country}: send ${name} with the country` : `must be an ISO 3166-2 subdivision of ${country} (the part after "${country}-")`;
      this.problems.add(name, 'invalid_province', why);
      return undefined;
    }
    return sent === undefined ? undefined : code;
  }
}

/**
 * Keys not named by the schema: stored and returned for presentment. Free-form, so bounded
 * (src/engine/free-form.ts): a record breaking a bound is refused (412) naming the field; and card
 * data in them is masked whatever its key (maskFreeFormCardData).
 */
export function extraAttributes(input: Input, known: ReadonlySet<string>, problems: Problems, isKnown?: (key: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (known.has(key) || isKnown?.(key)) continue;
    if (value === undefined) continue;
    out[key] = value;
  }
  const problem = freeFormProblem(out);
  if (problem) {
    problems.add(problem.field, problem.code, problem.message);
    return out;
  }
  return maskFreeFormCardData(out);
}
