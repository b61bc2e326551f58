import { formatAmount, formatMoney, parseMoney, type ParsedAmount } from '../../shared/money';

/**
 * The screen's one locale: amounts are shown and read in it, and the API is asked to word its
 * messages in it too (Accept-Language), so a notice never writes money another way than the screen.
 */
export const LOCALE = (typeof navigator !== 'undefined' && navigator.language) || 'en-US';

/** Amounts as the account's currency in the screen's locale (presentation only: the engine computes every amount). */
export function money(cents: number, currency: string): string {
  return formatMoney(cents, currency, { locale: LOCALE });
}

/** An amount as the cashier would type it ("12,50" in fr-CA), for fields and placeholders. */
export function amountInput(cents: number, currency: string): string {
  return formatAmount(cents, currency, LOCALE);
}

/** What the cashier typed, read with this locale's separators; ambiguous text is refused with a message. */
export function parseAmount(text: string, currency: string): ParsedAmount {
  return parseMoney(text, currency, LOCALE);
}

export function time(iso: string): string {
  return new Date(iso).toLocaleString(LOCALE, { dateStyle: 'medium', timeStyle: 'short' });
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

export function statusText(status: string): string {
  return { connected: 'Connected', busy: 'Busy', offline: 'Offline', disabled: 'Disabled' }[status] ?? status;
}
