import type { EngineCore } from '../core';
import type { Account } from '../account';

/**
 * Whether this install's card processor answers, as the register sees it. Card payments need the
 * processor: a lane never approves a card on its own (no stand-in approvals), so when the
 * processor cannot be reached the cashier screen says so and offers the other tenders.
 *
 * - A production install with no processor connected: unreachable, card not offered.
 * - Otherwise, a card tender whose gateway call failed for want of the processor (the codes
 *   below) marks it unreachable until a later card tender gets an answer from it (approved or
 *   declined: a decline is the processor answering). Card stays offered so the cashier can retry.
 */
export const PROCESSOR_DOWN_CODES = new Set(['processor_unavailable', 'processor_unreachable', 'processor_timeout', 'gateway_unreachable', 'gateway_timeout']);

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
}

const NOT_CONNECTED = 'No card processor is connected to this install: take cash, cheque, a gift card or another tender.';
const UNREACHABLE = 'The card processor cannot be reached: nothing was charged. Take cash, cheque, a gift card or another tender, or try the card again.';

export function createProcessorWatch(core: EngineCore, account: Account): ProcessorWatch {
  let downSince: string | null = null;
  return {
    state() {
      if (account.profile().environment !== 'sandbox') return { reachable: false, message: NOT_CONNECTED, since: null, card_offered: false };
      return downSince ? { reachable: false, message: UNREACHABLE, since: downSince, card_offered: true } : { reachable: true, message: null, since: null, card_offered: true };
    },
    observe(errorCode) {
      if (errorCode === null) downSince = null;
      else if (PROCESSOR_DOWN_CODES.has(errorCode)) downSince ??= new Date(core.clock.now()).toISOString();
    },
  };
}
