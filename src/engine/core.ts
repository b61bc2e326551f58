import { getQueryMatcher, normalizeMangoQuery, type MangoQuery, type MangoQuerySelector } from 'rxdb';
import type { Store, Raw, StoreWrite } from '../store/database';
import { stripMeta } from '../store/database';
import type { StoredDoc } from '../store/schema';
import type { Clock } from './clock';
import type { Ids } from './ids';
import { EventBus, type DomainEvent } from './events';
import type { Logger } from './logger';

export interface EventSpec {
  type: string;
  entity: string;
  key: string;
  data?: Record<string, unknown>;
}

const SEQUENCE_ID = 'sequence/watermark';

/** Events read by primary key per store call (eventsSince). */
const EVENT_READ = 500;

/**
 * A deep copy of a document: plain objects and arrays are copied by hand, which is several times
 * faster than structuredClone on the small JSON records units stage and read back (a customer with
 * its ledger, an invoice row). Anything else (a Buffer, a Date) goes through structuredClone.
 */
export function copyDoc<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyDoc(value[i] as unknown);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = copyDoc((value as Record<string, unknown>)[key]);
  return out as T;
}

function domainEvent(watermark: number, event: EventSpec, at: string): DomainEvent {
  const out: DomainEvent = { watermark, type: event.type, entity: event.entity, key: event.key, at };
  if (event.data) out.data = event.data;
  return out;
}

export function eventId(watermark: number): string {
  return String(watermark).padStart(20, '0');
}

interface Pending {
  collection: string;
  doc: StoredDoc;
  previous?: Raw;
  deleted: boolean;
}

export interface PutOptions {
  /**
   * The caller hands the document over: neither it nor anything inside it changes after the put
   * (a unit that writes its records last, as receivables' flush does), so it is staged without a
   * copy. Reads of it from this Tx still get copies.
   */
  handOver?: boolean;
}

export interface Sequence {
  next(): number;
  current(): number;
  reset(to: number): void;
}

interface TxMark {
  undo: number;
  events: number;
  after: number;
  watermark: number;
}

/**
 * A unit of work: reads see the committed store plus this unit's own writes; writes are buffered
 * and committed in one store transaction when the unit's function returns, each stamped with the
 * next watermark and paired with its event. If the function throws, nothing of it is written.
 *
 * Several units queued together share one Tx and one commit (group commit: one fsync for many
 * acknowledged writes). Each runs after the previous in the group, sees its writes, and is rolled
 * back alone if it throws.
 */
export class Tx {
  private readonly pending = new Map<string, Pending>();
  private readonly loaded = new Map<string, Raw | null>();
  /** For rolling one unit back: the pending entry each stage() replaced. */
  private readonly undo: Array<{ key: string; before: Pending | undefined }> = [];
  readonly events: DomainEvent[] = [];
  private readonly after: Array<() => void> = [];
  private unitNow: number;

  constructor(
    private readonly store: Store,
    private readonly sequence: Sequence,
    now: number,
  ) {
    this.unitNow = now;
  }

  /** The unit's "now", fixed for the unit. */
  get now(): number {
    return this.unitNow;
  }

  /** Starts the next unit of a group: its own now and a point to roll back to. */
  beginUnit(now: number): TxMark {
    this.unitNow = now;
    return { undo: this.undo.length, events: this.events.length, after: this.after.length, watermark: this.sequence.current() };
  }

  /** Undoes everything staged since the mark: writes, events, after-commit work, watermarks. */
  rollbackTo(mark: TxMark): void {
    while (this.undo.length > mark.undo) {
      const { key, before } = this.undo.pop()!;
      if (before) this.pending.set(key, before);
      else this.pending.delete(key);
    }
    this.events.length = mark.events;
    this.after.length = mark.after;
    this.sequence.reset(mark.watermark);
  }

  private atCache: { now: number; at: string } | undefined;

