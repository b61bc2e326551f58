/**
 * Card data never rests in clear (DESIGN rule 5). These helpers are the one place that decides what
 * a full card number looks like and how it is masked, for logs, errors and exports alike.
 */

// The Luhn check is shared with the payment frame's bundle (src/shared/payment-fields.ts).
import { luhnValid } from '../../shared/payment-fields';
export { luhnValid };

/** 4895281000000006 -> 489528******0006 (first six, last four: what a receipt may show). */
export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 12) return '*'.repeat(digits.length);
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

// 13 to 19 digits of any script (full-width ４８９５ and Arabic-Indic ٤٨٩٥ read as a card to whoever
// sees them), not part of a longer digit run, grouped by up to four of: any white space (tabs and
// line breaks too, which the card parser strips as it strips spaces: "4895  2810  0000  0006"
// pays), invisible joiners (a zero-width space between groups), dots and middle dots, slashes,
// underscores, commas, asterisks, plus and equals signs, bars, tildes, semicolons, hashes, any
// dash, brackets and quotes. A number written 4895/2810/0000/0006, 4895+2810+0000+0006,
// (4895) 2810-0000-0006 or [4895]2810[0000]0006 is still the card's. Not a colon: a date and time
// ("2026-11-27 14:05:33") is 14 digits (colon-joined card groups are COLON_GROUPED's).
// A UUID is matched first and kept: its digit groups (an application id of all-digit groups) would
// otherwise read as a grouped card number and the id would no longer name anything.
const PAN_LIKE = /(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])|(?<!\p{Nd})(?:\p{Nd}[\s./_,*+=|~;#()[\]{}<>"'`\u00ab\u00bb\u2018\u2019\u201c\u201d\u00b7\u2219\u22c5\p{Pd}\u00ad\u200b-\u200d\u2060\ufeff]{0,4}){12,18}\p{Nd}(?!\p{Nd})/giu;
const UUID_LENGTH = 36;
/**
 * A card written in colon-joined groups of three to six digits ("4111:1111:1111:1111", Amex's
 * 4:6:5): only such groups, so a date and time (two-digit groups) never reads as one.
 */
const COLON_GROUPED = /(?<![\p{Nd}:])\p{Nd}{3,6}(?::\p{Nd}{3,6}){2,5}(?![\p{Nd}:])/gu;
const DIGIT = /\p{Nd}/u;

/** Each script's digits met so far, by code point: a request full of them costs one walk each. */
const digitValues = new Map<number, string>();

/**
 * A decimal digit of any script as 0-9. Unicode keeps each script's digits in a run of ten from
 * zero (mathematical digits in runs of ten after one another), so a digit's value is how far it
 * is from the start of its run, modulo ten.
 */
function asciiDigit(code: number): string {
  if (code >= 48 && code <= 57) return String.fromCharCode(code);
  let value = digitValues.get(code);
  if (value === undefined) {
    let start = code;
    while (DIGIT.test(String.fromCodePoint(start - 1))) start--;
    value = String((code - start) % 10);
    digitValues.set(code, value);
  }
  return value;
}

/** Whether a non-ASCII code point is a decimal digit (\p{Nd}), by code point: asked once each. */
const nonAsciiDigit = new Map<number, boolean>();
function isDigitCode(code: number): boolean {
  if (code < 128) return code >= 48 && code <= 57;
  let digit = nonAsciiDigit.get(code);
  if (digit === undefined) nonAsciiDigit.set(code, (digit = DIGIT.test(String.fromCodePoint(code))));
  return digit;
}

const BRACKETS = /[()[\]{}<>"'`\u00ab\u00bb\u2018\u2019\u201c\u201d]/u;
const BRACKET_OR_SEPARATOR = /[^\p{Nd}]+/gu;
/** Digit groups of 3 to 6, as cards are written (4-4-4-4, Amex's 4-6-5). */
const CARD_GROUPS = /^\p{Nd}{3,6}( \p{Nd}{3,6})*$/u;

/**
 * A grouped run that is not a card as a whole may hold one beside other numbers: a card and its
 * expiry ("4895 2810 0000 0006 12 30"), a reference before it. The longest whole groups that
 * pass as a card are masked, the rest kept. The run is read once, code point by code point (its
 * digit groups, their places in the run, their digits as 0-9), and only windows of a card's length
 * are checked: a body of digits and spaces (every 19 digits of it a run) must not cost the till
 * its next sale.
 */
function maskGroupedRun(match: string): string {
  // Brackets and quotes group a card as a phone number is grouped, "(4895) 2810-0000-0006": only
  // short groups. Across a long number they are prose, "INV122579377 (12000)", and a Luhn-valid
  // run there (one in ten) must not turn an invoice number into a mask.
  if (BRACKETS.test(match) && !CARD_GROUPS.test(match.replace(BRACKET_OR_SEPARATOR, ' ').trim())) return match;
  let whole = '';
  // Per digit group: where it starts and ends in the run, and its end in `whole`.
  const from: number[] = [];
  const to: number[] = [];
  const ends = [0];
  let inGroup = false;
  for (let i = 0; i < match.length; ) {
    const code = match.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    if (isDigitCode(code)) {
      if (!inGroup) from.push(i);
      whole += asciiDigit(code);
      inGroup = true;
    } else if (inGroup) {
      to.push(i);
      ends.push(whole.length);
      inGroup = false;
    }
    i += width;
  }
  // A run ends with a digit.
  to.push(match.length);
  ends.push(whole.length);
  if (issuerPlausible(whole, 0) && luhnValid(whole)) return maskPan(whole);
  const groups = from.length;
  for (let width = groups - 1; width >= 1; width--) {
    for (let first = 0; first + width <= groups; first++) {
      const start = ends[first]!;
      const end = ends[first + width]!;
      if (end - start < 13 || end - start > 19 || !issuerPlausible(whole, start) || !luhnWithin(whole, start, end)) continue;
      return `${match.slice(0, from[first])}${maskPan(whole.slice(start, end))}${match.slice(to[first + width - 1])}`;
    }
  }
  return match;
}

/**
 * Whether digits from `start` open as a payment card's can (ISO/IEC 7812's industry digit): cards
 * begin 1 (UATP), 3 to 6 or 8 (UnionPay's 81, RuPay's 82); a 2 is Mir's 2200-2204 or Mastercard's
 * 2221-2720. Never 0, 7 or 9. An ERP's invoice number "INV/2026/001#68520891" holds a Luhn-valid
 * run (about one in ten does), and masking it would change the number a customer pays by.
 */
function issuerPlausible(whole: string, start: number): boolean {
  const first = whole.charCodeAt(start) - 48;
  if (first === 0 || first === 7 || first === 9) return false;
  if (first !== 2) return true;
  const four = Number(whole.slice(start, start + 4));
  return (four >= 2200 && four <= 2204) || (four >= 2221 && four <= 2720);
}

/** Luhn over whole[start, end) (ASCII digits), without copying it out. */
function luhnWithin(whole: string, start: number, end: number): boolean {
  let sum = 0;
  let double = false;
  for (let i = end - 1; i >= start; i--) {
    let d = whole.charCodeAt(i) - 48;
    if (double) d = d > 4 ? 2 * d - 9 : 2 * d;
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/**
 * Characters redactPans has read since the process started. Masking is the costliest step a
 * request body goes through before its rules run; the tests read this to check that a body
 * refused for its size was not masked whole first.
 */
export const maskingStats = { characters: 0 };

/**
 * A security code named as such in free text ("cvv 917", "CVC2: 9731", "security code 917"): the
 * number beside it is masked, and a CVV typed next to it would otherwise rest in clear (it may
 * never be stored, DESIGN rule 5). Only after one of these words: a bare three-digit number is
 * a quantity or a reference.
 */
const NAMED_CVV = /\b(cvv2?|cvc2?|cid|csc|cv2|security\s+code)(\s*(?:is|[:=#.-])?\s*)\p{Nd}{3,4}(?!\p{Nd})/giu;
const MAY_NAME_CVV = /c[vis][vdc2]|security/i;

/** Replaces anything in free text that looks like a card number (and passes Luhn) by its mask, and a named security code by asterisks. */
export function redactPans(text: string): string {
  maskingStats.characters += text.length;
  let masked = text.replace(PAN_LIKE, (match) => (match.length === UUID_LENGTH && match[8] === '-' && match[13] === '-' ? match : maskGroupedRun(match)));
  if (masked.includes(':')) masked = masked.replace(COLON_GROUPED, (match) => maskGroupedRun(match));
  return MAY_NAME_CVV.test(masked) ? masked.replace(NAMED_CVV, (_m, name: string, between: string) => `${name}${between}***`) : masked;
}

/**
 * Request fields that carry card input on purpose: card and account numbers the engine parses (and
 * of which it keeps only what it may), PINs and CVVs it hashes or drops.
 */
const CARD_INPUT_FIELDS = ['card_number', 'account_number', 'payor_bank_account_number', 'routing_number', 'cvv', 'cvv2', 'cvc', 'pin', 'track', 'track1', 'track2',
  // The ecommerce API's (/api/v2) camelCase names for the same.
  'accountNumber', 'routingNumber', 'cardVerificationValue'];

/**
 * Fields that carry a number on purpose that is no card input: tokens, encoded file content (a
 * digit run inside base64 is not a card number, and masking it would break the file), and ids this
 * product issued and gets back: a register shift's token, a pay page's attempt id (random hex), a
 * lane's sync clock stamp (`<ms>.<counter>@<node>`, its 19 digits read as a card number). A digit
 * run in one that passes Luhn was masked, and the id no longer named anything (a cashier's refund on
 * a new shift was "not known"; a lane's edit merged on its wall clock).
 */
const ISSUED_FIELDS = new Set(['gateway_token', 'token', 'content', 'shift', 'attempt', 'stamp']);

/**
 * An issued id or token is left as it is (masking a digit run inside it would break it), but one
 * that is, whole, a card number (a page sending a card number as its attempt id, another vault's
 * "token" that is the number itself) would rest in clear: it is masked like free text. It then
 * names nothing, which is right: no id this product issues is a card number.
 */
const ISSUED_PAN_SHAPE = /^[\p{Nd}\s-]{13,25}$/u;
const isWholePan = (value: string) => ISSUED_PAN_SHAPE.test(value.trim()) && redactPans(value) !== value;

/**
 * Addresses the engine calls or hands out (a webhook's `url`, a pay link's, a frame's validation
 * URL): kept as sent, as issued ids are. A path segment such as a chat service's 19-digit webhook
 * id passes Luhn one time in ten, and masked, the deliveries (and the receiver's token in the URL)
 * went to another address. A URL that is, whole, a card number is still masked.
 */
const ADDRESS_FIELDS = ['url', 'link_url', 'validationUrl'];

/** Fields whose value is kept as sent unless it is, whole, a card number. */
const KEPT_AS_SENT = new Set([...ISSUED_FIELDS, ...ADDRESS_FIELDS]);

/** Request fields that carry a number on purpose: card input, issued ids and addresses. */
const NUMBER_FIELDS = new Set([...CARD_INPUT_FIELDS, ...KEPT_AS_SENT]);

/**
 * Request fields that carry a secret the engine only hashes or compares: an API key (a random hex
 * string holds a Luhn-valid digit run about once in 300), a password, a sign-in link's secret.
 * Masked, it no longer matches what was issued, and that credential can never authenticate.
 */
const SECRET_FIELDS = new Set(['apiKey', 'apiToken', 'key', 'api_key', 'password', 'link']);

/** Whether a field named `key` carries a card, account or routing number (or a PIN, CVV, token) on purpose. */
export const carriesNumberOnPurpose = (key: string): boolean => NUMBER_FIELDS.has(key);

/**
 * A card number sent as a JSON number (`"notes": 4895281000000006`) is taken as text by the
 * reference's coercion rules once validation runs, so it is masked here like text: it becomes the
 * masked string (a number field then refuses it). Any other number is left as it is.
 */
function maskedNumber(v: number): number | string {
  // 15 and 16 digits only (Amex, Visa, Mastercard, Discover): a 13-digit number is far more often
  // a time in milliseconds (a synced document's `updated_ms`) than a card, and must stay a number.
  if (!Number.isSafeInteger(v) || v < 1e14) return v;
  const text = String(v);
  const masked = redactPans(text);
  return masked === text ? v : masked;
}

/**
 * A free-form attribute's name is stored and exported like its value (a customer's extra JSON key,
 * a CSV file's extra column), so a card number used as a name is masked too. The object is rebuilt
 * in its key order only when a name changes; defineProperty keeps a `__proto__` key a plain key.
 */
function maskCardNumberKeys(o: Record<string, unknown>): boolean {
  const keys = Object.keys(o);
  if (!keys.some((k) => redactPans(k) !== k)) return false;
  const entries = keys.map((k) => [redactPans(k), o[k]] as const);
  for (const k of keys) delete o[k];
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return true;
}

/**
 * The engine's edge for free text (issue 13): a card number typed into a note, a reference, a name
 * or any other text of a request body is masked like a receipt shows it (first six, last four)
 * before anything stores or indexes it. Identifiers refuse the mask's `*`, so a card number sent
 * as an identifier is refused rather than stored. Changes the parsed body in place and returns it;
 * iterative, so a deeply nested body cannot overflow the stack here.
 */
export function maskCardNumbersInFreeText<T>(body: T): T {
  maskWalk(body, NUMBER_FIELDS, false);
  return body;
}

/**
 * maskCardNumbersInFreeText for a request body that has passed validation: answers whether
 * anything was masked, so that the edge validates the body again (a masked card number in an
 * identifier, or a card number sent as a JSON number in a number field, is then refused).
 */
export function maskRequestBody(body: unknown): boolean {
  return maskWalk(body, NUMBER_FIELDS, false);
}

/**
 * A document that arrives made (a lane's push to its hub, a hub's document at the chain's central
 * install) is stored as it is, so it is nobody's card input: nothing consumes a card number, CVV
 * or PIN in it and keeps only what it may, as the engine does with a request's. So it gets the
 * request body's rule without its card-input exemption: a card number is masked under any name
 * (`card_number` included), and the value under a CVV's or PIN's name becomes asterisks
 * (isCardSecret). Issued ids and tokens are kept, as in a request. Changes the document in place
 * and returns it.
 */
export function maskCardDataInDocument<T>(doc: T): T {
  maskWalk(doc, KEPT_AS_SENT, true);
  return doc;
}

/** A string or number masked: the same value when nothing in it is a card's. */
const maskedScalar = (v: string | number): string | number => (typeof v === 'string' ? redactPans(v) : maskedNumber(v));

/** The walk of both: `kept` names the fields whose values are left as they are. Answers whether anything changed. */
function maskWalk(body: unknown, kept: ReadonlySet<string>, secrets: boolean): boolean {
  let changed = false;
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v: unknown = node[i];
        if (typeof v === 'string' || typeof v === 'number') {
          const masked = maskedScalar(v);
          if (masked !== v) {
            node[i] = masked;
            changed = true;
          }
        } else if (v && typeof v === 'object') stack.push(v);
      }
    } else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (maskCardNumberKeys(o)) changed = true;
      for (const k of Object.keys(o)) {
        const v = o[k];
        if (KEPT_AS_SENT.has(k) && typeof v === 'string' && isWholePan(v)) {
          o[k] = redactPans(v);
          changed = true;
          continue;
        }
        if (kept.has(k) || SECRET_FIELDS.has(k)) continue;
        if (typeof v === 'string' || typeof v === 'number') {
          const masked = secrets && isCardSecret(k, String(v)) ? '*'.repeat(String(v).length) : maskedScalar(v);
          if (masked !== v) {
            o[k] = masked;
            changed = true;
          }
        } else if (v && typeof v === 'object') stack.push(v);
      }
    }
  }
  return changed;
}

/** Names a CVV, PIN or magnetic track goes by, compared without case, spaces, dashes or underscores. */
const CARD_SECRET_NAMES = new Set(['cvv', 'cvv2', 'cvc', 'cvc2', 'cid', 'csc', 'pin', 'pinblock', 'securitycode', 'cardsecuritycode', 'cardverificationvalue', 'cardverificationcode', 'track', 'track1', 'track2', 'track2data']);
/** Words that say a CVV or PIN inside a longer name (card_cvv, cvv_code, pinCode, card_pin, pin_number). */
const CARD_SECRET_WORDS = new Set(['cvv', 'cvv2', 'cvc', 'cvc2', 'csc', 'cvn', 'cvd', 'pin', 'pinblock', 'pincode', 'track1', 'track2']);
const nameWords = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/**
 * Whether a free-form value is a CVV, PIN or track by its name. A name that is one of them says so
 * of any value holding a digit; a longer name with one of their words (card_pin, cvv_code), of a
 * value of three digits or more (a count such as pin_failures: 3 is not a PIN); a bare
 * "verification" (a card's verification value), of exactly a CVV's three or four digits.
 */
function isCardSecret(key: string, value: string): boolean {
  const digits = value.match(/\p{Nd}/gu)?.length ?? 0;
  if (digits === 0) return false;
  if (CARD_SECRET_NAMES.has(key.toLowerCase().replace(/[\s_-]/g, ''))) return true;
  const words = nameWords(key);
  if (digits >= 3 && words.some((w) => CARD_SECRET_WORDS.has(w))) return true;
  const joined = words.join(' ');
  if (digits >= 3 && /\b(security code|verification (value|code|number))\b/.test(joined)) return true;
  return words.includes('verification') && /^\s*\p{Nd}{3,4}\s*$/u.test(value);
}

/**
 * Free-form values (a customer's or order's extra keys and `attributes`, kept as sent and sent
 * back in exports and webhooks) are nobody's card input, so nothing in them is a number on
 * purpose: every string is masked whatever its key (`card_number` and `token` included), and the
 * value under a CVV's or PIN's name becomes asterisks (isCardSecret: 3 or 4 digits cannot be told
 * from other numbers, so the name is what says it). Answers a masked copy.
 */
export function maskFreeFormCardData<T>(value: T): T {
  const mask = (key: string | null, v: unknown): unknown => {
    if (key !== null && (typeof v === 'number' || typeof v === 'string') && isCardSecret(key, String(v))) return '*'.repeat(String(v).length);
    if (typeof v === 'string') return redactPans(v);
    if (typeof v === 'number') return maskedNumber(v);
    if (Array.isArray(v)) return v.map((item) => mask(null, item));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      // defineProperty keeps a `__proto__` key a plain key, as the edge does.
      for (const [k, item] of Object.entries(v)) Object.defineProperty(out, redactPans(k), { value: mask(k, item), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return v;
  };
  return mask(null, value) as T;
}

const SENSITIVE_KEYS = new Set([
  'card_number',
  'number',
  'cvv',
  'cvv2',
  'cvc',
  'pin',
  'account_number',
  'payor_bank_account_number',
  'track',
  'track1',
  'track2',
  'authorization',
  'password',
  'api_key',
  'key',
  'accountnumber',
  'cardverificationvalue',
  'apikey',
]);

/** A deep copy fit for logs: sensitive keys replaced, card-like numbers in strings masked. */
export function redactForLog(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[deep]';
  if (typeof value === 'string') return redactPans(value);
  if (Array.isArray(value)) return value.map((v) => redactForLog(v, depth + 1));
  if (value && typeof value === 'object') {
    if (value instanceof Error) return { name: value.name, message: redactPans(value.message) };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SENSITIVE_KEYS.has(k.toLowerCase()) ? '[redacted]' : redactForLog(v, depth + 1);
    }
    return out;
  }
  return value;
}
