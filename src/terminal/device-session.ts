import { randomBytes } from 'node:crypto';
import type {
  DeviceCard,
  DeviceFailureCode,
  DeviceImage,
  DeviceInfo,
  DeviceReadRequest,
  DeviceResult,
  DeviceSetup,
  DeviceStage,
  LaneDevice,
  LaneDeviceListener,
} from '../engine/lanes/driver-port';
import { DeviceError } from './errors';
import { Link, type LinkError } from './link';
import { encodeMessage, parseDeviceMessage, type DeviceMessage, type FailureReason, type HostMessage } from './protocol';
import { realTimers, type Timers } from './timers';
import type { ByteTransport } from './transport';

export interface SessionOptions {
  baudRate?: number;
  ackTimeoutMs?: number;
  retries?: number;
  /** While online, a DeviceStatus this often notices a device that went quiet (default 5 s). */
  heartbeatMs?: number;
  /** While the port is open but the device silent, the handshake is retried this often (default 1 s). */
  probeMs?: number;
  /** How long a request whose answer was cut off waits for the device to come back (default 4 s). */
  recoverMs?: number;
  /** Extra wait for an answer beyond the device's own timeout, before asking for it again (default 5 s). */
  answerMarginMs?: number;
  /** Wait for a simple command's answer (default 3 s). */
  commandMs?: number;
  timers?: Timers;
}

type Phase = 'sending' | 'waiting' | 'lost' | 'recalling';

interface Waiter {
  rid: string;
  message: HostMessage;
  answerMs: number;
  acked: boolean;
  phase: Phase;
  pendings: number;
  timer: unknown;
  handshake: boolean;
  onProgress: ((stage: DeviceStage) => void) | undefined;
  resolve(message: DeviceMessage): void;
  reject(error: DeviceError): void;
}

const FAILURE_CODE: Record<FailureReason, DeviceFailureCode> = {
  busy: 'busy',
  cancelled: 'cancelled',
  card_removed: 'card_removed',
  timeout: 'timeout',
  error: 'device_error',
  unsupported: 'device_error',
};

const FAILURE_TEXT: Record<FailureReason, string> = {
  busy: 'the device is busy with another request',
  cancelled: 'cancelled at the device',
  card_removed: 'the card was removed before it was read',
  timeout: 'no card was presented in time',
  error: 'the device reported an error',
  unsupported: 'the device does not support this request',
};

/**
 * The host end of one lane: the port, the link, and the request/answer bookkeeping on top.
 *
 * Every request waits for its final answer by request id. When the line drops (no ACK after the
 * resends, the port closed) the waiting requests are not failed at once: for `recoverMs` they
 * wait for the device to come back; then a request the device never acknowledged is sent again
 * (safe: the device runs a request id once) and one it had is recalled, so a lost answer is asked
 * for again instead of the customer paying again. A device that comes back with a new boot id
 * has restarted: everything in progress fails with `reset`.
 */
export class DeviceSession implements LaneDevice {
  private readonly link: Link;
  private readonly waiters = new Map<string, Waiter>();
  private readonly prefix = randomBytes(2).toString('hex');
  private counter = 0;
  private isOnline = false;
  private boot: string | undefined;
  private info: DeviceInfo | undefined;
  private identity: Pick<DeviceInfo, 'firmware' | 'model' | 'serialNumber'> | undefined;
  private closed = false;
  private probeTimer: unknown;
  private heartbeatTimer: unknown;
  /**
   * Set for recoverMs after an online device goes quiet: a request made then waits for it to come
   * back, as one cut off by the outage does, instead of failing at once. A terminal silent for 2.5 s
   * after reading a card was back 1 s later, but the payment's result, sent in that second, failed,
   * and an approved card was reversed. Past the window (or never online), requests fail at once.
   */
  private recoverTimer: unknown;
  private handshaking = false;
  private readonly timers: Timers;
  private readonly heartbeatMs: number;
  private readonly probeMs: number;
  private readonly recoverMs: number;
  private readonly answerMarginMs: number;
  private readonly commandMs: number;

