import { randomInt } from 'node:crypto';
import type { Account } from '../account';
import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord, recordsOfKind } from '../records';
import { deviceFailureCode, type DeviceInfo, type LaneDevice, type LaneDriver } from './driver-port';
import { deviceSetup, LANE_KIND, laneSummary, serialSettings, SIGNATURE_KIND, type LaneActivity, type LaneData, type LaneStatus, type StoredSignature } from './model';

/** A card-present payment holding a lane, from readCard until complete (or until it is given up). */
export interface PaymentSlot {
  requestId: string;
  /** The device request id of this attempt: `<requestId>:<attempt tag>`. */
  rid: string;
  kind: 'sale' | 'auth' | 'capture' | 'refund' | 'credit';
  amountCents: number;
  /** reading: waiting for the card (nothing sent to the card network yet); authorizing: the card data
   * went to the gateway; completing: the outcome is on the device. */
  stage: 'reading' | 'authorizing' | 'completing';
  cancelRequested: boolean;
  /** Set when the payment can no longer complete normally (device restarted, given up): complete() fails. */
  lost?: string;
  cvm?: 'pin' | 'signature' | 'none';
  /** Engine-clock time the card was read. */
  cardAt?: number;
}

/** The in-process state of one lane: its device, its live status, and what holds it. */
export class LaneRuntime {
  device: LaneDevice | undefined;
  /** Identity of the current device (callbacks from a closed one are ignored). */
  deviceToken: object | undefined;
  settingsKey: string | undefined;
  setupKey: string | undefined;
  online = false;
  info: DeviceInfo | undefined;
  error: { message: string; at: string } | undefined;
  connectedAt: string | undefined;
  setupAt: string | undefined;
  activity: LaneActivity = 'idle';
  slot: PaymentSlot | undefined;
  /** A DeviceSetup or RequestSignature holding the lane. */
  exclusive: 'setup' | 'signature' | undefined;
  /** The automatic DeviceSetup in progress, if any: a payment waits for it rather than failing busy. */
  autoSetupRun: Promise<void> | undefined;
  /** Open/close operations run one after another. */
  ops: Promise<void> = Promise.resolve();
  dirty = false;
  writing: Promise<void> | undefined;

  constructor(readonly laneid: string) {}

  get held(): boolean {
    return this.slot !== undefined || this.exclusive !== undefined;
  }
}

const LIVE_FIELDS = ['status', 'activity', 'last_error', 'last_error_at', 'connected_at', 'firmware', 'model', 'serial_number', 'last_setup_at'] as const;
type LiveFields = Pick<LaneData, (typeof LIVE_FIELDS)[number]>;

/**
 * Owns the lanes' runtimes: opens and closes their devices as the lane records say, turns device
 * callbacks into live status, and persists status changes as `lane.status` events (one write per
 * real change, never blocking a payment).
 */
export class LaneHub {
  readonly runtimes = new Map<string, LaneRuntime>();
  private readonly signatureListeners = new Set<(s: StoredSignature) => void>();
  /** Attempt tags start at a random point: a device remembers answers across host restarts. */
  private attempts = randomInt(0, 36 ** 4);
  started = false;
  closed = false;

  constructor(
    readonly core: EngineCore,
    readonly account: Account,
    readonly driver: LaneDriver | undefined,
  ) {}

  runtime(laneid: string): LaneRuntime {
    let rt = this.runtimes.get(laneid);
    if (!rt) {
      rt = new LaneRuntime(laneid);
      this.runtimes.set(laneid, rt);
    }
    return rt;
  }

  async record(reader: Tx | EngineCore, laneid: string): Promise<LaneData | undefined> {
    return (await getRecord<LaneData>(reader, LANE_KIND, laneid))?.data;
  }

  attemptTag(): string {
    this.attempts = (this.attempts + 1) % 36 ** 5;
    return this.attempts.toString(36);
  }

  nowIso(): string {
    return new Date(this.core.clock.now()).toISOString();
  }

  // -- lifecycle ----------------------------------------------------------------------------

