/**
 * "Now" for the whole engine. Nothing in the engine reads the wall clock directly, so tests can move
 * time across processing-day cut-offs, 7-day windows, JWT expiry and authorization holds.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = {
  // eslint-disable-next-line no-restricted-properties -- the one sanctioned read of the wall clock
  now: () => Date.now(),
};

/** A clock the caller moves by hand: tests, and the sandbox's simulated time. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: number | string | Date = '2026-01-15T15:00:00Z') {
    this.current = new Date(start).getTime();
  }

  now(): number {
    return this.current;
  }

  set(to: number | string | Date): void {
    const next = new Date(to).getTime();
    if (Number.isNaN(next)) throw new Error(`invalid time: ${String(to)}`);
    this.current = next;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  advanceDays(days: number): void {
    this.advance(days * DAY_MS);
  }
}

export const DAY_MS = 86_400_000;

/** The calendar date (YYYY-MM-DD) of an instant in a time zone (shared: the screens default a day to the shop's today). */
export { dateInZone } from '../shared/dates';

/** Whole days from date a to date b (both YYYY-MM-DD), b - a. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The real time, under a sandbox clock that was moved forward (sandbox-clock.ts): credentials
 * are minted and expire on it, so moving the sandbox's time neither signs anyone out nor lets a
 * JWT outlive its real lifetime.
 */
export function realNow(clock: Clock): number {
  const moved = clock as Clock & { real?: () => number };
  return moved.real ? moved.real() : clock.now();
}
