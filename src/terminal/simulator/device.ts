import { randomBytes } from 'node:crypto';
import { encodeFrame, FrameDecoder } from '../frame';
import { Link } from '../link';
import { encodeMessage, parseHostMessage, type DeviceMessage, type HostMessage, type Stage } from '../protocol';
import { realTimers, type Timers } from '../timers';
import type { ByteTransport } from '../transport';
import { adHocCard, DECLINE_CARD, DEFAULT_CARD, findCard, maskCard, type Cvm, type EntryMode, type SimCard } from './cards';
import { money, spread } from './screen';
import { signatureImage } from './signature';
import { FAST_PACE, type Pace, type Scenario, type SimulatorOptions } from './options';

export { SCENARIOS, FAST_PACE, HUMAN_PACE, type Pace, type Scenario, type SimulatorOptions } from './options';

/** The tip a customer who picks `percent` adds to `amountCents`, rounded half up to the cent. */
export function tipForPercent(amountCents: number, percent: number): number {
  return Math.round((amountCents * percent) / 100);
}


type ReadMessage = Extract<HostMessage, { t: 'read' }>;
type ResultMessage = Extract<HostMessage, { t: 'result' }>;

type Activity =
  | { kind: 'read'; rid: string; msg: ReadMessage; timers: unknown[]; inserted: boolean }
  | { kind: 'authorizing'; rid: string; timers: unknown[]; inserted: boolean }
  | { kind: 'result'; rid: string; msg: ResultMessage; timers: unknown[]; inserted: boolean }
  | { kind: 'signature'; rid: string; timers: unknown[]; inserted: boolean };

interface Setup {
  laneName: string;
  merchantName: string;
  currency: string;
  tip: { enabled: boolean; percentages: number[] };
}

const REMEMBERED_ANSWERS = 32;
/** A device left waiting for an outcome that never comes gives up after this. */
const AUTHORIZING_LIMIT_MS = 180_000;

/**
 * A payment device on the far end of a lane, as a program: it speaks the lane protocol over any
 * byte transport, shows what a device's screen would, and plays the customer according to a
 * scenario (or waits for a person to play them). Faults (garbage, NAK storms, silence, resets) are
 * produced here too, so the driver meets them over a real serial pair.
 */
export class SimulatedDevice {
  readonly screens: string[][] = [];
  private screen: string[] = [];
  private boot = randomBytes(4).toString('hex');
  private readonly link: Link;
  private readonly timers: Timers;
  private readonly pace: Pace;
  private scenario: Scenario;
  private cardPan: string | undefined;
  private activity: Activity | undefined;
  private readonly answers = new Map<string, DeviceMessage>();
  private readonly undelivered = new Map<string, DeviceMessage>();
  private setupDone: Setup = { laneName: 'Lane', merchantName: '', currency: 'USD', tip: { enabled: false, percentages: [] } };
  private silentTimer: unknown;
  private idleTimer: unknown;
  private silent = false;
  private readonly nakDecoder = new FrameDecoder();
  private frameCount = 0;
  private garbageSeed = 0x2545f491;
  private started = false;
  private closed = false;

  constructor(
    private readonly transport: ByteTransport,
    private readonly options: SimulatorOptions = {},
  ) {
    this.timers = options.timers ?? realTimers;
    this.pace = { ...FAST_PACE, ...(options.pace ?? {}) };
    this.scenario = options.scenario ?? 'approve';
    this.cardPan = options.card;
    this.link = new Link({
      write: (bytes) => this.writeOut(bytes),
      onMessage: (payload) => this.onMessage(payload),
      ...(options.link ?? {}),
      timers: this.timers,
    });
  }

  get currentScreen(): readonly string[] {
    return this.screen;
  }

  get bootId(): string {
    return this.boot;
  }

  get linkStats() {
    return this.link.stats;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.showIdle();
    this.transport.start({
      open: () => {
        this.event('port open');
        this.link.reset('port reopened');
        this.hello();
      },
      data: (chunk) => this.readIn(chunk),
      closed: (reason) => this.event(`port closed: ${reason}`),
      error: (message) => this.event(message),
    });
  }

  setScenario(scenario: Scenario): void {
    this.scenario = scenario;
    this.event(`scenario: ${scenario}`);
  }

  setCard(pan: string | undefined): void {
    this.cardPan = pan;
  }