  async start(): Promise<void> {
    if (this.started || this.closed) return;
    this.started = true;
    const lanes = await recordsOfKind<LaneData>(this.core, LANE_KIND);
    for (const lane of lanes) this.reconcile(lane.data.laneid);
    await Promise.all(lanes.map((l) => this.runtime(l.data.laneid).ops));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.runtimes.values()];
    await Promise.all(all.map((rt) => rt.ops));
    await Promise.all(
      all.map(async (rt) => {
        const device = rt.device;
        rt.device = undefined;
        rt.deviceToken = undefined;
        rt.online = false;
        if (device) await device.close().catch(() => undefined);
      }),
    );
    await Promise.all(all.map((rt) => rt.writing));
    // The stored status says offline while the app is not running, not what it was last seen as.
    if (this.started) {
      for (const rt of all) {
        await this.persist(rt).catch((err: unknown) => this.core.logger.error({ err, laneid: rt.laneid }, 'lane status write failed'));
      }
    }
  }

  /** Brings the lane's device in line with its record: opened, reopened on new port settings, closed. */
  reconcile(laneid: string): Promise<void> {
    const rt = this.runtime(laneid);
    rt.ops = rt.ops.then(async () => {
      if (!this.started || this.closed) return;
      const lane = await this.record(this.core, laneid);
      const settings = lane?.enabled && this.driver ? serialSettings(lane) : undefined;
      const key = settings ? JSON.stringify(settings) : undefined;
      if (rt.device && rt.settingsKey !== key) {
        const device = rt.device;
        rt.device = undefined;
        rt.deviceToken = undefined;
        rt.online = false;
        await device.close().catch(() => undefined);
      }
      if (settings && !rt.device && this.driver) {
        rt.settingsKey = key;
        rt.setupKey = undefined;
        const token = {};
        rt.deviceToken = token;
        rt.device = this.driver.open(laneid, settings, {
          online: (info) => this.onOnline(rt, token, info),
          offline: (reason) => this.onOffline(rt, token, reason),
          reset: () => this.onReset(rt, token),
        });
      }
      if (!lane) {
        this.runtimes.delete(laneid);
        return;
      }
      if (!this.driver && lane.enabled && !rt.error) rt.error = { message: 'this process has no lane driver', at: this.nowIso() };
      this.publish(rt);
      void this.refreshSetup(rt);
    });
    return rt.ops;
  }

  /** Re-sends the settings if they changed since the device last got them (and it is idle). */
  async refreshSetup(rt: LaneRuntime): Promise<void> {
    if (!rt.online || rt.held || this.closed) return;
    const lane = await this.record(this.core, rt.laneid);
    if (lane && rt.setupKey !== JSON.stringify(deviceSetup(lane, this.account.profile().name))) await this.autoSetup(rt);
  }

  private onOnline(rt: LaneRuntime, token: object, info: DeviceInfo): void {
    if (rt.deviceToken !== token || this.closed) return;
    const was = rt.online;
    const sameDevice = rt.info?.firmware === info.firmware && rt.info?.model === info.model && rt.info?.serialNumber === info.serialNumber;
    rt.online = true;
    rt.info = info;
    if (was && sameDevice) return; // a heartbeat: nothing to record
    if (!was) {
      this.core.logger.info({ laneid: rt.laneid, firmware: info.firmware, model: info.model }, 'lane connected');
      rt.connectedAt = this.nowIso();
      // Back after an outage with nothing of ours in progress, yet the device is busy: it is still
      // on a payment we already failed. Return it to idle before anything else.
      if (info.busy && !rt.slot && rt.device) {
        const device = rt.device;
        void device
          .cancel()
          .catch(() => undefined)
          .then(() => this.autoSetup(rt));
      } else void this.autoSetup(rt);
    }
    this.publish(rt);
  }

  private onOffline(rt: LaneRuntime, token: object, reason: string): void {
    if (rt.deviceToken !== token || this.closed) return;
    if (rt.online) this.core.logger.warn({ laneid: rt.laneid, reason }, 'lane offline');
    rt.online = false;
    this.noteError(rt, reason);
  }

  private onReset(rt: LaneRuntime, token: object): void {
    if (rt.deviceToken !== token || this.closed) return;
    // A payment past the card read can no longer be confirmed: complete() will fail, the gateway voids.
    if (rt.slot && rt.slot.stage !== 'reading') rt.slot.lost = 'the device restarted during the payment';
    rt.setupKey = undefined;
    this.core.logger.warn({ laneid: rt.laneid, payment: rt.slot?.requestId }, 'lane device restarted');
    this.noteError(rt, 'the device restarted');
    if (rt.online) void this.autoSetup(rt);
  }

  noteError(rt: LaneRuntime, message: string): void {
    rt.error = { message, at: this.nowIso() };
    this.publish(rt);
  }

  /** Sends the lane's settings to its device when it connects, restarts or the settings change. */
  autoSetup(rt: LaneRuntime): Promise<void> {
    if (rt.autoSetupRun) return rt.autoSetupRun;
    const run = this.runAutoSetup(rt).finally(() => {
      if (rt.autoSetupRun === run) rt.autoSetupRun = undefined;
    });
    rt.autoSetupRun = run;
    return run;
  }

  /** Waits for an automatic setup in progress: background work must not turn a sale away. */
  async settle(rt: LaneRuntime): Promise<void> {
    while (rt.autoSetupRun) await rt.autoSetupRun;
  }

  private async runAutoSetup(rt: LaneRuntime): Promise<void> {
    if (!rt.device || !rt.online || rt.held || this.closed) return;
    const lane = await this.record(this.core, rt.laneid);
    if (!lane || !rt.device || rt.held) return;
    const device = rt.device;
    try {
      await this.exclusively(rt, 'setup', () => this.applySetup(rt, device, lane));
    } catch (err) {
      if (deviceFailureCode(err) !== 'offline') this.noteError(rt, `device setup failed: ${(err as Error).message}`);
    }
  }

  /** Holds the lane for one device step (setup, signature): no payment or command starts meanwhile. */
  async exclusively<T>(rt: LaneRuntime, step: 'setup' | 'signature', run: () => Promise<T>): Promise<T> {
    rt.exclusive = step;
    rt.activity = step;
    this.publish(rt);
    try {
      return await run();
    } finally {
      if (rt.exclusive === step) rt.exclusive = undefined;
      if (!rt.slot) rt.activity = 'idle';
      this.publish(rt);
    }
  }

  /** Gives the device the lane's settings, and remembers what it was given (a change sets it up again). */
  async applySetup(rt: LaneRuntime, device: LaneDevice, lane: LaneData): Promise<void> {
    const setup = deviceSetup(lane, this.account.profile().name);
    await device.setup(setup);
    rt.setupKey = JSON.stringify(setup);
    rt.setupAt = this.nowIso();
  }

  // -- status -------------------------------------------------------------------------------

  status(rt: LaneRuntime, lane: LaneData): LaneStatus {
    if (!lane.enabled) return 'disabled';
    if (!rt.online) return 'offline';
    return rt.held ? 'busy' : 'connected';
  }

  /** The live fields of a lane as this process sees them (the record may lag by one write). */
  live(lane: LaneData): LaneData {
    const rt = this.runtimes.get(lane.laneid);
    if (!rt || !this.started) return lane;
    return { ...lane, ...this.liveFields(rt, lane) };
  }

  private liveFields(rt: LaneRuntime, lane: LaneData): LiveFields {
    return {
      status: this.status(rt, lane),
      activity: rt.online ? rt.activity : 'idle',
      last_error: rt.error?.message ?? lane.last_error,
      last_error_at: rt.error?.at ?? lane.last_error_at,
      connected_at: rt.connectedAt ?? lane.connected_at,
      firmware: rt.info?.firmware ?? lane.firmware,
      model: rt.info?.model ?? lane.model,
      serial_number: rt.info?.serialNumber ?? lane.serial_number,
      last_setup_at: rt.setupAt ?? lane.last_setup_at,
    };
  }

  /** Persists the lane's live status if it changed; coalesced, one write at a time per lane. */
  publish(rt: LaneRuntime): void {
    if (this.closed || !this.started) return;
    rt.dirty = true;
    if (rt.writing) return;
    rt.writing = (async () => {
      while (rt.dirty && !this.closed) {
        rt.dirty = false;
        try {
          await this.persist(rt);
        } catch (err) {
          this.core.logger.error({ err, laneid: rt.laneid }, 'lane status write failed');
        }
      }
    })().finally(() => {
      rt.writing = undefined;
    });
  }

  private async persist(rt: LaneRuntime): Promise<void> {
    await this.core.mutate(async (tx) => {
      const stored = await getRecord<LaneData>(tx, LANE_KIND, rt.laneid);
      if (!stored) return;
      const live = this.liveFields(rt, stored.data);
      if (LIVE_FIELDS.every((k) => stored.data[k] === live[k])) return;
      const next = { ...stored.data, ...live };
      await putRecord(tx, LANE_KIND, rt.laneid, next, { type: 'lane.status', entity: 'lane', key: rt.laneid, data: laneSummary(next) }, stored.ref);
    });
  }

  // -- signatures ---------------------------------------------------------------------------

  async storeSignature(tx: Tx, signature: StoredSignature): Promise<void> {
    await putRecord(
      tx,
      SIGNATURE_KIND,
      signature.request_id,
      signature,
      {
        type: 'signature.captured',
        entity: 'signature',
        key: signature.request_id,
        data: { laneid: signature.laneid, request_id: signature.request_id, media_type: signature.media_type, source: signature.source },
      },
      signature.laneid,
    );
    tx.afterCommit(() => {
      for (const listener of this.signatureListeners) listener(signature);
    });
  }

  onSignature(listener: (s: StoredSignature) => void): () => void {
    this.signatureListeners.add(listener);
    return () => this.signatureListeners.delete(listener);
  }
}
