import type { TerminalRequest, TerminalResponse } from '../../shared/schemas/lanes';
import { fail, isEngineError, notFound } from '../errors';
import { getRecord, putRecord } from '../records';
import type { LaneHub, LaneRuntime } from './hub';
import { LANE_KIND, laneSummary, type LaneData } from './model';
import { deviceError } from './payments';

type Command = TerminalRequest['command'];

const SIGNATURE_TIMEOUT_S = 60;

/**
 * POST /api/gateway/v1/terminal. The answer is the reference API's `{success}`, with the lane's
 * status and, when success is false, a stable code in `errors` and words in `error`. An unknown
 * lane is not a device failure: it throws (`lane_not_found`, the gateway's 500 shape).
 */
export async function terminalCommand(hub: LaneHub, laneid: string, command: Command): Promise<TerminalResponse> {
  hub.account.require('card_present_emv');
  const lane = await hub.record(hub.core, laneid);
  if (!lane) throw notFound('lane_not_found', `No lane ${laneid}`, 'gateway');
  const rt = hub.runtime(laneid);
  const base = () => ({ laneid, command, status: hub.status(rt, lane) });
  const failure = (code: string, error: string): TerminalResponse => ({ success: false, ...base(), errors: [code], error });
  const fromError = (err: unknown): TerminalResponse => {
    const e = deviceError(err, laneid);
    if (!isEngineError(err) && e.code === 'device_error') hub.noteError(rt, e.message);
    return failure(e.code, e.message);
  };
  if (!lane.enabled) return failure('lane_offline', `Lane ${laneid} is disabled`);

  if (command === 'Cancel') return cancel(hub, rt, lane, base, failure, fromError);
  if (command !== 'DeviceStatus') await hub.settle(rt);

  const device = rt.device;
  if (!device || !rt.online) return failure('lane_offline', `Lane ${laneid} is offline${rt.error ? `: ${rt.error.message}` : ''}`);

  switch (command) {
    case 'DeviceStatus': {
      try {
        const info = await device.status();
        return {
          success: true,
          ...base(),
          device: { online: true, firmware: info.firmware, model: info.model, serial_number: info.serialNumber, card_inserted: info.cardInserted, busy: info.busy },
        };
      } catch (err) {
        return fromError(err);
      }
    }
    case 'DeviceSetup': {
      if (rt.held) return failure('device_busy', `Lane ${laneid} is in use by a payment or another command`);
      try {
        await hub.exclusively(rt, 'setup', () => hub.applySetup(rt, device, lane));
        return { success: true, ...base(), status: 'connected' };
      } catch (err) {
        return fromError(err);
      }
    }
    case 'RequestSignature': {
      if (rt.held) return failure('device_busy', `Lane ${laneid} is in use by a payment or another command`);
      const last = lane.last_payment;
      if (!last || !last.approved) return failure('no_payment', `Lane ${laneid} has no approved card-present payment to sign for`);
      try {
        return await hub.exclusively(rt, 'signature', async () => {
          const image = await device.requestSignature(`${last.request_id}.sig.${hub.core.ids.token()}`, SIGNATURE_TIMEOUT_S);
          await hub.core.mutate(async (tx) => {
            await hub.storeSignature(tx, { request_id: last.request_id, laneid, media_type: image.mediaType, data: image.data, captured_at: tx.at, source: 'request' });
            const stored = await getRecord<LaneData>(tx, LANE_KIND, laneid);
            if (stored?.data.last_payment?.request_id === last.request_id && !stored.data.last_payment.signature) {
              const next: LaneData = { ...stored.data, last_payment: { ...stored.data.last_payment, signature: true } };
              await putRecord(tx, LANE_KIND, laneid, next, { type: 'lane.payment', entity: 'lane', key: laneid, data: laneSummary(next) }, stored.ref);
            }
          });
          return {
            success: true,
            ...base(),
            status: 'connected',
            signature: { request_id: last.request_id, media_type: image.mediaType, bytes: Buffer.from(image.data, 'base64').length },
          } satisfies TerminalResponse;
        });
      } catch (err) {
        return fromError(err);
      }
    }
  }
  throw fail.invalid('unknown_command', `Unknown terminal command ${String(command)}`);
}

/**
 * Cancel: a payment still waiting for its card is stopped (nothing reached the card network);
 * past that point the payment cannot be taken back on the device, so it is marked for voiding:
 * complete() fails with `cancelled` and the gateway voids it. Works while the lane is busy.
 */
async function cancel(
  hub: LaneHub,
  rt: LaneRuntime,
  lane: LaneData,
  base: () => { laneid: string; command: Command; status: TerminalResponse['status'] },
  failure: (code: string, error: string) => TerminalResponse,
  fromError: (err: unknown) => TerminalResponse,
): Promise<TerminalResponse> {
  const device = rt.device;
  const slot = rt.slot;
  if (slot) {
    slot.cancelRequested = true;
    const result = slot.stage === 'reading' ? 'cancelled' : 'voiding';
    if (device && rt.online) await device.cancel().catch(() => undefined);
    return { success: true, ...base(), cancel_result: result };
  }
  if (!device || !rt.online) return failure('lane_offline', `Lane ${lane.laneid} is offline${rt.error ? `: ${rt.error.message}` : ''}`);
  const wasSignature = rt.exclusive === 'signature';
  try {
    const answer = await device.cancel();
    return { success: true, ...base(), cancel_result: wasSignature && answer.active ? 'cancelled' : 'idle' };
  } catch (err) {
    return fromError(err);
  }
}
