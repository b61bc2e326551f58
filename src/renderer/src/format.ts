import { defaultLocale, formatAmount, formatMoney, minorDigits, parseMoney, parsePercent as parsePercentIn, type ParsedAmount } from '../../shared/money';
import { typedText } from '../../shared/typed-text';

/**
 * The screen's one locale: amounts are shown and read in it, and the API is asked to word its
 * messages in it too (Accept-Language), so a notice never writes money another way than the screen.
 */
export const LOCALE = (typeof navigator !== 'undefined' && navigator.language) || 'en-US';

/**
 * A file's size in the screen's locale: bytes under 1 KB ("14 bytes", "14 octets"; a 14-byte file
 * read "0 KB"), else kilobytes with one decimal ("1.4 kB", "1,4 ko").
 */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return new Intl.NumberFormat(LOCALE, { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(bytes);
  return new Intl.NumberFormat(LOCALE, { style: 'unit', unit: 'kilobyte', maximumFractionDigits: 1 }).format(bytes / 1024);
}

/** Amounts as the account's currency in the screen's locale (presentation only: the engine computes every amount). */
export function money(cents: number, currency: string): string {
  return formatMoney(cents, currency, { locale: LOCALE });
}

/**
 * An amount short enough for a chart's axis ("1,2 M $ US", "$350K"): a full one ("1 234 567,89 $ US")
 * is wider than the axis and was cut to its last characters, every tick reading "0,00 $ US".
 */
export function moneyShort(cents: number, currency: string): string {
  return new Intl.NumberFormat(LOCALE, { style: 'currency', currency, notation: 'compact', minimumFractionDigits: 0, maximumFractionDigits: 1 }).format(cents / 10 ** minorDigits(currency));
}

/** An amount as the cashier would type it ("12,50" in fr-CA), for fields and placeholders. */
export function amountInput(cents: number, currency: string): string {
  return formatAmount(cents, currency, LOCALE);
}

/** What the cashier typed, read with this locale's separators; ambiguous text is refused with a message. */
export function parseAmount(text: string, currency: string): ParsedAmount {
  return parseMoney(text, currency, LOCALE);
}

export function parsePercent(text: string, decimals: 2 | 3 = 2): ReturnType<typeof parsePercentIn> {
  return parsePercentIn(text, LOCALE, decimals);
}

/** A percentage for reading ("12,5 %" in fr-CA, "12.5%" in en-US). */
export function percentText(percent: number): string {
  return new Intl.NumberFormat(LOCALE, { style: 'percent', maximumFractionDigits: 4 }).format(percent / 100);
}

/**
 * What stays of a digits-only field's text (a cashier code, a count): its digits, full-width
 * ("６１６０") and Arabic-Indic ("٩٤٣٩") ones read as 0-9 rather than dropped with the rest.
 */
export function typedDigits(text: string): string {
  return typedText(text).replace(/[^0-9]/g, '');
}

/**
 * A whole number typed in a field (a quantity): its digits read as 0-9, or null for anything else.
 * Never its digits picked out of the text: "1,5" is not 15.
 */
export function parseWholeNumber(text: string): number | null {
  const t = typedText(text).trim();
  return /^[0-9]+$/.test(t) ? Number(t) : null;
}

/** A number field's text as typed, full-width and Arabic-Indic digits and signs ("１，５", "٢") as ASCII, bidi marks dropped, nothing else. */
export const typedNumber = (text: string): string => typedText(text);

/** A product code or barcode as typed: trimmed, full-width letters and digits read as ASCII (a code is ASCII only). */
export function typedCode(text: string): string {
  return typedText(text).trim();
}

/** A quantity for reading ("1 234,5" in fr-CA, "1,234.5" in en-US). */
export function quantityText(quantity: number): string {
  return new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 4 }).format(quantity);
}

/**
 * A quantity typed the locale's way ("1,5" in fr-CA, "1,250" in en-US), with at most three
 * decimals: read as an amount of a three-decimal currency, so its separators are read as money's.
 */
export function parseQuantity(text: string): { ok: true; quantity: number } | { ok: false; message: string } {
  const r = parseMoney(text, 'KWD', LOCALE, { max: 999_999_999_999 });
  if (r.ok && r.minor > 0) return { ok: true, quantity: r.minor / 1000 };
  const example = new Intl.NumberFormat(LOCALE).format(1.5);
  return { ok: false, message: r.ok ? 'The quantity must be more than zero.' : `Type a quantity such as 2 or ${example} (at most three decimals).` };
}

/** A percentage as this locale writes it in a field ("12,5"). */
export function percentInput(percent: number): string {
  return new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 3, useGrouping: false }).format(percent);
}

