import type { EngineCore } from '../core';
import type { Account } from '../account';
import { isEngineError } from '../errors';
import { putRecord } from '../records';

/**
 * Whether this install's card processor answers, as the register sees it. Card payments need the
 * processor: a lane never approves a card on its own (no stand-in approvals), so when the
 * processor cannot be reached the cashier screen says so and offers the other tenders.
 *
 * - A production install with no processor connected: unreachable, card not offered.
 * - Otherwise the register learns it two ways: a card tender whose gateway call failed for want of
 *   the processor (the codes below), and a light reachability check through the gateway's own
 *   processor client (`gateway.probeProcessor()`, no transaction) run on the engine's tick: every
 *   PROBE_EVERY_MS while it answers, on every tick while it does not, so the screen shows the
 *   outage before a card is tried and clears once the processor is back. A card tender or a
 *   check that gets an answer (an approval, a decline, a probe's answer) marks it reachable.
 *   Card stays offered while unreachable so the cashier can retry.
 * - Each change is a `pos_processor` record of this install (not synced) and its event
 *   (`pos_processor.unreachable` / `.reachable`, the state as data), so the register's badge
 *   changes without a reload.
 */
export const PROCESSOR_DOWN_CODES = new Set(['processor_unavailable', 'processor_unreachable', 'processor_timeout', 'gateway_unreachable', 'gateway_timeout']);

/** How often the processor is checked while it answers (ms of the injected clock). */
export const PROBE_EVERY_MS = 60_000;
/** How long a check waits for the processor's answer (real time: a network call's timeout). */
export const PROBE_TIMEOUT_MS = 5_000;

export interface ProcessorState {
  reachable: boolean;
  /** What the cashier reads while it is unreachable. */
  message: string | null;
  /** Unreachable since (ISO), null while reachable. */
  since: string | null;
  /** Card is not offered at all (no processor connected to this install). */
  card_offered: boolean;
}

export interface ProcessorWatch {
  state(): ProcessorState;
  /** A card tender's gateway outcome: an error code, or null when the processor answered. */
  observe(errorCode: string | null): void;
  /** Runs the reachability check now (the tick runs it when due). */
  check(): Promise<ProcessorState>;
}

const NOT_CONNECTED = 'No card processor is connected to this install: take cash, cheque, a gift card or another tender.';
const UNREACHABLE = 'The card processor cannot be reached: nothing was charged. Take cash, cheque, a gift card or another tender, or try the card again.';

/** The probe's outcome as a tender's: null when the processor answered, else the error code. */
async function probeOutcome(probe: () => Promise<void>): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('processor check timed out')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return null;
  } catch (err) {
    if (isEngineError(err)) return err.code;
    return err instanceof Error && err.message === 'processor check timed out' ? 'processor_timeout' : 'processor_unreachable';
  } finally {
    clearTimeout(timer);
  }
}

export function createProcessorWatch(core: EngineCore, account: Account, probe?: () => Promise<void>): ProcessorWatch {
  let downSince: string | null = null;
  let lastCheck = Number.NEGATIVE_INFINITY;
  let announcing = Promise.resolve();
  const connected = () => account.profile().environment === 'sandbox';
  const state = (): ProcessorState => {
    if (!connected()) return { reachable: false, message: NOT_CONNECTED, since: null, card_offered: false };
    return downSince ? { reachable: false, message: UNREACHABLE, since: downSince, card_offered: true } : { reachable: true, message: null, since: null, card_offered: true };
  };
  const announce = () => {
    const { card_offered: _offered, ...view } = state();
    announcing = announcing
      .then(() => core.mutate((tx) => putRecord(tx, 'pos_processor', 'state', view, { type: `pos_processor.${view.reachable ? 'reachable' : 'unreachable'}`, entity: 'pos_processor', key: 'state', data: view })))
      .then(() => undefined)
      .catch((err: unknown) => core.logger.error({ err }, 'processor state write failed'));
  };
  const observe = (errorCode: string | null) => {
    const was = downSince;
    if (errorCode === null) downSince = null;
    else if (PROCESSOR_DOWN_CODES.has(errorCode)) downSince ??= new Date(core.clock.now()).toISOString();
    if (was !== downSince && (was === null || downSince === null)) announce();
  };
  const check = async () => {
    if (probe && connected()) {
      lastCheck = core.clock.now();
      observe(await probeOutcome(probe));
    }
    return state();
  };
  core.onTick('register.processor-check', async (now) => {
    if (downSince === null && now - lastCheck < PROBE_EVERY_MS) return;
    await check();
  });
  return { state, observe, check };
}
