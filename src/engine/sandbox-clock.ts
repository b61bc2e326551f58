import type { Clock } from './clock';
import type { EngineCore } from './core';
import type { Account } from './account';
import { fail } from './errors';
import { getRecord, putRecord } from './records';
import { ProcessingCalendar, zonedInstant, type ProcessingSetting } from './gateway/processing-day';

/**
 * The sandbox's movable clock, like Stripe's test clocks: an integrator cannot wait three days
 * for an ACH return or a month for a statement, so in the sandbox time can be moved forward. The
 * engine's clock is the real (or test) clock plus an offset; the offset is a record, so a restart
 * keeps the moved time. Moving forward walks every processing-day cut-off on the way, in order,
 * and runs the time-driven work at each (settlement, deposits, returns, chargebacks, hold
 * releases, autopay, statements), so each happens at the instant it would have. Time never moves
 * back: records already made at a later instant would then lie in the future. Production refuses.
 */
export class OffsetClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.base.now() + this.offsetMs;
  }

  /** The clock without the sandbox's offset (what the status screen compares with). */
  real(): number {
    return this.base.now();
  }

  offset(): number {
    return this.offsetMs;
  }

  setOffset(ms: number): void {
    this.offsetMs = ms;
  }

  /** Moves so that now() answers `at` (the base clock keeps running from there). */
  moveTo(at: number): void {
    this.offsetMs = at - this.base.now();
  }
}

const KIND = 'sandbox_clock';
const KEY = 'offset';
/** One move walks at most this far: two years of cut-offs is about 730 runs of the tick. */
export const MAX_ADVANCE_MS = 2 * 366 * 86_400_000;

export interface SandboxClockState {
  now: string;
  real_now: string;
  offset_seconds: number;
  /** True when the sandbox clock is not the real time (the back office says so). */
  moved: boolean;
  timezone: string;
  processing_cutoff: string;
}

export interface SandboxClock {
  state(): SandboxClockState;
  /** Moves forward by `ms`, or to the instant `to`; runs the time-driven work at every cut-off crossed. */
  advance(move: { by_ms?: number; to?: number }): Promise<SandboxClockState & { cutoffs_crossed: number }>;
}

/** Reads the persisted offset (before anything else asks the time). */
export async function loadOffset(core: EngineCore, clock: OffsetClock): Promise<void> {
  const rec = await getRecord<{ offset_ms: number }>(core, KIND, KEY);
  if (rec) clock.setOffset(rec.data.offset_ms);
}

/** The cut-off instants in (from, to], in order. */
export function cutoffsBetween(from: number, to: number, setting: ProcessingSetting): number[] {
  const calendar = new ProcessingCalendar();
  const out: number[] = [];
  let day = calendar.dayOf(from, setting);
  // dayOf gives the cut-off still ahead of `from` (or at it, when `from` is the cut-off instant + 0).
  while (day.cutoffAt <= to) {
    if (day.cutoffAt > from) out.push(day.cutoffAt);
    day = calendar.dayOf(day.cutoffAt + 1, setting);
  }
  return out;
}

export function createSandboxClock(deps: { core: EngineCore; account: Account; clock: OffsetClock; tick: () => Promise<void> }): SandboxClock {
  const { core, account, clock } = deps;
  let moving: Promise<unknown> = Promise.resolve();

  const state = (): SandboxClockState => {
    const p = account.profile();
    return {
      now: new Date(clock.now()).toISOString(),
      real_now: new Date(clock.real()).toISOString(),
      offset_seconds: Math.floor(clock.offset() / 1000),
      moved: clock.offset() !== 0,
      timezone: p.timezone,
      processing_cutoff: p.processing_cutoff,
    };
  };

  const persist = () =>
    core.mutate(async (tx) => {
      await putRecord(tx, KIND, KEY, { offset_ms: clock.offset() }, { type: 'sandbox_clock.moved', entity: 'sandbox_clock', key: KEY, data: { now: new Date(clock.now()).toISOString() } });
    });

  const advance = async (move: { by_ms?: number; to?: number }) => {
    if (account.profile().environment !== 'sandbox') {
      throw fail.forbidden('sandbox_only', 'The clock can be moved only in the sandbox; a production install keeps the real time');
    }
    const from = clock.now();
    const target = move.to ?? from + (move.by_ms ?? 0);
    if (!Number.isFinite(target)) throw fail.invalid('invalid_clock_move', 'Send `by` (a duration) or `to` (a date or date-time)');
    if (target < from) throw fail.invalid('clock_cannot_go_back', `The sandbox clock is at ${new Date(from).toISOString()}; it only moves forward`);
    if (target - from > MAX_ADVANCE_MS) throw fail.invalid('clock_move_too_far', 'One move goes at most two years ahead; move again for more');
    const cutoffs = cutoffsBetween(from, target, account.profile());
    // Each cut-off's work runs with the clock at that cut-off, so what it records carries the
    // instant it would have had; the offset is saved after each, so a crash mid-way resumes there.
    for (const at of cutoffs) {
      clock.moveTo(at);
      await persist();
      await deps.tick();
    }
    clock.moveTo(target);
    await persist();
    await deps.tick();
    // A background tick already running when a step asked joined that run, with its earlier now:
    // one more run at the target leaves nothing due behind.
    await deps.tick();
    return { ...state(), cutoffs_crossed: cutoffs.length };
  };

  return {
    state,
    advance(move) {
      // One move at a time: two clients moving at once would otherwise interleave their steps.
      const run = moving.then(() => advance(move));
      moving = run.catch(() => undefined);
      return run;
    },
  };
}

/** `to` as the API takes it: a date (midnight, local to the account) or a date-time. */
export function parseClockTarget(to: string, timeZone: string): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(to)) return zonedInstant(to, '00:00', timeZone);
  const ms = Date.parse(to);
  if (Number.isNaN(ms)) throw fail.invalid('invalid_clock_move', `to must be yyyy-mm-dd or an ISO 8601 date-time (got ${to.slice(0, 40)})`);
  return ms;
}

/** An ISO 8601 duration of weeks, days, hours, minutes and seconds (`P3D`, `PT36H`, `P1W2DT30M`). */
export function parseDuration(text: string): number {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) throw fail.invalid('invalid_clock_move', `by must be an ISO 8601 duration such as P3D or PT12H (got ${text.slice(0, 40)})`);
  const [w, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number];
  return ((((w * 7 + d) * 24 + h) * 60 + mi) * 60 + s) * 1000;
}