  constructor(
    private readonly transport: ByteTransport,
    private readonly listener: LaneDeviceListener,
    options: SessionOptions = {},
  ) {
    this.timers = options.timers ?? realTimers;
    this.heartbeatMs = options.heartbeatMs ?? 5000;
    this.probeMs = options.probeMs ?? 1000;
    this.recoverMs = options.recoverMs ?? 4000;
    this.answerMarginMs = options.answerMarginMs ?? 5000;
    this.commandMs = options.commandMs ?? 3000;
    this.link = new Link({
      write: (bytes) => this.transport.write(bytes),
      onMessage: (payload) => this.onMessage(payload),
      onFailure: (err) => this.onLinkFailure(err),
      ...(options.ackTimeoutMs !== undefined ? { ackTimeoutMs: options.ackTimeoutMs } : {}),
      ...(options.retries !== undefined ? { retries: options.retries } : {}),
      ...(options.baudRate !== undefined ? { baudRate: options.baudRate } : {}),
      timers: this.timers,
    });
    this.transport.start({
      open: () => this.onOpen(),
      data: (chunk) => this.link.receive(chunk),
      closed: (reason) => this.goOffline(reason),
      error: (message) => this.goOffline(message),
    });
  }

  get online(): boolean {
    return this.isOnline;
  }

  get linkStats() {
    return this.link.stats;
  }

  async status(): Promise<DeviceInfo> {
    // The device's identity is known from the handshake; a routine status asks only for what changes
    // (a shorter answer: at 115200 baud every byte is 87 µs on the wire).
    const answer = await this.request({ t: 'status', rid: this.rid('s'), ...(this.identity ? {} : { info: true }) }, this.commandMs);
    if (answer.t !== 'status') throw this.unexpected();
    return this.noteStatus(answer);
  }

  async setup(settings: DeviceSetup): Promise<void> {
    const answer = await this.request(
      {
        t: 'setup',
        rid: this.rid('u'),
        lane_name: settings.laneName.slice(0, 64),
        merchant_name: settings.merchantName.slice(0, 64),
        currency: settings.currency.toUpperCase(),
        tip: settings.tip,
        signature: { capture: settings.signature.capture, min_amount_cents: settings.signature.minAmountCents },
      },
      this.commandMs,
    );
    if (answer.t !== 'ok') throw this.unexpected();
  }

  async readCard(request: DeviceReadRequest, onStage?: (stage: DeviceStage) => void): Promise<DeviceCard> {
    const answer = await this.request(
      {
        t: 'read',
        rid: request.rid,
        kind: request.kind,
        amount_cents: request.amountCents,
        currency: request.currency.toUpperCase(),
        manual_entry: request.manualEntry,
        tip: request.tip,
        timeout_s: request.timeoutS,
      },
      request.timeoutS * 1000 + this.answerMarginMs,
      onStage,
    );
    if (answer.t !== 'card') throw this.unexpected();
    return {
      entryMode: answer.entry_mode,
      pan: answer.pan,
      expMonth: answer.exp_month,
      expYear: answer.exp_year,
      ...(answer.name ? { name: answer.name } : {}),
      cvm: answer.cvm,
      ...(answer.emv ? { emv: { aid: answer.emv.aid, applicationLabel: answer.emv.label, tvr: answer.emv.tvr, tsi: answer.emv.tsi } } : {}),
      tipCents: answer.tip_cents,
    };
  }

  async showResult(rid: string, of: string, result: DeviceResult): Promise<{ signature?: DeviceImage; signatureMissing?: string }> {
    const answer = await this.request(
      {
        t: 'result',
        rid,
        of,
        approved: result.approved,
        message: result.message.slice(0, 40),
        ...(result.authCode ? { auth_code: result.authCode.slice(0, 12) } : {}),
        signature: result.signature,
        timeout_s: result.timeoutS,
      },
      (result.signature ? result.timeoutS * 1000 : 0) + this.answerMarginMs,
    );
    if (answer.t !== 'done') throw this.unexpected();
    return {
      ...(answer.signature ? { signature: { mediaType: answer.signature.media_type, data: answer.signature.data } } : {}),
      ...(answer.signature_missing ? { signatureMissing: answer.signature_missing } : {}),
    };
  }

  async requestSignature(rid: string, timeoutS: number): Promise<DeviceImage> {
    const answer = await this.request({ t: 'signature', rid, timeout_s: timeoutS }, timeoutS * 1000 + this.answerMarginMs);
    if (answer.t !== 'signature') throw this.unexpected();
    return { mediaType: answer.media_type, data: answer.data };
  }

  async cancel(): Promise<{ active: boolean }> {
    const answer = await this.request({ t: 'cancel', rid: this.rid('c') }, this.commandMs);
    if (answer.t !== 'cancelled') throw this.unexpected();
    return { active: answer.active };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.isOnline = false;
    this.clearTimer('probeTimer');
    this.clearTimer('heartbeatTimer');
    this.clearTimer('recoverTimer');
    for (const w of [...this.waiters.values()]) this.settle(w, new DeviceError('offline', 'the lane was closed'));
    this.link.close();
    await this.transport.close();
  }

