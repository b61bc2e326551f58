import { fail, type ErrorDetail } from '../errors';

/**
 * Collects every broken field rule of one request before anything is written, so a client gets
 * all of them at once. The first problem's code is the error's code (what tests and clients
 * assert); each detail names its field as the client sent it.
 */
export class Problems {
  private readonly list: Array<Required<Pick<ErrorDetail, 'field' | 'code' | 'message'>>> = [];

  constructor(
    private readonly prefix = '',
    private readonly root?: Problems,
  ) {}

  add(field: string, code: string, message: string): void {
    const name = this.prefix + field;
    if (this.root) this.root.add(name, code, message);
    else this.list.push({ field: name, code, message: `${name} ${message}` });
  }

  /** Problems of a nested record (`line_item_attributes.2.`) that land in this list. */
  child(prefix: string): Problems {
    return new Problems(prefix, this);
  }

  /** Whether a field already has a problem: a value that did not parse is not also "required". */
  has(field: string): boolean {
    const name = this.prefix + field;
    return (this.root ?? this).list.some((p) => p.field === name);
  }

  get empty(): boolean {
    return (this.root ?? this).list.length === 0;
  }

  /** 412, the reference's status for import operations whose input breaks a rule. */
  throwIfAny(): void {
    const first = this.list[0];
    if (!first) return;
    const summary = this.list.length > 1 ? `${first.message} (and ${this.list.length - 1} more)` : first.message;
    throw fail.precondition(first.code, summary, this.list);
  }
}

export const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day (proleptic Gregorian, as Date reads it): checked by arithmetic, as every import line has dates. */
export function validDate(value: string): boolean {
  if (!DATE_RE.test(value)) return false;
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
}

/** Customer identifiers ("Alphanumeric" in the reference): letters and digits, with - _ . inside. */
export const KEY_RE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$/;

/**
 * Keys that are the ERP's own (invoice numbers such as `INV/2026/001`, payment identifiers such as
 * `CHQ 1234`; the reference sets no rule): any characters but control ones, no space at either
 * end, at most `max`. In a path they travel URL-encoded.
 */
export function freeKey(max: number): { pattern: RegExp; rule: string } {
  return {
    pattern: new RegExp(`^(?=.{1,${max}}$)[^\\s\\u0000-\\u001f](?:[^\\u0000-\\u001f]*[^\\s\\u0000-\\u001f])?$`),
    rule: `must be 1 to ${max} characters, no control characters, no space at either end`,
  };
}

/** Payment identifiers. */
export const PAYMENT_KEY = freeKey(100);

/**
 * An address as a mail server takes it, and as the API's JSON format check reads it: no spaces,
 * control characters or the characters that split or bracket addresses in a header (`<>,;:()"[]\`),
 * so what is shown in the back office is where the mail goes (`a>x<b@evil.test` would be sent to
 * b@evil.test under another name).
 */
export const EMAIL_RE = /^[^\s\p{Cc}@<>(),;:"[\]\\]+@[^\s\p{Cc}@<>(),;:"[\]\\]+\.[^\s\p{Cc}@<>(),;:"[\]\\]+$/u;

export const NOTES_MAX = 65_536;

/** Present and not blank: '' and null mean "not given" for optional import fields. */
export function given<T>(value: T | null | undefined | ''): value is T {
  return value !== undefined && value !== null && value !== '';
}
