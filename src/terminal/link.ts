import { randomInt } from 'node:crypto';
import { encodeFrame, FrameDecoder, type Frame } from './frame';
import { realTimers, wireMs, type Timers } from './timers';

export type LinkErrorCode = 'no_ack' | 'reset' | 'closed';

export class LinkError extends Error {
  override readonly name = 'LinkError';
  constructor(
    readonly code: LinkErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface LinkOptions {
  /** Puts bytes on the line (the serial port's write). */
  write(bytes: Buffer): void;
  /** A new message from the peer (duplicates are already dropped). The buffer may be zeroed after. */
  onMessage(payload: Buffer): void;
  /** A frame went unacknowledged after every resend: the peer is gone or the line is unusable. */
  onFailure?(error: LinkError): void;
  /** Wait for an ACK before resending, on top of the frame's own wire time (default 250 ms). */
  ackTimeoutMs?: number;
  /** Resends after the first send, on NAK or silence (default 3). */
  retries?: number;
  /** For the wire-time part of the ACK wait (default 115200). */
  baudRate?: number;
  /** A partial frame whose bytes stop for this long is abandoned and rescanned (default 100 ms). */
  gapMs?: number;
  /** How many recent message ids are remembered to drop duplicates (default 64). */
  remember?: number;
  timers?: Timers;
}

export interface LinkStats {
  sent: number;
  resent: number;
  received: number;
  duplicates: number;
  corrupt: number;
  naksSent: number;
  naksReceived: number;
  skippedBytes: number;
}

interface Outgoing {
  payload: Buffer;
  resolve(): void;
  reject(err: LinkError): void;
}

interface InFlight extends Outgoing {
  bytes: Buffer;
  seq: number;
  msgId: number;
  attempts: number;
  timer: unknown;
}

/**
 * The link layer: stop-and-wait with acknowledgements. Each DATA frame waits for its ACK; a NAK
 * or silence resends it (the same SEQ and MSGID) up to `retries` times, after which every queued
 * message fails and `onFailure` tells the lane. Received DATA frames are always acknowledged (a
 * lost ACK makes the peer resend) and delivered once, by MSGID. Both directions run at once: an
 * ACK never waits behind a DATA frame.
 */
export class Link {
  private readonly decoder = new FrameDecoder();
  private readonly queue: Outgoing[] = [];
  private inFlight: InFlight | undefined;
  private seq = 0;
  private msgId = randomInt(0, 0xffffffff);
  private readonly recent: number[] = [];
  private readonly recentSet = new Set<number>();
  private gapTimer: unknown;
  private closed = false;
  readonly stats: LinkStats = { sent: 0, resent: 0, received: 0, duplicates: 0, corrupt: 0, naksSent: 0, naksReceived: 0, skippedBytes: 0 };
  private readonly timers: Timers;
  private readonly ackTimeoutMs: number;
  private readonly retries: number;
  private readonly baudRate: number;
  private readonly gapMs: number;
  private readonly remember: number;

  constructor(private readonly options: LinkOptions) {
    this.timers = options.timers ?? realTimers;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 250;
    this.retries = options.retries ?? 3;
    this.baudRate = options.baudRate ?? 115200;
    this.gapMs = options.gapMs ?? 100;
    this.remember = options.remember ?? 64;
  }

  /** Resolves once the peer acknowledged the message; rejects with a LinkError otherwise. */
  send(payload: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new LinkError('closed', 'the link is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ payload, resolve, reject });
      this.pump();
    });
  }

  /** Bytes read from the line, in whatever pieces they came. */
  receive(chunk: Uint8Array): void {
    if (this.closed) return;
    const before = this.decoder.skipped;
    const events = this.decoder.push(chunk);
    this.handle(events, before);
    this.armGapTimer();
  }

  /** The line was reopened: what was in flight or queued fails; a half-read frame is dropped. */
  reset(reason = 'the line was reset'): void {
    this.decoder.clear();
    this.failAll(new LinkError('reset', reason));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.gapTimer !== undefined) this.timers.clear(this.gapTimer);
    this.decoder.clear();
    this.failAll(new LinkError('closed', 'the link is closed'));
  }