  // -- requests ------------------------------------------------------------------------------

  private rid(kind: string): string {
    this.counter += 1;
    return `${kind}${this.prefix}-${this.counter.toString(36)}`;
  }

  private request(message: HostMessage, answerMs: number, onProgress?: (stage: DeviceStage) => void, handshake = false): Promise<DeviceMessage> {
    if (this.closed) return Promise.reject(new DeviceError('offline', 'the lane is closed'));
    const waitsForDevice = !this.isOnline && !handshake;
    if (waitsForDevice && this.recoverTimer === undefined) return Promise.reject(new DeviceError('offline', 'the device is not connected'));
    if (this.waiters.has(message.rid)) return Promise.reject(new DeviceError('busy', 'this request is already running on the device'));
    return new Promise<DeviceMessage>((resolve, reject) => {
      const w: Waiter = { rid: message.rid, message, answerMs, acked: false, phase: 'sending', pendings: 0, timer: undefined, handshake, onProgress, resolve, reject };
      this.waiters.set(w.rid, w);
      // Never sent: back online, resume() sends it (recall of an unacknowledged request).
      if (waitsForDevice) return this.lose(w);
      this.arm(w, answerMs, () => this.onAnswerTimeout(w));
      this.transmit(w, message);
    });
  }

  private transmit(w: Waiter, message: HostMessage): void {
    this.link.send(encodeMessage(message)).then(
      () => {
        if (message === w.message) w.acked = true;
        if (w.phase === 'sending') w.phase = 'waiting';
      },
      () => {
        // Unacknowledged: the device may or may not have it. A handshake simply fails; anything else
        // waits for the device to come back (see onLinkFailure / goOffline).
        if (w.handshake) this.settle(w, new DeviceError('offline', 'the device is not answering'));
        else this.lose(w);
      },
    );
  }

  private arm(w: Waiter, ms: number, fn: () => void): void {
    if (w.timer !== undefined) this.timers.clear(w.timer);
    w.timer = this.timers.set(fn, ms);
  }

  private onAnswerTimeout(w: Waiter): void {
    if (!this.waiters.has(w.rid)) return;
    if (w.phase === 'lost') return;
    if (w.phase === 'recalling' || !this.isOnline || w.handshake) {
      this.settle(w, new DeviceError('timeout', 'the device did not answer in time'));
      return;
    }
    // Silence where an answer was due: perhaps it was lost. Ask for it once more.
    this.recall(w);
  }

  private recall(w: Waiter): void {
    w.phase = 'recalling';
    this.arm(w, this.commandMs, () => this.onAnswerTimeout(w));
    if (w.acked) this.transmit(w, { t: 'recall', rid: w.rid });
    else this.transmit(w, w.message); // never reached the device: sending it again is safe
  }

  /** The line failed under a request: wait for the device to come back, then recall it. */
  private lose(w: Waiter): void {
    if (!this.waiters.has(w.rid) || w.phase === 'lost') return;
    w.phase = 'lost';
    this.arm(w, this.recoverMs, () => this.settle(w, new DeviceError('offline', 'the device was disconnected and did not come back in time')));
  }

  private settle(w: Waiter, outcome: DeviceMessage | DeviceError): void {
    if (this.waiters.get(w.rid) !== w) return;
    this.waiters.delete(w.rid);
    if (w.timer !== undefined) this.timers.clear(w.timer);
    if (outcome instanceof DeviceError) w.reject(outcome);
    else w.resolve(outcome);
  }

  private unexpected(): DeviceError {
    return new DeviceError('device_error', 'the device answered with an unexpected message');
  }

  // -- incoming -----------------------------------------------------------------------------

  private onMessage(payload: Buffer): void {
    const message = parseDeviceMessage(payload);
    if (!message) return; // not a message we understand; never echoed (it may hold card data)
    if (message.t === 'hello') {
      this.noteBoot(message.boot);
      this.identity = { firmware: message.firmware, model: message.model, serialNumber: message.serial };
      if (!this.isOnline) this.handshake();
      return;
    }
    const w = this.waiters.get(message.rid);
    if (!w) return; // a repeat of an answer already taken
    switch (message.t) {
      case 'progress':
        w.onProgress?.(message.stage);
        return;
      case 'pending':
        // Recall answered "still running": keep waiting, a bounded number of times.
        w.pendings += 1;
        if (w.pendings > 5) {
          this.settle(w, new DeviceError('timeout', 'the device did not finish in time'));
          return;
        }
        w.phase = 'waiting';
        this.arm(w, w.answerMs, () => this.onAnswerTimeout(w));
        return;
      case 'unknown':
        this.settle(w, new DeviceError('device_error', 'the device has no record of this request'));
        return;
      case 'failed':
        this.settle(w, new DeviceError(FAILURE_CODE[message.reason], FAILURE_TEXT[message.reason]));
        return;
      default:
        this.settle(w, message);
    }
  }