/**
 * The shop's time zone (the account's, from /api/status), once read. The engine counts days in it
 * (processing days, Z periods, due dates), so a screen shows times in it too: a back office read
 * from another zone must not put a sale of the 28th on the 27th beside a batch of the 28th.
 */
let shopZone: string | undefined;
const readerZone = (() => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
})();

export function setShopTimeZone(zone: string | undefined): void {
  try {
    // An unknown zone name would throw in every format below: keep the reader's then.
    if (zone) new Intl.DateTimeFormat('en-US', { timeZone: zone });
    shopZone = zone;
  } catch {
    shopZone = undefined;
  }
}

/** The zone times are shown in, when it is not the reader's own (then its name is shown with them). */
const otherZone = () => (shopZone && shopZone !== readerZone ? shopZone : undefined);

/**
 * A calendar day in the screen's locale ("Mar 5, 2026", "5 mars 2026"): a date (YYYY-MM-DD) is
 * that day wherever the reader is; a timestamp is the shop's day of it.
 */
export function dayText(iso: string): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(iso);
  const at = new Date(dateOnly ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(at.getTime())) return iso;
  const zone = dateOnly ? 'UTC' : otherZone();
  return at.toLocaleDateString(LOCALE, { dateStyle: 'medium', ...(zone ? { timeZone: zone } : {}) });
}

/** A moment, in the shop's time zone; named ("EST", "UTC") when the reader's computer is in another. */
export function time(iso: string): string {
  const zone = otherZone();
  if (!zone) return new Date(iso).toLocaleString(LOCALE, { dateStyle: 'medium', timeStyle: 'short' });
  return new Date(iso).toLocaleString(LOCALE, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: zone, timeZoneName: 'short' });
}

/**
 * A sentence with its one full stop: one that ends with a time ("made 28 nov 2026, 3:56 a.m." in
 * es-MX and en-CA) or a message that brings its own ends there, not in "a.m..".
 */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

const ACTIVITY: Record<string, string> = {
  idle: 'Ready',
  waiting_for_card: 'Insert, tap or swipe the card',
  reading: 'Reading the card…',
  pin: 'The customer is entering their PIN',
  manual_entry: 'The card number is being keyed in',
  tip: 'The customer is choosing a tip',
  authorizing: 'Authorizing…',
  signature: 'The customer is signing on the terminal',
  result: 'The terminal is showing the result',
  setup: 'The terminal is being set up',
};

export function activityText(activity: string): string {
  return ACTIVITY[activity] ?? activity;
}

/** A gateway transaction's action and state as a person says them (the API keeps the reference's values). */
const TX_ACTION: Record<string, string> = { verify: 'Verification', authorize: 'Authorization', capture: 'Capture', sale: 'Sale', void: 'Void', refund: 'Refund', credit: 'Credit' };
const TX_STATE: Record<string, string> = { completed: 'Completed', declined: 'Declined', in_progress: 'In progress', cancelled: 'Cancelled', completed_but_nsfed: 'Returned (insufficient funds)' };
export const transactionActionText = (action: string | null | undefined): string => (action ? (TX_ACTION[action] ?? action) : '');
export const transactionStateText = (state: string): string => TX_STATE[state] ?? state.replace(/_/g, ' ');

/**
 * An order's or a register sale's state in words: the engine decides it (`state` on the orders
 * list, `status` on a sale, the same value for a register sale); every screen says it this way.
 */
const ORDER_STATE: Record<string, string> = { draft: 'Draft', open: 'Open', paid: 'Paid', partially_refunded: 'Partly refunded', refunded: 'Refunded', voided: 'Voided' };
export const orderStateText = (state: string): string => ORDER_STATE[state] ?? state.replace(/_/g, ' ');

/**
 * What was taken off a payment (its `refunds[].kind`) in words: the node's name, the past tense for
 * the Received card, and what happened to the money for the node's line.
 */
const TAKEN_OFF: Record<string, { name: string; done: string; how: string }> = {
  refund: { name: 'Refund', done: 'Refunded', how: 'refunded to the payer' },
  void: { name: 'Void', done: 'Voided', how: 'voided to the payer' },
  chargeback: { name: 'Chargeback', done: 'Charged back', how: "charged back by the cardholder's bank" },
  return: { name: 'Bank return', done: 'Returned', how: "returned by the payer's bank" },
};
export const takenOffText = (kind: string) => TAKEN_OFF[kind] ?? { name: kind, done: kind, how: kind };