  /** Messages queued or waiting for an ACK. */
  get busy(): boolean {
    return this.inFlight !== undefined || this.queue.length > 0;
  }

  private handle(events: ReturnType<FrameDecoder['push']>, skippedBefore: number): void {
    this.stats.skippedBytes += this.decoder.skipped - skippedBefore;
    for (const event of events) {
      if (event.kind === 'corrupt') {
        this.stats.corrupt += 1;
        this.stats.naksSent += 1;
        this.transmit(encodeFrame({ type: 'nak', seq: 0, msgId: 0, payload: Buffer.alloc(0) }));
        continue;
      }
      this.onFrame(event.frame);
    }
  }

  private onFrame(frame: Frame): void {
    switch (frame.type) {
      case 'data': {
        this.transmit(encodeFrame({ type: 'ack', seq: frame.seq, msgId: frame.msgId, payload: Buffer.alloc(0) }));
        if (this.recentSet.has(frame.msgId)) {
          this.stats.duplicates += 1;
          frame.payload.fill(0);
          return;
        }
        this.recentSet.add(frame.msgId);
        this.recent.push(frame.msgId);
        if (this.recent.length > this.remember) this.recentSet.delete(this.recent.shift() ?? -1);
        this.stats.received += 1;
        this.options.onMessage(frame.payload);
        return;
      }
      case 'ack': {
        const f = this.inFlight;
        if (!f || f.seq !== frame.seq || f.msgId !== frame.msgId) return; // a late ACK of an earlier copy
        this.timers.clear(f.timer);
        this.inFlight = undefined;
        f.bytes.fill(0);
        f.resolve();
        this.pump();
        return;
      }
      case 'nak': {
        this.stats.naksReceived += 1;
        const f = this.inFlight;
        if (!f) return;
        this.timers.clear(f.timer);
        this.retry(f);
        return;
      }
    }
  }

  private pump(): void {
    if (this.inFlight || this.closed) return;
    const next = this.queue.shift();
    if (!next) return;
    this.seq = (this.seq + 1) & 0xff;
    this.msgId = (this.msgId + 1) >>> 0;
    const bytes = encodeFrame({ type: 'data', seq: this.seq, msgId: this.msgId, payload: next.payload });
    const f: InFlight = { ...next, bytes, seq: this.seq, msgId: this.msgId, attempts: 0, timer: undefined };
    this.inFlight = f;
    this.attempt(f);
  }

  private attempt(f: InFlight): void {
    f.attempts += 1;
    if (f.attempts === 1) this.stats.sent += 1;
    else this.stats.resent += 1;
    this.transmit(f.bytes);
    // The frame itself and its ACK both take wire time before silence means anything.
    const wait = this.ackTimeoutMs + 2 * wireMs(f.bytes.length + 13, this.baudRate);
    f.timer = this.timers.set(() => this.retry(f), wait);
  }

  private retry(f: InFlight): void {
    if (this.inFlight !== f) return;
    if (f.attempts <= this.retries) {
      this.attempt(f);
      return;
    }
    const error = new LinkError('no_ack', `no acknowledgement after ${f.attempts} sends`);
    this.failAll(error);
    this.options.onFailure?.(error);
  }

  private failAll(error: LinkError): void {
    const f = this.inFlight;
    this.inFlight = undefined;
    if (f) {
      this.timers.clear(f.timer);
      f.bytes.fill(0);
      f.reject(error);
    }
    for (const q of this.queue.splice(0)) q.reject(error);
  }

  private transmit(bytes: Buffer): void {
    try {
      this.options.write(bytes);
    } catch {
      // The port went away under us: silence follows, and the ACK wait turns it into a failure.
    }
  }

  private armGapTimer(): void {
    if (this.gapTimer !== undefined) {
      this.timers.clear(this.gapTimer);
      this.gapTimer = undefined;
    }
    if (this.decoder.pending === 0 || this.closed) return;
    this.gapTimer = this.timers.set(() => {
      this.gapTimer = undefined;
      const before = this.decoder.skipped;
      this.handle(this.decoder.resync(), before);
      this.armGapTimer();
    }, this.gapMs);
  }
}