  /** The unit's "now" as ISO text; made once per unit, as records stamp it on every write. */
  get at(): string {
    if (this.atCache?.now !== this.unitNow) this.atCache = { now: this.unitNow, at: new Date(this.unitNow).toISOString() };
    return this.atCache.at;
  }

  private slot(collection: string, id: string): string {
    return `${collection}\u0000${id}`;
  }

  async get<T extends StoredDoc = StoredDoc>(collection: string, id: string): Promise<T | undefined> {
    const key = this.slot(collection, id);
    const p = this.pending.get(key);
    if (p) return p.deleted ? undefined : (copyDoc(p.doc) as T);
    const raw = await this.loadRaw(collection, id);
    return raw ? (stripMeta(raw) as T) : undefined;
  }

  /**
   * Reads the committed versions of many documents in one storage call, so the unit's `get`s of
   * them that follow (a replicated page of 1,000) answer from memory.
   */
  async prefetch(collection: string, ids: readonly string[]): Promise<void> {
    // Once each: a file import's chunk names its few big customers once per invoice, and each
    // repeat read and parsed the whole document again (a customer with its open invoices).
    const wanted = [...new Set(ids)].filter((id) => !this.loaded.has(this.slot(collection, id)) && !this.pending.has(this.slot(collection, id)));
    if (wanted.length === 0) return;
    const found = await this.store.getMany(collection, wanted);
    for (const id of wanted) this.loaded.set(this.slot(collection, id), null);
    for (const raw of found) this.loaded.set(this.slot(collection, raw.id), raw);
  }

  private async loadRaw(collection: string, id: string): Promise<Raw | undefined> {
    const key = this.slot(collection, id);
    if (this.loaded.has(key)) return this.loaded.get(key) ?? undefined;
    const raw = await this.store.get(collection, id);
    this.loaded.set(key, raw ?? null);
    return raw;
  }

  /**
   * Runs a query on the committed store, then overlays this unit's pending writes: a pending
   * version replaces its committed one, pending inserts that match the selector are added. Sort,
   * skip and limit apply to the committed part; callers that page inside a unit should not rely on
   * pending rows being ordered among them.
   */
  async find<T extends StoredDoc = StoredDoc>(collection: string, query: MangoQuery<StoredDoc>): Promise<T[]> {
    const committed = await this.store.find(collection, query);
    const out: T[] = [];
    const seen = new Set<string>();
    // Compiled on first use, once per call: most finds meet no pending write of their collection.
    let matcher: ((doc: StoredDoc) => boolean) | undefined;
    const matches = (doc: StoredDoc) => (matcher ??= this.matcher(collection, query.selector ?? {}))(doc);
    for (const raw of committed) {
      const key = this.slot(collection, raw.id);
      if (!this.loaded.has(key)) this.loaded.set(key, raw);
      seen.add(raw.id);
      const p = this.pending.get(key);
      if (p) {
        if (!p.deleted && matches(p.doc)) out.push(copyDoc(p.doc) as T);
      } else out.push(stripMeta(raw) as T);
    }
    for (const p of this.pending.values()) {
      if (p.collection !== collection || p.deleted || seen.has(p.doc.id)) continue;
      if (matches(p.doc)) out.push(copyDoc(p.doc) as T);
    }
    return out;
  }

  /**
   * Whether a pending document matches a selector. Under group commit every find checks the
   * earlier units' pending documents of its collection, so the common selector (equality on
   * top-level fields, e.g. `{ unique_reference: key }`) is compared directly; anything else, or a
   * field that is not a plain value, goes through RxDB's matcher.
   */
  private matcher(collection: string, selector: MangoQuerySelector<StoredDoc>): (doc: StoredDoc) => boolean {
    let general: ((doc: StoredDoc) => boolean) | undefined;
    const matchGeneral = (doc: StoredDoc) => {
      if (!general) {
        const schema = this.store.collection(collection).schema.jsonSchema;
        const matcher = getQueryMatcher(schema, normalizeMangoQuery<StoredDoc>(schema, { selector }, true));
        general = (d) => matcher(d as Raw);
      }
      return general(doc);
    };
    const plain = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
    const equalities = Object.entries(selector as Record<string, unknown>);
    if (!equalities.every(([field, value]) => !field.startsWith('$') && !field.includes('.') && plain(value))) return matchGeneral;
    return (doc) => {
      for (const [field, value] of equalities) {
        const actual = doc[field];
        if (!plain(actual)) return matchGeneral(doc);
        if (actual !== value) return false;
      }
      return true;
    };
  }

