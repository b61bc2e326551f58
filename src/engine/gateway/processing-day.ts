import { addDays, DAY_MS } from '../clock';
import type { AccountProfile } from '../account/profile';
import { BANK_RETURN_DAYS } from './sandbox/test-data';
import type { GatewayContext } from './context';

/**
 * The processing day: card transactions made before the day's cut-off (local time, the account's
 * `processing_cutoff` in its `timezone`) belong to that day's settlement batch, which is transmitted
 * at the cut-off; transactions after it belong to the next day. A void is possible only before the
 * cut-off of the transaction's processing day.
 *
 * A change of the cut-off or the time zone takes effect from the next processing day, as the card
 * processors apply a new cut-off from the next batch: the day open when it changed keeps its
 * cut-off (`processing_day_kept`). Otherwise a day whose batch the old cut-off already closed would
 * take new transactions under the new one (the closed batch's totals would change after it was
 * transmitted), and a day still open would be cut twice, at the old cut-off for what it held and
 * at the new one for what came later.
 */
export interface ProcessingDay {
  /** YYYY-MM-DD */
  date: string;
  /** The instant (ms) the day's batch is transmitted. */
  cutoffAt: number;
}

/** What processing days are counted by: the account's zone and cut-off, and the day a change of them left open. */
export type ProcessingSetting = Pick<AccountProfile, 'timezone' | 'processing_cutoff' | 'processing_day_kept'>;

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
 * Processing days for the account's setting. The current day is cached: every sale asks, and the
 * answer only changes at a cut-off. It answers for the present and later (the kept day stands for
 * every instant before its cut-off): what is past is stamped on the transactions and batches.
 */
export class ProcessingCalendar {
  private cache: { timeZone: string; cutoff: string; keptAt: number; from: number; day: ProcessingDay } | undefined;

  dayOf(ms: number, s: ProcessingSetting): ProcessingDay {
    const { timezone: timeZone, processing_cutoff: cutoff, processing_day_kept: kept } = s;
    const keptAt = kept?.cutoff_at ?? 0;
    const c = this.cache;
    if (c && c.timeZone === timeZone && c.cutoff === cutoff && c.keptAt === keptAt && ms >= c.from && ms < c.day.cutoffAt) return c.day;
    let day: ProcessingDay;
    let from: number;
    if (kept && ms < kept.cutoff_at) {
      day = { date: kept.date, cutoffAt: kept.cutoff_at };
      from = -Infinity;
    } else {
      const local = localParts(ms, timeZone);
      let date = local.minutes >= cutoffMinutes(cutoff) ? addDays(local.date, 1) : local.date;
      // A later cut-off or a zone to the west can name the kept day (or an earlier one) again: the
      // first day of the new setting is the day after it, however long that makes it.
      if (kept && date <= kept.date) date = addDays(kept.date, 1);
      day = { date, cutoffAt: zonedInstant(date, cutoff, timeZone) };
      const previous = addDays(date, -1);
      from = kept && previous <= kept.date ? kept.cutoff_at : Math.max(zonedInstant(previous, cutoff, timeZone), kept?.cutoff_at ?? -Infinity);
    }
    this.cache = { timeZone, cutoff, keptAt, from, day };
    return day;
  }

  /** The cut-off instant of the processing day `days` after `date`. */
  cutoffAfter(date: string, days: number, s: ProcessingSetting): number {
    const target = addDays(date, days);
    const kept = s.processing_day_kept;
    if (kept && target === kept.date) return kept.cutoff_at;
    return zonedInstant(target, s.processing_cutoff, s.timezone);
  }
}

/**
 * `processing_day_kept` after the account's setting goes from `before` to `after` at `nowMs`: on a
 * change of zone or cut-off, the day open then, counted the old way (a day an earlier change kept
 * stays kept).
 */
export function dayKeptOnChange(before: ProcessingSetting, after: Pick<ProcessingSetting, 'timezone' | 'processing_cutoff'>, nowMs: number): AccountProfile['processing_day_kept'] {
  if (after.timezone === before.timezone && after.processing_cutoff === before.processing_cutoff) return before.processing_day_kept;
  const open = new ProcessingCalendar().dayOf(nowMs, before);
  return { date: open.date, cutoff_at: open.cutoffAt };
}

/** The processing day of an instant, in the account's time zone and cut-off. */
export function processingDay(ctx: GatewayContext, nowMs: number): ProcessingDay {
  return ctx.calendar.dayOf(nowMs, ctx.account.profile());
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
  return ctx.calendar.cutoffAfter(t.processing_date, BANK_RETURN_DAYS, ctx.account.profile());
}
