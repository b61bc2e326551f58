/** Amounts as the account's currency, in the browser's locale (presentation only: the engine computes every amount). */
const formatters = new Map<string, Intl.NumberFormat>();

export function money(cents: number, currency: string): string {
  const code = currency.toUpperCase();
  let f = formatters.get(code);
  if (!f) {
    f = new Intl.NumberFormat(navigator.language || 'en-US', { style: 'currency', currency: code });
    formatters.set(code, f);
  }
  return f.format(cents / 100);
}

/** What the cashier typed ("20", "20.5", "$1,020.05") as minor units; undefined when it is not an amount. */
export function parseAmount(text: string): number | undefined {
  const clean = text.replace(/[\s$€£,]/g, '');
  if (!/^[0-9]{1,7}(\.[0-9]{0,2})?$/.test(clean)) return undefined;
  const [whole, frac = ''] = clean.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

export function time(iso: string): string {
  return new Date(iso).toLocaleString(navigator.language || 'en-US', { dateStyle: 'medium', timeStyle: 'short' });
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