  /** The customer presents a card now (interactive use). */
  present(pan?: string, entry?: EntryMode): boolean {
    const a = this.activity;
    if (a?.kind !== 'read' || a.inserted) return false;
    this.readCardFlow(a, this.pickCard(pan), entry);
    return true;
  }

  /** The customer presses the red key. */
  customerCancel(): boolean {
    const a = this.activity;
    if (!a || a.kind === 'authorizing') return false;
    this.abort('cancelled', 'CANCELLED BY CUSTOMER');
    return true;
  }

  /** The customer pulls the card out while it is being read. */
  removeCard(): boolean {
    const a = this.activity;
    if (a?.kind !== 'read' || !a.inserted) return false;
    this.abort('card_removed', 'CARD REMOVED');
    return true;
  }

  /** Power cycle: a new boot id, nothing remembered, a hello to the host. */
  restart(): void {
    this.event('device restarting');
    this.stopActivity();
    this.answers.clear();
    this.undelivered.clear();
    this.boot = randomBytes(4).toString('hex');
    this.link.reset('device restarted');
    this.showIdle();
    this.hello();
  }

  /** Stops answering (and hearing) for a while, as if the cable were out. */
  goSilent(ms: number): void {
    this.silent = true;
    this.event(`silent for ${ms} ms`);
    if (this.silentTimer !== undefined) this.timers.clear(this.silentTimer);
    this.silentTimer = this.timers.set(() => {
      this.silent = false;
      this.silentTimer = undefined;
      this.event('talking again');
    }, ms);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopActivity();
    if (this.silentTimer !== undefined) this.timers.clear(this.silentTimer);
    this.silent = false;
    this.link.close();
    await this.transport.close();
  }

  // -- line ---------------------------------------------------------------------------------

  private writeOut(bytes: Buffer): void {
    if (this.silent || !this.transport.isOpen) return;
    if (this.scenario === 'garbage') {
      this.frameCount += 1;
      this.transport.write(this.garbage(1 + (this.frameCount % 7)));
      if (this.frameCount % 4 === 0 && bytes.length > 8) {
        const spoiled = Buffer.from(bytes);
        spoiled[spoiled.length - 3] = (spoiled[spoiled.length - 3] ?? 0) ^ 0x5a;
        this.transport.write(spoiled);
        return;
      }
    }
    this.transport.write(bytes);
  }

  private readIn(chunk: Buffer): void {
    if (this.silent) return;
    if (this.scenario === 'nak_storm') {
      // Everything is "corrupt" to this device: it NAKs every frame and hears nothing.
      for (const e of this.nakDecoder.push(chunk)) {
        if (e.kind === 'frame' && e.frame.type !== 'data') continue;
        if (this.transport.isOpen) this.transport.write(encodeFrame({ type: 'nak', seq: 0, msgId: 0, payload: Buffer.alloc(0) }));
      }
      return;
    }
    this.link.receive(chunk);
  }