/** Several taken off a payment in words: "Refunded", "3 refunds", or "Refunded and charged back" when they differ in kind. */
export function takenOffSummary(kinds: readonly string[]): string {
  const distinct = [...new Set(kinds)];
  if (distinct.length <= 1) return kinds.length > 1 && distinct[0] === 'refund' ? `${kinds.length} refunds` : takenOffText(distinct[0] ?? 'refund').done;
  const words = distinct.map((k, i) => (i === 0 ? takenOffText(k).done : takenOffText(k).done.toLowerCase()));
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** A settlement exception's kind in words (the API keeps `chargeback`, `return`, `reject`). */
export const exceptionTypeText = (type: string): string => ({ chargeback: 'Chargeback', return: 'Bank return', reject: 'Rejected' })[type] ?? type;

export function statusText(status: string): string {
  return { connected: 'Connected', busy: 'Busy', offline: 'Offline', disabled: 'Disabled' }[status] ?? status;
}

/** How a tender that did not pay reads in the sale's list: what happened, not a raw state. */
export function tenderStatusText(t: { status: string; error: { code: string } | null }): string {
  if (t.status === 'approved') return '';
  if (t.status === 'pending') return 'in progress';
  if (t.status === 'declined') return 'declined';
  if (t.status === 'reversed') return 'reversed, not charged';
  switch (t.error?.code) {
    case 'cancelled':
      return 'cancelled';
    case 'lane_offline':
    case 'lane_not_found':
    case 'terminal_unavailable':
      return 'terminal offline';
    case 'timeout':
      return 'no card presented';
    case 'card_removed':
      return 'card removed too early';
    case 'terminal_unconfirmed':
      return 'not confirmed, reversed';
    case 'interrupted':
      return 'interrupted';
    default:
      return 'did not go through';
  }
}

/** The card dialog's title for an outcome: a cancel or an offline terminal is not a card "not approved". */
export function cardOutcomeTitle(outcome: { approved: boolean; code: string | null }): string {
  if (outcome.approved) return 'Card approved';
  switch (outcome.code) {
    case 'declined':
      return 'Card declined';
    case 'cancelled':
      return 'Card payment cancelled';
    case 'lane_offline':
    case 'lane_not_found':
    case 'terminal_unavailable':
    case 'device_busy':
      return 'Terminal not available';
    case 'timeout':
      return 'No card presented';
    case 'card_removed':
      return 'Card removed too early';
    case 'network':
      return 'Payment not sent';
    default:
      return 'Card payment did not go through';
  }
}

/** Outcomes after which the terminal itself cannot take a card now: trying a card again is not the next step. */
export function terminalDown(code: string | null): boolean {
  return code === 'lane_offline' || code === 'lane_not_found' || code === 'terminal_unavailable';
}

/**
 * An amount the API sends as a plain decimal ("1234.50", always a dot: the reference's payment
 * views) in minor units, to show it in this screen's locale; undefined when it is not one.
 */
export function fromDecimal(text: string | null | undefined, currency: string): number | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec((text ?? '').trim());
  if (!m) return undefined;
  const parsed = parseMoney(`${m[2]}${m[3] ? `.${m[3]}` : ''}`, currency, 'en-US');
  return parsed.ok ? (m[1] ? -parsed.minor : parsed.minor) : undefined;
}

/**
 * An amount of a reconciliation record ("CA$1,234.50", "$112.00": the reference's shape, which the
 * engine always writes in en-US) in minor units, to show it in this screen's locale; undefined
 * when it is not one (an empty cell: nothing on that side).
 */
export function fromReconAmount(text: string | null | undefined, currency: string): number | undefined {
  if (!text?.trim()) return undefined;
  const parsed = parseMoney(text, currency, 'en-US', { allowNegative: true, max: Number.MAX_SAFE_INTEGER });
  return parsed.ok ? parsed.minor : undefined;
}

/**
 * An amount the API sends already formatted ("$1.30": the reference's invoice taxes), written by
 * the server in the currency's home locale, back in minor units to show it in this screen's locale.
 */
export function fromFormatted(text: string | null | undefined, currency: string): number | undefined {
  const parsed = parseMoney(text ?? '', currency, defaultLocale(currency), { allowNegative: true });
  return parsed.ok ? parsed.minor : undefined;
}

/**
 * A time of day as people type it ("22:30", "22 h 30" in fr-CA, "22h", "10:30 pm", "2230") as the
 * 24-hour HH:MM the API takes; null when it is not one.
 */
export function parseTimeOfDay(text: string): string | null {
  const t = typedText(text).trim().toLowerCase().replace(/\s+/g, ' ');
  const m = /^(\d{1,2})(?:\s?(?:h|:|\.)\s?(\d{2})?|(\d{2}))?\s?(am|pm|a\.m\.|p\.m\.)?$/.exec(t);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? m[3] ?? '0');
  const half = m[4]?.replace(/\./g, '');
  if (half) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return null;
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}
