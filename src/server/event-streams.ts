import type { Application, Response } from 'express';
import type { EngineCore } from '../engine/core';
import type { DomainEvent } from '../engine/events';

const HEARTBEAT_MS = 15_000;
/** Events read and sent per turn of the event loop while a stream replays. */
const REPLAY_PAGE = 100;
/**
 * Streams one credential or user (Principal.credential) holds open at once: a screen holds one
 * (a browser tab shares it among its parts). A new stream past it closes that credential's oldest:
 * a tab that reconnects after its network dropped is not refused for the stream the server has not
 * yet seen die. `--max-streams` changes it.
 */
export const STREAMS_PER_CREDENTIAL = 8;
/**
 * How many events a stream replays at most (a screen away for a minute misses a few hundred). A
 * client further behind gets `stream.resync`: it reads the state again and follows from there.
 */
export const MAX_REPLAY = 10_000;
/** Live events a stream holds while its replay or a credential check runs; past it the stream ends (the client resumes). */
const MAX_HELD = 5_000;
/** Bytes a live stream may queue for a client that does not read; past it the stream ends (the client resumes). */
export const MAX_QUEUED = 1 << 20;

export interface EventStreamLimits {
  /** Streams one credential or user holds open (default STREAMS_PER_CREDENTIAL). */
  perCredential?: number;
  /** Events a stream replays at most (default MAX_REPLAY). */
  maxReplay?: number;
}

/** An app's open event streams, by credential or user. */
export class EventStreams {
  readonly perCredential: number;
  readonly maxReplay: number;
  private readonly open = new Map<string, LiveStream[]>();

  constructor(limits: EventStreamLimits = {}) {
    this.perCredential = Math.max(1, limits.perCredential ?? STREAMS_PER_CREDENTIAL);
    this.maxReplay = Math.max(0, limits.maxReplay ?? MAX_REPLAY);
  }

  /** Counts a new stream in; its credential's oldest are closed past the limit. */
  add(stream: LiveStream): void {
    let list = this.open.get(stream.credential);
    if (!list) this.open.set(stream.credential, (list = []));
    list.push(stream);
    while (list.length > this.perCredential) list.shift()!.replaced();
  }

  remove(stream: LiveStream): void {
    const list = this.open.get(stream.credential);
    const at = list?.indexOf(stream) ?? -1;
    if (at >= 0) list!.splice(at, 1);
    if (list?.length === 0) this.open.delete(stream.credential);
  }

  /** The streams open now: whose, whether still replaying, and the bytes queued for the client. */
  list(): Array<{ credential: string; replaying: boolean; queued: number }> {
    return [...this.open.values()].flat().map((s) => ({ credential: s.credential, replaying: s.replaying, queued: s.res.writableLength }));
  }
}

/** The app's streams (createApp sets them up with its limits). */
export function eventStreamsOf(app: Application): EventStreams {
  const locals = app.locals as { eventStreams?: EventStreams };
  return (locals.eventStreams ??= new EventStreams());
}

export type EventFilter = (e: DomainEvent) => boolean;

export interface LiveStreamOptions {
  streams: EventStreams;
  core: EngineCore;
  res: Response;
  /** Whose stream it is (Principal.credential: an API token, or `user:<id>`). */
  credential: string;
  /** The events its reader may see. */
  visible: EventFilter;
  /** Checks the credentials again: the events they may see now, or a rejection that ends the stream. */
  recheck(): Promise<EventFilter>;
  /** Events after which the credentials are checked again (a credential or a user changed). */
  revokes(e: DomainEvent): boolean;
  /** The watermark the client has seen (Last-Event-ID); none: from now; `unknown`: an id that is no watermark at all. */
  after: number | 'unknown' | undefined;
}