  /**
   * Creates or replaces a document. The watermark is assigned here; the returned copy carries it.
   * `event` is required: every change is an event (the watermark sequence itself is the only
   * record written without one).
   */
  async put<T extends { id: string }>(collection: string, doc: T, event: EventSpec, options?: PutOptions): Promise<T & { watermark: number }> {
    const watermark = this.sequence.next();
    // Object.assign and a property set, not `{ ...doc, watermark }`: on Node 20 a spread followed by
    // a key the source lacks builds a new hidden class per object, several µs each (bench/sync.ts).
    const stamped = Object.assign({}, doc) as T & { watermark: number };
    stamped.watermark = watermark;
    await this.stage(collection, stamped as unknown as StoredDoc, false, options?.handOver === true);
    this.events.push(domainEvent(watermark, event, this.at));
    return stamped;
  }

  /** Removes a document (an RxDB tombstone). Still an event, with its own watermark. */
  async remove(collection: string, id: string, event: EventSpec): Promise<void> {
    const existing = await this.get(collection, id);
    if (!existing) return;
    const watermark = this.sequence.next();
    await this.stage(collection, { ...existing, watermark }, true);
    this.events.push(domainEvent(watermark, { type: event.type, entity: event.entity, key: event.key }, this.at));
  }

  private async stage(collection: string, doc: StoredDoc, deleted: boolean, handedOver = false): Promise<void> {
    const key = this.slot(collection, doc.id);
    const existing = this.pending.get(key);
    const previous = existing ? existing.previous : await this.loadRaw(collection, doc.id);
    this.undo.push({ key, before: existing });
    const entry: Pending = { collection, doc: handedOver ? doc : copyDoc(doc), deleted };
    if (previous) entry.previous = previous;
    this.pending.set(key, entry);
  }

  /** Work to run once the unit has committed (device commands, notifications). */
  afterCommit(fn: () => void): void {
    this.after.push(fn);
  }

  writes(extra: StoreWrite[]): StoreWrite[] {
    // Built with property sets rather than conditional spreads (see put): two rows per change.
    const out: StoreWrite[] = [...extra];
    for (const p of this.pending.values()) {
      const w: StoreWrite = { collection: p.collection, doc: p.doc };
      if (p.previous) w.previous = p.previous;
      if (p.deleted) w.delete = true;
      out.push(w);
    }
    for (const e of this.events) {
      const data: { at: string; summary?: Record<string, unknown> } = { at: e.at };
      if (e.data) data.summary = e.data;
      out.push({ collection: 'events', doc: { id: eventId(e.watermark), watermark: e.watermark, type: e.type, entity: e.entity, key: e.key, data } });
    }
    return out;
  }

  get hasWrites(): boolean {
    return this.pending.size > 0;
  }

  runAfterCommit(logger: Logger): void {
    for (const fn of this.after) {
      try {
        fn();
      } catch (err) {
        logger.error({ err }, 'after-commit hook failed');
      }
    }
  }
}

