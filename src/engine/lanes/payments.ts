import type { CapturedSignature, CardPresentOutcome, CardPresentRequest } from '../card-present';
import { fail, isEngineError, type EngineError, notFound } from '../errors';
import { getRecord, putRecord } from '../records';
import { toCardRead, type LaneCardRead } from './card';
import { deviceFailureCode, type DeviceFailureCode } from './driver-port';
import type { LaneHub, LaneRuntime, PaymentSlot } from './hub';
import { ACTIVITY_OF_STAGE, LANE_KIND, laneSummary, type LaneData } from './model';

/** How long the customer has to sign when the card asks for a signature. */
const SIGNATURE_TIMEOUT_S = 60;

const KINDS = new Set(['sale', 'auth', 'capture', 'refund', 'credit']);

/** Driver failure -> the error code the CardPresentPort promises. */
export function deviceError(err: unknown, laneid: string): EngineError {
  if (isEngineError(err)) return err;
  const code: DeviceFailureCode = deviceFailureCode(err) ?? 'device_error';
  const detail = err instanceof Error ? err.message : 'unknown failure';
  switch (code) {
    case 'offline':
      return fail.gateway('lane_offline', `Lane ${laneid} is offline: ${detail}`);
    case 'busy':
      return fail.gateway('device_busy', `The device on lane ${laneid} is in use`);
    case 'cancelled':
      return fail.gateway('cancelled', `The payment was cancelled at lane ${laneid}`);
    case 'card_removed':
      return fail.gateway('card_removed', `The card was removed before it was read on lane ${laneid}`);
    case 'timeout':
      return fail.gateway('timeout', `Lane ${laneid}: ${detail}`);
    case 'reset':
      return fail.gateway('device_error', `The device on lane ${laneid} restarted`);
    default:
      return fail.gateway('device_error', `The device on lane ${laneid} failed: ${detail}`);
  }
}

function release(hub: LaneHub, rt: LaneRuntime, slot: PaymentSlot): void {
  if (rt.slot !== slot) return;
  rt.slot = undefined;
  rt.activity = 'idle';
  hub.publish(rt);
  // Settings changed during the payment reach the device now.
  void hub.refreshSetup(rt);
}

/** What a lane accepts as a card-present request, before it touches the device. */
export function checkCardPresentRequest(request: CardPresentRequest): void {
  if (!KINDS.has(request.kind)) throw fail.invalid('invalid_kind', `Unknown card-present payment kind ${String(request.kind)}`);
  if (!Number.isInteger(request.amountCents) || request.amountCents <= 0) throw fail.invalid('invalid_amount', 'amount_cents must be a positive whole number of cents');
  if (!/^[A-Za-z0-9._-]{1,56}$/.test(request.requestId)) throw fail.invalid('invalid_request_id', 'The card-present request id must be 1 to 56 letters, digits, `.`, `_` or `-`');
}

/**
 * The card-present half of a payment. readCard holds the lane from the moment the device asks for
 * the card until complete() (or until the payment is given up); any other payment or exclusive
 * command on the lane meanwhile gets `device_busy`. DeviceStatus and Cancel still work.
 */
export async function readCard(hub: LaneHub, request: CardPresentRequest): Promise<LaneCardRead> {
  hub.account.require('card_present_emv');
  const laneid = request.laneId;
  checkCardPresentRequest(request);
  const lane = await hub.record(hub.core, laneid);
  if (!lane) throw notFound('lane_not_found', `No lane ${laneid}`, 'gateway');
  if (!lane.enabled) throw fail.gateway('lane_offline', `Lane ${laneid} is disabled`);
  if (lane.currency !== request.currency.toLowerCase()) {
    throw fail.gateway('currency_mismatch', `Lane ${laneid} takes ${lane.currency.toUpperCase()}, not ${request.currency.toUpperCase()}`);
  }
  const rt = hub.runtime(laneid);
  await hub.settle(rt);
  const device = rt.device;
  if (!device || !rt.online) throw fail.gateway('lane_offline', `Lane ${laneid} is offline${rt.error ? `: ${rt.error.message}` : ''}`);
  if (rt.held) throw fail.gateway('device_busy', `Lane ${laneid} is in use by another payment or command`);

  // The device runs a request id once and remembers its answer; each attempt gets its own, so a
  // new attempt after a failure is never answered with the old failure.
  const rid = `${request.requestId}:${hub.attemptTag()}`;
  const slot: PaymentSlot = { requestId: request.requestId, rid, kind: request.kind, amountCents: request.amountCents, stage: 'reading', cancelRequested: false };
  rt.slot = slot;
  rt.activity = 'waiting_for_card';
  hub.publish(rt);
  try {
    const card = await device.readCard(
      {
        rid,
        kind: request.kind,
        amountCents: request.amountCents,
        currency: request.currency,
        manualEntry: request.enableManualEntry,
        tip: request.kind === 'sale' && lane.tip.enabled,
        timeoutS: lane.card_timeout_s,
      },
      (stage) => {
        if (rt.slot !== slot || slot.stage !== 'reading') return;
        rt.activity = ACTIVITY_OF_STAGE[stage];
        hub.publish(rt);
      },
    );
    if (rt.slot !== slot || slot.cancelRequested) throw fail.gateway('cancelled', `The payment was cancelled at lane ${laneid} before the card was charged`);
    const read = toCardRead(card, request.enableManualEntry);
    slot.stage = 'authorizing';
    slot.cvm = read.cvm;
    slot.cardAt = hub.core.clock.now();
    rt.activity = 'authorizing';
    hub.publish(rt);
    return read;
  } catch (err) {
    release(hub, rt, slot);
    const error = deviceError(err, laneid);
    if (error.code === 'device_error') hub.noteError(rt, error.message);
    throw error;
  }
}