  private noteStatus(answer: Extract<DeviceMessage, { t: 'status' }>): DeviceInfo {
    this.noteBoot(answer.boot);
    if (answer.firmware !== undefined || !this.identity) {
      this.identity = { firmware: answer.firmware ?? '', model: answer.model ?? '', serialNumber: answer.serial ?? '' };
    }
    this.info = { ...this.identity, cardInserted: answer.card_inserted, busy: answer.busy };
    if (!this.closed) {
      this.isOnline = true;
      this.clearTimer('recoverTimer');
      this.listener.online(this.info);
    }
    return this.info;
  }

  /** A different boot id than the one we knew: the device restarted and lost what it was doing. */
  private noteBoot(boot: string): void {
    const known = this.boot;
    this.boot = boot;
    if (known === undefined || known === boot) return;
    for (const w of [...this.waiters.values()]) {
      if (!w.handshake) this.settle(w, new DeviceError('reset', 'the device restarted'));
    }
    this.listener.reset();
  }

  // -- connection ---------------------------------------------------------------------------

  private onOpen(): void {
    if (this.closed) return;
    this.link.reset('the port was reopened');
    this.handshake();
  }

  private handshake(): void {
    if (this.closed || this.handshaking) return;
    this.handshaking = true;
    this.clearTimer('probeTimer');
    this.request({ t: 'status', rid: this.rid('h'), info: true }, this.commandMs, undefined, true)
      .then((answer) => {
        this.handshaking = false;
        if (answer.t !== 'status') throw this.unexpected();
        this.noteStatus(answer);
        this.resume();
        this.scheduleHeartbeat();
      })
      .catch(() => {
        this.handshaking = false;
        if (this.closed) return;
        if (this.isOnline) this.goOffline('the device is not answering');
        if (this.transport.isOpen) this.probeTimer = this.timers.set(() => this.handshake(), this.probeMs);
      });
  }

  /** Back online: requests cut off by the outage are recalled (or sent again if never received). */
  private resume(): void {
    for (const w of [...this.waiters.values()]) {
      if (w.phase === 'lost') this.recall(w);
    }
  }

  private scheduleHeartbeat(): void {
    this.clearTimer('heartbeatTimer');
    if (this.closed) return;
    this.heartbeatTimer = this.timers.set(() => {
      this.heartbeatTimer = undefined;
      if (!this.isOnline || this.closed) return;
      // Also while a payment waits for the card: silence then must not go unnoticed for minutes.
      if (this.link.busy) {
        this.scheduleHeartbeat();
        return;
      }
      this.status().then(
        () => this.scheduleHeartbeat(),
        () => undefined, // the link failure has already taken the lane offline
      );
    }, this.heartbeatMs);
  }

  private onLinkFailure(_err: LinkError): void {
    this.goOffline('the device is not answering');
    if (this.transport.isOpen && !this.closed) {
      this.clearTimer('probeTimer');
      this.probeTimer = this.timers.set(() => this.handshake(), this.probeMs);
    }
  }

  private goOffline(reason: string): void {
    if (this.closed) return;
    const wasOnline = this.isOnline;
    this.isOnline = false;
    this.clearTimer('heartbeatTimer');
    if (wasOnline) {
      this.clearTimer('recoverTimer');
      this.recoverTimer = this.timers.set(() => (this.recoverTimer = undefined), this.recoverMs);
    }
    for (const w of [...this.waiters.values()]) {
      if (w.handshake) continue;
      if (w.phase !== 'lost') this.lose(w);
    }
    if (!this.transport.isOpen) this.link.reset(reason);
    if (wasOnline || reason !== this.lastOffline) this.listener.offline(reason);
    this.lastOffline = reason;
  }

  private lastOffline: string | undefined;

  private clearTimer(name: 'probeTimer' | 'heartbeatTimer' | 'recoverTimer'): void {
    const handle = this[name];
    if (handle !== undefined) this.timers.clear(handle);
    this[name] = undefined;
  }
}
