import type { Lane, LaneCreate } from '../../shared/schemas/lanes';
import type { DeviceSetup, DeviceStage, SerialSettings } from './driver-port';

/** Lanes are small records in the shared `records` collection: kind `lane`, key laneid, ref the port path. */
export const LANE_KIND = 'lane';
/** Signatures captured on a lane, keyed by the payment's request id (ref: the laneid). */
export const SIGNATURE_KIND = 'lane_signature';

export type LaneData = Omit<Lane, 'watermark'>;
export type LaneActivity = Lane['activity'];
export type LaneStatus = Lane['status'];

export interface StoredSignature {
  request_id: string;
  laneid: string;
  media_type: 'image/svg+xml' | 'image/png';
  /** Base64 of the image. */
  data: string;
  captured_at: string;
  /** `payment`: collected when the payment completed; `request`: by the RequestSignature command. */
  source: 'payment' | 'request';
}

export const DEFAULT_CARD_TIMEOUT_S = 90;

export function newLane(input: LaneCreate, currency: LaneData['currency'], at: string): LaneData {
  return {
    laneid: input.laneid,
    name: input.name ?? `Lane ${input.laneid}`,
    port_path: input.port_path,
    baud_rate: input.baud_rate ?? 115200,
    data_bits: input.data_bits ?? 8,
    parity: input.parity ?? 'none',
    stop_bits: input.stop_bits ?? 1,
    currency: input.currency ?? currency,
    enabled: input.enabled ?? true,
    tip: input.tip ?? { enabled: false, percentages: [15, 18, 20] },
    signature: input.signature ?? { capture: 'on_device', min_amount_cents: 0 },
    card_timeout_s: input.card_timeout_s ?? DEFAULT_CARD_TIMEOUT_S,
    status: input.enabled === false ? 'disabled' : 'offline',
    activity: 'idle',
    last_error: null,
    last_error_at: null,
    connected_at: null,
    firmware: null,
    model: null,
    serial_number: null,
    last_setup_at: null,
    last_payment: null,
    created_at: at,
    updated_at: at,
  };
}

export function serialSettings(lane: LaneData): SerialSettings {
  return { path: lane.port_path, baudRate: lane.baud_rate, dataBits: lane.data_bits, parity: lane.parity, stopBits: lane.stop_bits };
}

export function deviceSetup(lane: LaneData, merchantName: string): DeviceSetup {
  return {
    laneName: lane.name,
    merchantName,
    currency: lane.currency,
    tip: lane.tip,
    signature: { capture: lane.signature.capture, minAmountCents: lane.signature.min_amount_cents },
  };
}

export const ACTIVITY_OF_STAGE: Record<DeviceStage, LaneActivity> = {
  insert_card: 'waiting_for_card',
  reading: 'reading',
  pin: 'pin',
  manual_entry: 'manual_entry',
  tip: 'tip',
  signature: 'signature',
  result: 'result',
};

/** What a lane event carries for live screens: no port details, never card data. */
export function laneSummary(lane: LaneData): Record<string, unknown> {
  return { laneid: lane.laneid, name: lane.name, status: lane.status, activity: lane.activity, last_error: lane.last_error };
}
