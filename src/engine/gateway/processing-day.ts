import { addDays, DAY_MS } from '../clock';
import { BANK_RETURN_DAYS } from './sandbox/test-data';
import type { GatewayContext } from './context';

/**
 * The processing day: card transactions made before the day's cut-off (local time, the account's
 * `processing_cutoff` in its `timezone`) belong to that day's settlement batch, which is transmitted
 * at the cut-off; transactions after it belong to the next day. A void is possible only before the
 * cut-off of the transaction's processing day.
 */
export interface ProcessingDay {
  /** YYYY-MM-DD */
  date: string;
  /** The instant (ms) the day's batch is transmitted. */
  cutoffAt: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Local wall-clock parts of an instant in a zone. */
export function localParts(ms: number, timeZone: string): { date: string; minutes: number; offsetMs: number } {
  const parts = formatter(timeZone).formatToParts(ms);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const y = get('year');
  const mo = get('month');
  const d = get('day');
  const h = get('hour');
  const mi = get('minute');
  const s = get('second');
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const date = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  return { date, minutes: h * 60 + mi, offsetMs: asUtc - Math.floor(ms / 1000) * 1000 };
}

/** The instant at which the local wall clock in `timeZone` shows `date` `hhmm`. */
export function zonedInstant(date: string, hhmm: string, timeZone: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  const wall = Date.parse(`${date}T00:00:00Z`) + ((h ?? 0) * 60 + (m ?? 0)) * 60_000;
  // Two passes settle the offset across a DST change; a wall time that does not exist (the spring
  // gap) lands one hour later, which is what a clock-driven cut-off should do.
  let guess = wall - localParts(wall, timeZone).offsetMs;
  guess = wall - localParts(guess, timeZone).offsetMs;
  return guess;
}

const dayCache = new Map<string, { from: number; to: number; date: string }>();

/** The local calendar date of an instant, cached for the day (every card payment asks, for expiry). */
export function localDate(ms: number, timeZone: string): string {
  const c = dayCache.get(timeZone);
  if (c && ms >= c.from && ms < c.to) return c.date;
  const date = localParts(ms, timeZone).date;
  dayCache.set(timeZone, { from: zonedInstant(date, '00:00', timeZone), to: zonedInstant(addDays(date, 1), '00:00', timeZone), date });
  return date;
}

function cutoffMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/**
 * Processing days for one account setting. The current day is cached: every sale asks, and the
 * answer only changes at a cut-off.
 */
export class ProcessingCalendar {
  private cache: { timeZone: string; cutoff: string; from: number; day: ProcessingDay } | undefined;

  dayOf(ms: number, timeZone: string, cutoff: string): ProcessingDay {
    const c = this.cache;
    if (c && c.timeZone === timeZone && c.cutoff === cutoff && ms >= c.from && ms < c.day.cutoffAt) return c.day;
    const local = localParts(ms, timeZone);
    const date = local.minutes >= cutoffMinutes(cutoff) ? addDays(local.date, 1) : local.date;
    const day = { date, cutoffAt: zonedInstant(date, cutoff, timeZone) };
    const previousCutoff = zonedInstant(addDays(date, -1), cutoff, timeZone);
    this.cache = { timeZone, cutoff, from: previousCutoff, day };
    return day;
  }

  /** The cut-off instant of the processing day `days` after `date`. */
  cutoffAfter(date: string, days: number, timeZone: string, cutoff: string): number {
    return zonedInstant(addDays(date, days), cutoff, timeZone);
  }
}

/** The processing day of an instant, in the account's time zone and cut-off. */
export function processingDay(ctx: GatewayContext, nowMs: number): ProcessingDay {
  const p = ctx.account.profile();
  return ctx.calendar.dayOf(nowMs, p.timezone, p.processing_cutoff);
}

/** When an authorization made now releases its hold (the account's `authorization_hold_days`). */
export function holdExpiry(ctx: GatewayContext, nowMs: number): number {
  return nowMs + ctx.account.profile().authorization_hold_days * DAY_MS;
}

export { DAY_MS };

/**
 * Until when the payer's bank may still return a bank sale (R01 and the like come back days after
 * it settled): the cut-off of its processing day's BANK_RETURN_DAYS-th day after. 0 for what no
 * bank can return (cards, gift cards, money sent out).
 */
export function bankReturnableUntil(ctx: GatewayContext, t: { payment_method: string; action: string; processing_date: string }): number {
  if (t.payment_method !== 'bank_account' || t.action !== 'sale') return 0;
  const p = ctx.account.profile();
  return ctx.calendar.cutoffAfter(t.processing_date, BANK_RETURN_DAYS, p.timezone, p.processing_cutoff);
}
