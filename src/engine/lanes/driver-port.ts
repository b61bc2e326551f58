/**
 * What the lanes domain needs from a lane driver. The engine defines it; src/terminal implements
 * it over serial ports (createSerialLaneDriver) and the app passes that in (EngineOptions.laneDriver).
 * The engine never imports the driver itself.
 */
export type Parity = 'none' | 'even' | 'odd' | 'mark' | 'space';

export interface SerialSettings {
  path: string;
  baudRate: number;
  dataBits: 5 | 6 | 7 | 8;
  parity: Parity;
  stopBits: 1 | 1.5 | 2;
}

export interface DeviceInfo {
  firmware: string;
  model: string;
  serialNumber: string;
  cardInserted: boolean;
  busy: boolean;
}

export type DeviceStage = 'insert_card' | 'reading' | 'pin' | 'manual_entry' | 'tip' | 'signature' | 'result';

export interface DeviceSetup {
  laneName: string;
  merchantName: string;
  currency: string;
  tip: { enabled: boolean; percentages: number[] };
  signature: { capture: 'on_device' | 'paper' | 'off'; minAmountCents: number };
}

export interface DeviceReadRequest {
  /** Idempotency id on the device: a repeated read with it returns the same answer. */
  rid: string;
  kind: 'sale' | 'auth' | 'capture' | 'refund' | 'credit';
  amountCents: number;
  currency: string;
  manualEntry: boolean;
  tip: boolean;
  /** How long the customer has to present a card. */
  timeoutS: number;
}

export interface DeviceCard {
  entryMode: 'chip' | 'contactless' | 'swipe' | 'manual';
  /** In memory only: for the processor, never stored, logged or put in an error. */
  pan: string;
  expMonth: string;
  expYear: string;
  name?: string;
  cvm: 'pin' | 'signature' | 'none';
  emv?: { aid: string; applicationLabel: string; tvr: string; tsi: string };
  tipCents: number;
}

export interface DeviceResult {
  approved: boolean;
  message: string;
  authCode?: string;
  /** Ask the customer to sign on the device. */
  signature: boolean;
  timeoutS: number;
}

export interface DeviceImage {
  mediaType: 'image/svg+xml' | 'image/png';
  data: string;
}

export type DeviceFailureCode = 'offline' | 'busy' | 'cancelled' | 'card_removed' | 'timeout' | 'reset' | 'device_error';

/** A driver call that failed carries one of these codes (structurally: `deviceCode`). */
export interface DeviceFailure extends Error {
  readonly deviceCode: DeviceFailureCode;
}

export function deviceFailureCode(err: unknown): DeviceFailureCode | undefined {
  const code = (err as { deviceCode?: unknown } | null)?.deviceCode;
  return typeof code === 'string' ? (code as DeviceFailureCode) : undefined;
}

export interface LaneDeviceListener {
  /** The device answered (after connecting, and on every status): it is reachable. */
  online(info: DeviceInfo): void;
  /** The port is missing or closed, or the device stopped answering. */
  offline(reason: string): void;
  /** The device restarted: whatever it was doing is lost (already failed with `reset`). */
  reset(): void;
}

export interface LaneDevice {
  readonly online: boolean;
  status(): Promise<DeviceInfo>;
  setup(settings: DeviceSetup): Promise<void>;
  readCard(request: DeviceReadRequest, onStage?: (stage: DeviceStage) => void): Promise<DeviceCard>;
  /** Shows the outcome of payment `of`; collects a signature when asked. */
  showResult(rid: string, of: string, result: DeviceResult): Promise<{ signature?: DeviceImage; signatureMissing?: string }>;
  requestSignature(rid: string, timeoutS: number): Promise<DeviceImage>;
  /** Aborts what the device is doing and returns it to idle; `active` says whether anything was running. */
  cancel(): Promise<{ active: boolean }>;
  close(): Promise<void>;
}

export interface LaneDriver {
  /** Opens (and keeps reopening) the lane's port. Never throws for a missing port: it reports offline. */
  open(laneid: string, settings: SerialSettings, listener: LaneDeviceListener): LaneDevice;
}
