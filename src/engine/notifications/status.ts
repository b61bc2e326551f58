import type { EngineCore } from '../core';
import { recordsByRef, type RecordDoc } from '../records';
import { MESSAGE, type MessageData } from './outbox';
import { relayView, relayWatermark } from './relay';

/**
 * How the relay is doing, as the outbox shows it rather than as its settings hope:
 * - `sandbox`: no relay; messages stay in the outbox and go nowhere.
 * - `failing`: the newest delivery attempt through the relay failed (or, none made yet, the try when
 *   it was saved did): `last_error` says why, `next_retry_at` when the outbox tries again.
 * - `working`: the newest attempt delivered (or, none made yet, the try when it was saved worked).
 * - `untested`: saved before saves tried the relay, and nothing sent through it since.
 */
export interface MailStatus {
  state: 'sandbox' | 'untested' | 'working' | 'failing';
  /** The newest delivery attempt through the relay as it is now set, else the try made when it was saved. */
  last_attempt_at: string | null;
  last_error: string | null;
  /** When the outbox next tries a waiting message (the soonest), if one waits. */
  next_retry_at: string | null;
  /** Messages waiting in the outbox (`queued`). */
  queued: number;
}

const PAGE = 200;

/** The newest message written after `after` (a watermark) that a delivery attempt through a relay wrote. */
async function newestAttempt(core: EngineCore, after: number): Promise<MessageData | undefined> {
  let before = Number.MAX_SAFE_INTEGER;
  for (;;) {
    // Every attempt rewrites its message, so the newest watermark is the newest attempt.
    const rows = await core.find<RecordDoc<MessageData> & { [k: string]: unknown }>('records', {
      selector: { kind: MESSAGE, watermark: { $gt: after, $lt: before } },
      sort: [{ kind: 'desc' }, { watermark: 'desc' }],
      limit: PAGE,
    });
    const found = rows.find((r) => r.data.transport === 'smtp' && r.data.attempts > 0);
    if (found || rows.length < PAGE) return found?.data;
    before = rows.at(-1)!.watermark;
  }
}

export async function mailStatus(core: EngineCore): Promise<MailStatus> {
  const queued = (await recordsByRef<MessageData>(core, MESSAGE, 'queued')).map((r) => r.data);
  const soonest = queued.reduce((min, m) => Math.min(min, m.next_attempt_ms), Infinity);
  const waiting = { queued: queued.length, next_retry_at: Number.isFinite(soonest) ? new Date(Math.max(soonest, core.clock.now())).toISOString() : null };
  const relay = await relayView(core);
  if (!relay) return { state: 'sandbox', last_attempt_at: null, last_error: null, ...waiting };
  // Attempts written before the relay was (re)saved were made with other settings: they say nothing of these.
  const attempt = await newestAttempt(core, (await relayWatermark(core)) ?? 0);
  if (attempt) {
    const at = attempt.last_attempt_at ?? attempt.sent_at;
    return attempt.state === 'sent' ? { state: 'working', last_attempt_at: at, last_error: null, ...waiting } : { state: 'failing', last_attempt_at: at, last_error: attempt.error, ...waiting };
  }
  const check = relay.check;
  if (!check) return { state: 'untested', last_attempt_at: null, last_error: null, ...waiting };
  return { state: check.ok ? 'working' : 'failing', last_attempt_at: check.checked_at, last_error: check.ok ? null : check.error, ...waiting };
}