export interface EngineCore {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: Ids;
  readonly bus: EventBus;
  readonly logger: Logger;
  /**
   * A serialised, atomic unit of work: all of it is committed, or (when it throws) none of it. It
   * resolves only once its writes are durable; units queued together share one commit.
   */
  mutate<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Commits made and units they carried (group commit at work; for benchmarks). */
  commitStats(): { commits: number; units: number };
  /** The greatest watermark handed out so far. */
  currentWatermark(): number;
  /**
   * The greatest watermark committed and published on the bus (currentWatermark() runs ahead of it
   * while a unit is being written): a reader that starts from it and follows the bus misses nothing.
   */
  committedWatermark(): number;
  /** Units of work queued or being committed: background work (webhook deliveries) yields while there are. */
  writeBacklog(): number;
  /** Committed reads outside a unit of work. */
  get<T extends StoredDoc = StoredDoc>(collection: string, id: string): Promise<T | undefined>;
  find<T extends StoredDoc = StoredDoc>(collection: string, query: MangoQuery<StoredDoc>): Promise<T[]>;
  /**
   * For export pages of stored renderings: per matching document, in order, the values at
   * `fields` (dot paths, null where absent) and the UTF-8 bytes of its string at `textPath`. See
   * Store.project.
   */
  project(collection: string, query: MangoQuery<StoredDoc>, fields: readonly string[], textPath: string): Promise<{ values: unknown[][]; bytes: Array<Buffer | null> }>;
  /** Events with watermark > after, oldest first, from the persisted outbox. */
  eventsSince(after: number, limit: number): Promise<DomainEvent[]>;
  /**
   * Registers time-driven work (processing-day cut-offs, authorization hold releases, autopay due
   * dates...). It runs on every engine tick with the clock's "now"; it must be idempotent, since
   * ticks repeat and a restart replays nothing.
   */
  onTick(name: string, task: (now: number) => Promise<void>): void;
  /** Runs every registered task once, in registration order. */
  tick(): Promise<void>;
}