function frame(e: DomainEvent): string {
  return `id: ${e.watermark}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

/**
 * An event about the stream itself, in the shape of the others (entity `stream`, sent to every
 * role): `stream.resync` carries the watermark the stream follows from as its id; `stream.closed`
 * carries none, so the client's Last-Event-ID stays that of the last change it got.
 */
function streamEvent(type: 'stream.resync' | 'stream.closed', key: string, watermark: number, at: number, data: Record<string, unknown>): string {
  const body = { watermark, type, entity: 'stream', key, at: new Date(at).toISOString(), data };
  return `${type === 'stream.resync' ? `id: ${watermark}\n` : ''}event: ${type}\ndata: ${JSON.stringify(body)}\n\n`;
}

/**
 * Resolves on a later turn of the event loop, once the client's socket takes more (or closed): a
 * replay goes on only then, so other requests are answered meanwhile and a client that does not
 * read is not sent the whole outbox into memory.
 */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const next = () => setImmediate(resolve);
    if (!res.writableNeedDrain || res.destroyed) return next();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      next();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * One Server-Sent Events stream of domain events. It subscribes before it replays and holds live
 * events until the replay has caught up, so a client that resumes with Last-Event-ID gets no gap
 * and no repeat. It is checked again as a new request would be (credential or user disabled, role
 * changed, JWT expired or its key rotated) whenever a credential or a user changes, and at each
 * heartbeat; events wait while the check runs, and a stream that fails it ends.
 */
export class LiveStream {
  replaying = true;
  readonly credential: string;
  readonly res: Response;
  private readonly o: LiveStreamOptions;
  private visible: EventFilter;
  private cursor: number;
  /** The client sent an id that is no watermark (`abc`, `-5`): it cannot be resumed from, only resynced. */
  private readonly unknownId: boolean;
  private readonly held: DomainEvent[] = [];
  private holds = 1;
  private ended = false;
  private checking = false;
  private unsubscribe: () => void = () => undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(options: LiveStreamOptions) {
    this.o = options;
    this.credential = options.credential;
    this.res = options.res;
    this.visible = options.visible;
    this.unknownId = options.after === 'unknown';
    this.cursor = typeof options.after === 'number' ? options.after : options.core.committedWatermark();
  }

  /** Sends what the client missed, then what happens, until the client or the server ends it. */
  async run(): Promise<void> {
    const { core, res, streams } = this.o;
    this.unsubscribe = core.bus.subscribe((e) => this.onEvent(e));
    this.heartbeat = setInterval(() => {
      this.send(': heartbeat\n\n');
      this.recheck();
    }, HEARTBEAT_MS);
    res.on('close', () => this.finish());
    streams.add(this);
    const newest = core.committedWatermark();
    if (this.unknownId || this.cursor > newest || newest - this.cursor > streams.maxReplay) this.resync(newest);
    else if (!(await this.replay())) return;
    this.replaying = false;
    this.release();
  }

  /** Closed for a newer stream of the same credentials (past their limit), telling the client why. */
  replaced(): void {
    const { perCredential } = this.o.streams;
    this.res.write(
      streamEvent('stream.closed', 'too_many_streams', this.cursor, this.o.core.clock.now(), {
        limit: perCredential,
        message: `More than ${perCredential} event streams were opened with these credentials: the oldest is closed. Close the screens not in use.`,
      }),
    );
    this.end();
  }

  /**
   * The outbox after the cursor, a page at a time with a turn of the event loop between pages,
   * and sent no faster than the client takes it; false when the stream ended meanwhile.
   */
  private async replay(): Promise<boolean> {
    for (;;) {
      const page = await this.o.core.eventsSince(this.cursor, REPLAY_PAGE);
      for (const e of page) {
        if (this.res.writableNeedDrain) await writable(this.res);
        if (this.ended) return false;
        this.cursor = e.watermark;
        if (this.visible(e)) this.res.write(frame(e));
      }
      if (this.ended) return false;
      if (page.length < REPLAY_PAGE) return true;
      await writable(this.res);
    }
  }

  /**
   * Too far behind to replay, or an id this install never gave (another install's, a restored
   * backup's): the client reads the state again and follows from here.
   */
  private resync(newest: number): void {
    const { maxReplay } = this.o.streams;
    const behind = !this.unknownId && this.cursor <= newest;
    this.res.write(
      streamEvent('stream.resync', behind ? 'too_far_behind' : 'unknown_watermark', newest, this.o.core.clock.now(), {
        after: this.unknownId ? null : this.cursor,
        max_replay: maxReplay,
        message: behind
          ? `More than ${maxReplay} events were missed: read the state again; the events after this one follow.`
          : 'This install has given no such watermark: read the state again; the events after this one follow.',
      }),
    );
    this.cursor = newest;
  }

  private onEvent(e: DomainEvent): void {
    if (this.ended) return;
    if (this.holds === 0) this.deliver(e);
    else if (this.held.length < MAX_HELD) this.held.push(e);
    // Too far behind while it replays: the client resumes from what it got.
    else return this.end();
    if (this.o.revokes(e)) this.recheck();
  }

  private send(text: string): void {
    this.res.write(text);
    // A live client that stopped reading is let go before its queue grows without bound (the
    // replay waits for its client instead); it resumes with Last-Event-ID.
    if (!this.replaying && this.res.writableLength > MAX_QUEUED) this.end();
  }

  private deliver(e: DomainEvent): void {
    if (this.ended || e.watermark <= this.cursor) return;
    this.cursor = e.watermark;
    if (this.visible(e)) this.send(frame(e));
  }

  private release(): void {
    if (--this.holds > 0 || this.ended) return;
    for (const e of this.held.splice(0)) this.deliver(e);
  }

  private recheck(): void {
    if (this.checking || this.ended) return;
    this.checking = true;
    this.holds++;
    this.o.recheck().then(
      (visible) => {
        this.visible = visible;
        this.checking = false;
        this.release();
      },
      () => this.end(),
    );
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.held.length = 0;
    clearInterval(this.heartbeat);
    this.unsubscribe();
    this.o.streams.remove(this);
  }

  private end(): void {
    this.finish();
    this.res.end();
  }
}