  private garbage(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      this.garbageSeed ^= this.garbageSeed << 13;
      this.garbageSeed ^= this.garbageSeed >>> 17;
      this.garbageSeed ^= this.garbageSeed << 5;
      out[i] = this.garbageSeed & 0xff;
    }
    return out;
  }

  private send(message: DeviceMessage): void {
    this.link.send(encodeMessage(message)).catch(() => {
      // Not acknowledged: a final answer is kept and sent again when the host is next heard from
      // (the host may also recall it by rid).
      if (message.t !== 'hello' && message.t !== 'progress' && this.answers.get(message.rid) === message) this.undelivered.set(message.rid, message);
    });
  }

  private redeliver(): void {
    if (this.undelivered.size === 0) return;
    const pending = [...this.undelivered.values()];
    this.undelivered.clear();
    for (const message of pending) this.send(message);
  }

  private hello(): void {
    if (!this.transport.isOpen) return;
    this.send({ t: 'hello', boot: this.boot, firmware: this.firmware, model: this.model, serial: this.serial });
  }

  private get firmware(): string {
    return this.options.firmware ?? 'LWSIM-1.4.2';
  }

  private get model(): string {
    return this.options.model ?? 'Laneway Sim P400';
  }

  private get serial(): string {
    return this.options.serial ?? 'SIM-0001';
  }

  /** A final answer: remembered by rid, so a repeat or a recall gets it again. */
  private answer(message: Exclude<DeviceMessage, { t: 'hello' }>): void {
    this.answers.set(message.rid, message);
    if (this.answers.size > REMEMBERED_ANSWERS) this.answers.delete(this.answers.keys().next().value ?? '');
    this.send(message);
  }

  private progress(rid: string, stage: Stage): void {
    this.send({ t: 'progress', rid, stage });
  }

  // -- requests -----------------------------------------------------------------------------

  private onMessage(payload: Buffer): void {
    const message = parseHostMessage(payload);
    if (!message) {
      this.event('ignored a message it does not understand');
      return;
    }
    this.redeliver();
    const remembered = this.answers.get(message.rid);
    if (remembered && message.t !== 'status' && message.t !== 'cancel') {
      this.send(remembered); // a repeat: the same answer, never a second run
      return;
    }
    // A request repeated while it runs (the host resent it after an outage): its answer will come.
    if (this.activity?.rid === message.rid && message.t !== 'recall') return;
    switch (message.t) {
      case 'status':
        this.answer({
          t: 'status',
          rid: message.rid,
          boot: this.boot,
          ...(message.info ? { firmware: this.firmware, model: this.model, serial: this.serial } : {}),
          card_inserted: this.activity?.inserted ?? false,
          busy: this.activity !== undefined,
        });
        return;
      case 'recall':
        if (this.activity?.rid === message.rid) this.send({ t: 'pending', rid: message.rid });
        else this.send({ t: 'unknown', rid: message.rid });
        return;
      case 'cancel':
        this.onCancel(message.rid);
        return;
      case 'setup':
        if (this.activity && this.activity.kind !== 'authorizing') {
          this.answer({ t: 'failed', rid: message.rid, reason: 'busy' });
          return;
        }
        this.setupDone = { laneName: message.lane_name, merchantName: message.merchant_name, currency: message.currency, tip: message.tip };
        this.event(`set up as "${message.lane_name}" (${message.currency}${message.tip.enabled ? ', tips on' : ''}, signature ${message.signature.capture})`);
        if (!this.activity) this.showIdle();
        this.answer({ t: 'ok', rid: message.rid });
        return;
      case 'read':
        this.onRead(message);
        return;
      case 'result':
        this.onResult(message);
        return;
      case 'signature':
        this.onSignature(message.rid, message.timeout_s);
        return;
    }
  }

  private onRead(msg: ReadMessage): void {
    if (this.scenario === 'busy' || (this.activity && this.activity.kind !== 'authorizing')) {
      this.event('busy: refused a payment');
      this.answer({ t: 'failed', rid: msg.rid, reason: 'busy', message: 'device busy' });
      return;
    }
    this.stopActivity();
    const a: Activity = { kind: 'read', rid: msg.rid, msg, timers: [], inserted: false };
    this.activity = a;
    const amount = money(msg.amount_cents, msg.currency);
    this.show([this.setupDone.laneName, spread(msg.kind.toUpperCase(), amount), '', 'INSERT, TAP OR SWIPE', msg.manual_entry ? 'OR KEY IN CARD NUMBER' : '']);
    this.event(`${msg.kind} of ${amount}: waiting for a card`);
    this.progress(msg.rid, 'insert_card');
    const waitMs = this.options.cardTimeoutMs ?? msg.timeout_s * 1000;
    this.later(a, waitMs, () => this.abort('timeout', 'TIMED OUT'));
    if (this.options.interactive) return;
    this.later(a, this.pace.presentMs, () => this.customerActs(a));
  }

  private customerActs(a: Extract<Activity, { kind: 'read' }>): void {
    switch (this.scenario) {
      case 'timeout':
        return; // nobody comes
      case 'customer_cancels':
        this.abort('cancelled', 'CANCELLED BY CUSTOMER');
        return;
      case 'reset':
        this.restart();
        return;
      case 'decline':
        this.readCardFlow(a, this.pickCard(this.cardPan ?? DECLINE_CARD.pan));
        return;
      default:
        this.readCardFlow(a, this.pickCard(this.cardPan));
    }
  }

  private pickCard(pan: string | undefined): SimCard {
    if (!pan) return DEFAULT_CARD;
    return findCard(pan) ?? adHocCard(pan);
  }

  private readCardFlow(a: Extract<Activity, { kind: 'read' }>, card: SimCard, entryOverride?: EntryMode): void {
    let entry: EntryMode = entryOverride ?? this.options.entry ?? card.entry;
    if (entry === 'manual' && !a.msg.manual_entry) entry = card.entry === 'manual' ? 'chip' : card.entry;
    let cvm: Cvm = card.cvm;
    if (this.scenario === 'pin') cvm = 'pin';
    if (this.scenario === 'signature') cvm = 'signature';
    if (entry === 'contactless' && this.scenario !== 'pin' && this.scenario !== 'signature') cvm = 'none';
    if (entry === 'swipe' && cvm === 'pin') cvm = 'signature';
    if (entry === 'manual') cvm = this.scenario === 'signature' ? 'signature' : 'none';
    a.inserted = entry === 'chip';
    const verb = { chip: 'inserted', contactless: 'tapped', swipe: 'swiped', manual: 'keyed in' }[entry];
    this.event(`customer ${verb} ${card.brand} ${maskCard(card.pan)}`);
    this.progress(a.rid, entry === 'manual' ? 'manual_entry' : 'reading');
    this.show([this.setupDone.laneName, entry === 'manual' ? 'KEYED ENTRY' : 'READING CARD', 'DO NOT REMOVE CARD'].slice(0, entry === 'chip' ? 3 : 2));
    if (this.scenario === 'card_removed') {
      this.later(a, this.pace.readMs, () => this.abort('card_removed', 'CARD REMOVED'));
      return;
    }
    if (this.scenario === 'disconnect') {
      this.goSilent(this.options.silenceMs ?? 10_000);
    }
    const steps: Array<{ ms: number; run: () => void }> = [];
    let tipCents = 0;
    if (a.msg.tip && this.setupDone.tip.enabled) {
      steps.push({
        ms: this.pace.pinMs,
        run: () => {
          this.progress(a.rid, 'tip');
          const pct = this.options.tipPercent ?? 0;
          tipCents = tipForPercent(a.msg.amount_cents, pct);
          this.show(['ADD A TIP?', this.setupDone.tip.percentages.map((p) => `${p}%`).join(' '), 'NO TIP', pct ? `CHOSE ${pct}%` : 'CHOSE NO TIP']);
        },
      });
    }
    if (cvm === 'pin') {
      steps.push({
        ms: this.pace.pinMs,
        run: () => {
          this.progress(a.rid, 'pin');
          this.show([spread('TOTAL', money(a.msg.amount_cents + tipCents, a.msg.currency)), 'ENTER PIN', '****', 'PRESS OK']);
          this.event('customer entered the PIN');
        },
      });
    }
    let delay = this.pace.readMs;
    for (const step of steps) {
      this.later(a, delay, step.run);
      delay += step.ms;
    }
    this.later(a, delay, () => {
      const now = new Date();
      const year = String(now.getFullYear() + 3);
      const emv = entry === 'chip' || entry === 'contactless' ? { aid: card.aid, label: card.label.slice(0, 16), tvr: '0000000000', tsi: entry === 'chip' ? 'E800' : '0000' } : undefined;
      const answer: DeviceMessage = {
        t: 'card',
        rid: a.rid,
        entry_mode: entry,
        pan: card.pan,
        exp_month: '12',
        exp_year: year,
        name: card.name,
        cvm,
        ...(emv ? { emv } : {}),
        tip_cents: tipCents,
      };
      this.clearTimers(a);
      const next: Activity = { kind: 'authorizing', rid: a.rid, timers: [], inserted: a.inserted };
      this.activity = next;
      this.later(next, AUTHORIZING_LIMIT_MS, () => {
        this.activity = undefined;
        this.showIdle();
      });
      this.show([this.setupDone.laneName, 'AUTHORIZING', 'PLEASE WAIT']);
      this.answer(answer);
    });
  }

  private onResult(msg: ResultMessage): void {
    const current = this.activity;
    if (current && current.kind !== 'authorizing') {
      this.answer({ t: 'failed', rid: msg.rid, reason: 'busy' });
      return;
    }
    const inserted = current?.rid === msg.of ? current.inserted : false;
    this.stopActivity();
    const a: Activity = { kind: 'result', rid: msg.rid, msg, timers: [], inserted };
    this.activity = a;
    const head = msg.approved ? 'APPROVED' : msg.message.toUpperCase() || 'DECLINED';
    this.event(`outcome: ${msg.approved ? `approved${msg.auth_code ? ` (auth ${msg.auth_code})` : ''}` : msg.message}`);
    if (msg.approved && msg.signature) {
      this.progress(msg.rid, 'signature');
      this.show([head, msg.auth_code ? `AUTH ${msg.auth_code}` : '', 'PLEASE SIGN BELOW', '____________________']);
      this.later(a, this.pace.signMs, () => this.finishResult(a, true));
      this.later(a, msg.timeout_s * 1000, () => this.finishResult(a, false));
      return;
    }
    this.show([head, msg.auth_code ? `AUTH ${msg.auth_code}` : '', inserted ? 'REMOVE CARD' : 'THANK YOU']);
    this.finishResult(a, false);
  }

  private finishResult(a: Extract<Activity, { kind: 'result' }>, signed: boolean): void {
    if (this.activity !== a) return;
    this.clearTimers(a);
    if (a.msg.signature && a.msg.approved) {
      if (signed) this.event('customer signed');
      this.show([signed ? 'THANK YOU' : 'NO SIGNATURE', a.inserted ? 'REMOVE CARD' : '']);
    }
    this.answer({
      t: 'done',
      rid: a.rid,
      ...(signed ? { signature: signatureImage(`${this.boot}:${a.msg.of}`) } : {}),
      ...(a.msg.signature && a.msg.approved && !signed ? { signature_missing: 'timeout' as const } : {}),
    });
    this.backToIdleLater();
  }

  private onSignature(rid: string, timeoutS: number): void {
    if (this.activity) {
      this.answer({ t: 'failed', rid, reason: 'busy' });
      return;
    }
    const a: Activity = { kind: 'signature', rid, timers: [], inserted: false };
    this.activity = a;
    this.show(['PLEASE SIGN BELOW', '', '____________________']);
    this.progress(rid, 'signature');
    this.later(a, this.pace.signMs, () => {
      this.clearTimers(a);
      this.event('customer signed');
      this.show(['THANK YOU']);
      this.answer({ t: 'signature', rid, ...signatureImage(`${this.boot}:${rid}`) });
      this.backToIdleLater();
    });
    this.later(a, timeoutS * 1000, () => this.abort('timeout', 'NO SIGNATURE'));
  }

  private onCancel(rid: string): void {
    const a = this.activity;
    if (!a) {
      this.answer({ t: 'cancelled', rid, active: false });
      return;
    }
    this.event('host cancelled');
    this.abort('cancelled', a.kind === 'read' ? 'CANCELLED' : 'CANCELLED - VOIDING');
    this.answer({ t: 'cancelled', rid, active: true });
  }

  /** Ends the current activity with a failure answer (or, for a result, without a signature). */
  private abort(reason: 'cancelled' | 'card_removed' | 'timeout', text: string): void {
    const a = this.activity;
    if (!a) return;
    this.clearTimers(a);
    this.show([text, a.inserted ? 'REMOVE CARD' : '']);
    this.event(text.toLowerCase());
    if (a.kind === 'read' || a.kind === 'signature') this.answer({ t: 'failed', rid: a.rid, reason });
    if (a.kind === 'result') this.answer({ t: 'done', rid: a.rid, signature_missing: reason });
    this.backToIdleLater();
  }

  /** The result stays on screen a moment, then the idle screen returns. */
  private backToIdleLater(): void {
    this.activity = undefined;
    this.clearIdle();
    this.idleTimer = this.timers.set(() => {
      this.idleTimer = undefined;
      if (!this.activity) this.showIdle();
    }, this.pace.resultMs);
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) this.timers.clear(this.idleTimer);
    this.idleTimer = undefined;
  }

  private stopActivity(): void {
    if (this.activity) this.clearTimers(this.activity);
    this.activity = undefined;
    this.clearIdle();
  }

  private later(a: Activity, ms: number, fn: () => void): void {
    a.timers.push(this.timers.set(fn, ms));
  }

  private clearTimers(a: Activity): void {
    for (const t of a.timers.splice(0)) this.timers.clear(t);
  }

  // -- screen -------------------------------------------------------------------------------

  private showIdle(): void {
    this.show([this.setupDone.laneName, this.setupDone.merchantName, '', 'WELCOME']);
  }

  private show(lines: string[]): void {
    const trimmed = lines.filter((l, i) => l !== '' || i < lines.length - 1);
    this.screen = trimmed;
    this.screens.push(trimmed);
    if (this.screens.length > 200) this.screens.shift();
    this.options.onScreen?.(trimmed);
  }

  private event(text: string): void {
    this.options.onEvent?.(text);
  }
}