export async function createCore(deps: { store: Store; clock: Clock; ids: Ids; logger: Logger }): Promise<EngineCore> {
  const { store, clock, ids, logger } = deps;
  const bus = new EventBus();
  const seqRaw = await store.get('records', SEQUENCE_ID);
  let current = typeof seqRaw?.data === 'object' && seqRaw.data !== null ? Number((seqRaw.data as { value?: number }).value ?? 0) : 0;
  let seqPrevious: Raw | undefined = seqRaw;
  // The last watermark whose unit is durable (`current` runs ahead while a group is staged).
  let committed = current;

  const sequence: Sequence = {
    next: () => ++current,
    current: () => current,
    reset: (to) => {
      current = to;
    },
  };
  const tasks: Array<{ name: string; task: (now: number) => Promise<void> }> = [];
  let ticking: Promise<void> | undefined;

  // One queue for every state change: it keeps watermarks, events and commits in one order.
  interface Waiting {
    fn: (tx: Tx) => Promise<unknown>;
    resolve(value: unknown): void;
    reject(err: unknown): void;
  }
  const waiting: Waiting[] = [];
  let draining = false;
  let lastGroup = 0;
  let inGroup = 0;
  const stats = { commits: 0, units: 0 };

  const commit = async (tx: Tx) => {
    const seqDoc = { id: SEQUENCE_ID, watermark: current, kind: 'sequence', key: 'watermark', ref: '', data: { value: current } };
    const seqWrite: StoreWrite = { collection: 'records', doc: seqDoc, ...(seqPrevious ? { previous: seqPrevious } : {}) };
    await store.commit(tx.writes([seqWrite]));
    seqPrevious = await store.get('records', SEQUENCE_ID);
    stats.commits += 1;
  };

  const runGroup = async (group: Waiting[]): Promise<void> => {
    const start = current;
    const tx = new Tx(store, sequence, clock.now());
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    for (const unit of group) {
      const mark = tx.beginUnit(clock.now());
      try {
        outcomes.push({ ok: true, value: await unit.fn(tx) });
      } catch (error) {
        tx.rollbackTo(mark);
        outcomes.push({ ok: false, error });
      }
    }
    if (tx.hasWrites) {
      try {
        await commit(tx);
        committed = current;
      } catch (err) {
        current = start;
        if (group.length === 1) {
          group[0]!.reject(err);
          return;
        }
        // A conflict in the shared commit: give every unit its own, so one cannot fail the others.
        for (const unit of group) await runGroup([unit]);
        return;
      }
    } else {
      current = start;
    }
    stats.units += group.length;
    bus.publish(tx.events);
    tx.runAfterCommit(logger);
    group.forEach((unit, i) => {
      const o = outcomes[i]!;
      if (o.ok) unit.resolve(o.value);
      else unit.reject(o.error);
    });
  };

  const MAX_GROUP = 200;
  const drain = async (): Promise<void> => {
    try {
      while (waiting.length > 0) {
        // Under load, the commit just made blocked the event loop (one fsync): let the requests
        // that came in meanwhile be read, so they share the next commit.
        if (lastGroup > 1) await new Promise((r) => setTimeout(r, 1));
        const group = waiting.splice(0, MAX_GROUP);
        lastGroup = group.length;
        inGroup = group.length;
        try {
          await runGroup(group);
        } finally {
          inGroup = 0;
        }
        // Back-to-back commits resolve on microtasks only; RxDB keeps written documents until its
        // timers run, so give the event loop a turn between groups.
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      draining = false;
      if (waiting.length > 0) {
        draining = true;
        setImmediate(() => void drain());
      }
    }
  };

  return {
    store,
    clock,
    ids,
    bus,
    logger,
    mutate<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
        if (!draining) {
          draining = true;
          // Units queued in this same turn of the event loop join the first group.
          setImmediate(() => void drain());
        }
      });
    },
    commitStats: () => ({ ...stats }),
    currentWatermark: () => current,
    committedWatermark: () => committed,
    writeBacklog: () => waiting.length + inGroup,
    async get<T extends StoredDoc>(collection: string, id: string) {
      const raw = await store.get(collection, id);
      return raw ? (stripMeta(raw) as T) : undefined;
    },
    async find<T extends StoredDoc>(collection: string, query: MangoQuery<StoredDoc>) {
      return (await store.find(collection, query)).map((r) => stripMeta(r) as T);
    },
    project(collection, query, fields, textPath) {
      return store.project(collection, query, fields, textPath);
    },
    onTick(name, task) {
      tasks.push({ name, task });
    },
    tick() {
      // Overlapping ticks (a slow task and the next interval) share one run.
      ticking ??= (async () => {
        for (const { name, task } of tasks) {
          try {
            await task(clock.now());
          } catch (err) {
            logger.error({ err, task: name }, 'scheduled task failed');
          }
        }
      })().finally(() => {
        ticking = undefined;
      });
      return ticking;
    },
    async eventsSince(after, limit) {
      // By primary key, not by query: the events collection has no index that starts with its id,
      // so `id > x` made the planner read and match the whole outbox on every call (the webhook
      // workers' reads grew with the outbox). Watermarks are dense (a rolled-back unit gives its
      // numbers back), so the ids after `after` are known; only committed ones are asked for, and
      // a missing one is skipped.
      const rows: Raw[] = [];
      // No more ids than the rows still wanted: a small page is a small read.
      let from = after + 1;
      while (rows.length < limit && from <= committed) {
        const n = Math.min(EVENT_READ, limit - rows.length);
        const ids: string[] = [];
        for (let w = from; w < from + n && w <= committed; w++) ids.push(eventId(w));
        from += n;
        const found = await store.getMany('events', ids);
        found.sort((a, b) => a.watermark - b.watermark);
        rows.push(...found.slice(0, limit - rows.length));
      }
      return rows.map((r) => {
        const data = r.data as { at: string; summary?: Record<string, unknown> };
        return {
          watermark: r.watermark,
          type: String(r.type),
          entity: String(r.entity),
          key: String(r.key),
          at: data.at,
          ...(data.summary ? { data: data.summary } : {}),
        };
      });
    },
  };
}
