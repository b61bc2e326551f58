import type { EngineCore } from '../core';
import { getRecord, putRecord } from '../records';
import type { PayLinkOutcome } from '../../shared/schemas/pay-links';
import { clearPending } from './pending';

/**
 * What a link remembers of the payments tried on it: when each refused one was made (card testing
 * is what a public payment form draws: after MAX_REFUSED refusals in REFUSED_WINDOW_MS the link
 * pauses until the oldest of them is a window old), and the last outcomes by the page's attempt id
 * (a page that lost an answer and sends the same press again gets it, not a second charge).
 */
export const MAX_REFUSED = 5;
export const REFUSED_WINDOW_MS = 24 * 60 * 60_000;
const KEPT_OUTCOMES = 20;
const ATTEMPTS = 'pay_link_attempts';

interface AttemptsData {
  refused: number[];
  outcomes: Array<{ attempt: string; outcome: PayLinkOutcome }>;
}

const refusedInWindow = (data: AttemptsData | undefined, now: number) => (data?.refused ?? []).filter((at) => at > now - REFUSED_WINDOW_MS);

export async function linkAttempts(core: EngineCore, invoice: string) {
  const data = (await getRecord<AttemptsData>(core, ATTEMPTS, invoice))?.data;
  const refused = refusedInWindow(data, core.clock.now());
  return {
    outcomeOf: (attempt: string) => data?.outcomes.find((o) => o.attempt === attempt)?.outcome,
    /** When a paused link takes payments again, or null. */
    pausedUntil: refused.length >= MAX_REFUSED ? Math.min(...refused) + REFUSED_WINDOW_MS : null,
  };
}

/**
 * Keeps an attempt's outcome with the refusals the link still takes (a refusal without one: what
 * was typed was refused before the processor); its sale, if one was pending, no longer is.
 * `voided`: the approved sale given back because the balance moved during it (no outcome, no refusal).
 */
export function rememberAttempt(core: EngineCore, invoice: string, attempt: string, outcome: PayLinkOutcome | null, refusedNow: boolean, voided?: string): Promise<void> {
  return core.mutate(async (tx) => {
    const before = (await getRecord<AttemptsData>(tx, ATTEMPTS, invoice))?.data;
    const refused = [...refusedInWindow(before, tx.now), ...(refusedNow ? [tx.now] : [])];
    if (outcome) outcome.attempts_left = Math.max(0, MAX_REFUSED - refused.length);
    const outcomes = [...(before?.outcomes ?? []), ...(outcome ? [{ attempt, outcome }] : [])].slice(-KEPT_OUTCOMES);
    await clearPending(tx, invoice, attempt);
    await putRecord(tx, ATTEMPTS, invoice, { refused, outcomes }, {
      // None of these: a pending press found never sent to the gateway.
      type: refusedNow ? 'pay_link.refused' : outcome ? 'pay_link.paid' : voided ? 'pay_link.voided' : 'pay_link.not_sent',
      entity: 'pay_link',
      key: invoice,
      data: outcome ? { status: outcome.status, amount_cents: outcome.amount_cents, transaction: outcome.transaction } : voided ? { status: 'voided', transaction: voided } : { status: refusedNow ? 'refused' : 'not_sent' },
    });
  });
}