/**
 * Shows the processor's outcome and, for an approved card that asks for a signature (and a lane set
 * to capture it), collects the signature. Rejects when the outcome cannot be confirmed on the
 * device (offline, restarted, cancelled past the card network, given up): the gateway then voids.
 */
export async function complete(hub: LaneHub, request: CardPresentRequest, outcome: CardPresentOutcome): Promise<{ signature?: CapturedSignature }> {
  const laneid = request.laneId;
  const rt = hub.runtimes.get(laneid);
  const slot = rt?.slot;
  if (!rt || !slot || slot.requestId !== request.requestId || slot.stage !== 'authorizing') {
    throw fail.gateway('device_error', `No payment is waiting for its outcome on lane ${laneid} under this request (cancelled, given up, or the device restarted)`);
  }
  if (slot.lost) {
    release(hub, rt, slot);
    throw fail.gateway('device_error', `Lane ${laneid}: ${slot.lost}`);
  }
  if (slot.cancelRequested) {
    release(hub, rt, slot);
    if (outcome.approved) throw fail.gateway('cancelled', `The payment was cancelled at lane ${laneid} after it was authorized: it must be voided`);
    return {};
  }
  const lane = await hub.record(hub.core, laneid);
  const device = rt.device;
  if (!lane || !device) {
    release(hub, rt, slot);
    throw fail.gateway('lane_offline', `Lane ${laneid} is no longer available`);
  }
  const wantSignature =
    outcome.approved && slot.cvm === 'signature' && lane.signature.capture === 'on_device' && request.amountCents >= lane.signature.min_amount_cents;
  slot.stage = 'completing';
  rt.activity = wantSignature ? 'signature' : 'result';
  hub.publish(rt);
  let shown: Awaited<ReturnType<typeof device.showResult>>;
  try {
    shown = await device.showResult(`${slot.rid}.r`, slot.rid, {
      approved: outcome.approved,
      message: outcome.message || (outcome.approved ? 'APPROVED' : 'DECLINED'),
      ...(outcome.authorizationCode ? { authCode: outcome.authorizationCode } : {}),
      signature: wantSignature,
      timeoutS: SIGNATURE_TIMEOUT_S,
    });
  } catch (err) {
    release(hub, rt, slot);
    const error = deviceError(err, laneid);
    if (error.code === 'device_error') hub.noteError(rt, error.message);
    throw error;
  }
  release(hub, rt, slot);
  if (slot.cancelRequested && outcome.approved) {
    throw fail.gateway('cancelled', `The payment was cancelled at lane ${laneid} while it was completing: it must be voided`);
  }
  const signature = shown.signature ? { mediaType: shown.signature.mediaType, data: shown.signature.data } : undefined;
  await hub.core.mutate(async (tx) => {
    const stored = await getRecord<LaneData>(tx, LANE_KIND, laneid);
    if (stored) {
      const next: LaneData = {
        ...stored.data,
        last_payment: { request_id: request.requestId, kind: request.kind, amount_cents: request.amountCents, approved: outcome.approved, signature: signature !== undefined, at: tx.at },
      };
      await putRecord(tx, LANE_KIND, laneid, next, { type: 'lane.payment', entity: 'lane', key: laneid, data: laneSummary(next) }, stored.ref);
    }
    if (signature) {
      await hub.storeSignature(tx, { request_id: request.requestId, laneid, media_type: signature.mediaType, data: signature.data, captured_at: tx.at, source: 'payment' });
    }
  });
  return signature ? { signature } : {};
}

/** Payments whose card was read but whose outcome never came are given up (the gateway voids on complete). */
export function giveUpAbandoned(hub: LaneHub, now: number, limitMs: number): void {
  for (const rt of hub.runtimes.values()) {
    const slot = rt.slot;
    if (!slot || slot.stage !== 'authorizing' || slot.cardAt === undefined || now - slot.cardAt < limitMs) continue;
    slot.lost = 'the payment was not completed in time and was given up';
    release(hub, rt, slot);
    hub.noteError(rt, `payment ${slot.requestId} was not completed in time and was given up`);
    if (rt.device && rt.online) void rt.device.cancel().catch(() => undefined);
  }
}
