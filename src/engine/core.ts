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

export function eventId(watermark: number): string {
  return String(watermark).padStart(20, '0');
}

/**
 * A unit of work: reads see the committed store plus this unit's own writes; writes are buffered
 * and committed in one store transaction when the unit's function returns, each stamped with the
 * next watermark and paired with its event. If the function throws, nothing is written.
 */
export class Tx {
  private readonly pending = new Map<string, { collection: string; doc: StoredDoc; previous?: Raw; deleted: boolean }>();
  private readonly loaded = new Map<string, Raw | null>();
  readonly events: DomainEvent[] = [];
  private readonly after: Array<() => void> = [];

  constructor(
    private readonly store: Store,
    private readonly sequence: { next(): number },
    readonly now: number,
  ) {}

  get at(): string {
    return new Date(this.now).toISOString();
  }

  private slot(collection: string, id: string): string {
    return `${collection}\u0000${id}`;
  }

  async get<T extends StoredDoc = StoredDoc>(collection: string, id: string): Promise<T | undefined> {
    const key = this.slot(collection, id);
    const p = this.pending.get(key);
    if (p) return p.deleted ? undefined : (structuredClone(p.doc) as T);
    const raw = await this.loadRaw(collection, id);
    return raw ? (stripMeta(raw) as T) : undefined;
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
    for (const raw of committed) {
      const key = this.slot(collection, raw.id);
      if (!this.loaded.has(key)) this.loaded.set(key, raw);
      seen.add(raw.id);
      const p = this.pending.get(key);
      if (p) {
        if (!p.deleted && this.matches(collection, query.selector ?? {}, p.doc)) out.push(structuredClone(p.doc) as T);
      } else out.push(stripMeta(raw) as T);
    }
    for (const p of this.pending.values()) {
      if (p.collection !== collection || p.deleted || seen.has(p.doc.id)) continue;
      if (this.matches(collection, query.selector ?? {}, p.doc)) out.push(structuredClone(p.doc) as T);
    }
    return out;
  }

  private matches(collection: string, selector: MangoQuerySelector<StoredDoc>, doc: StoredDoc): boolean {
    const schema = this.store.collection(collection).schema.jsonSchema;
    const normalized = normalizeMangoQuery<StoredDoc>(schema, { selector }, true);
    const matcher = getQueryMatcher(schema, normalized);
    return matcher({ ...doc, _deleted: false, _rev: '', _meta: { lwt: 0 }, _attachments: {} } as Raw);
  }

  /**
   * Creates or replaces a document. The watermark is assigned here; the returned copy carries it.
   * `event` is required: every change is an event (the watermark sequence itself is the only
   * record written without one).
   */
  async put<T extends { id: string }>(collection: string, doc: T, event: EventSpec): Promise<T & { watermark: number }> {
    const watermark = this.sequence.next();
    const stamped = { ...doc, watermark } as T & { watermark: number };
    await this.stage(collection, stamped as unknown as StoredDoc, false);
    this.events.push({ watermark, type: event.type, entity: event.entity, key: event.key, at: this.at, ...(event.data ? { data: event.data } : {}) });
    return stamped;
  }

  /** Removes a document (an RxDB tombstone). Still an event, with its own watermark. */
  async remove(collection: string, id: string, event: EventSpec): Promise<void> {
    const existing = await this.get(collection, id);
    if (!existing) return;
    const watermark = this.sequence.next();
    await this.stage(collection, { ...existing, watermark }, true);
    this.events.push({ watermark, type: event.type, entity: event.entity, key: event.key, at: this.at });
  }

  private async stage(collection: string, doc: StoredDoc, deleted: boolean): Promise<void> {
    const key = this.slot(collection, doc.id);
    const existing = this.pending.get(key);
    const previous = existing ? existing.previous : await this.loadRaw(collection, doc.id);
    this.pending.set(key, { collection, doc: structuredClone(doc), ...(previous ? { previous } : {}), deleted });
  }

  /** Work to run once the unit has committed (device commands, notifications). */
  afterCommit(fn: () => void): void {
    this.after.push(fn);
  }

  writes(extra: StoreWrite[]): StoreWrite[] {
    const out: StoreWrite[] = [...extra];
    for (const p of this.pending.values()) {
      out.push({ collection: p.collection, doc: p.doc, ...(p.previous ? { previous: p.previous } : {}), ...(p.deleted ? { delete: true } : {}) });
    }
    for (const e of this.events) {
      out.push({ collection: 'events', doc: { id: eventId(e.watermark), watermark: e.watermark, type: e.type, entity: e.entity, key: e.key, data: { at: e.at, ...(e.data ? { summary: e.data } : {}) } } });
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
  /** Serialised, atomic unit of work. */
  mutate<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The greatest watermark handed out so far. */
  currentWatermark(): number;
  /** Committed reads outside a unit of work. */
  get<T extends StoredDoc = StoredDoc>(collection: string, id: string): Promise<T | undefined>;
  find<T extends StoredDoc = StoredDoc>(collection: string, query: MangoQuery<StoredDoc>): Promise<T[]>;
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

  // One queue for every state change: it keeps watermarks, events and commits in one order.
  let queue: Promise<unknown> = Promise.resolve();
  const tasks: Array<{ name: string; task: (now: number) => Promise<void> }> = [];
  let ticking: Promise<void> | undefined;

  const run = async <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
    const start = current;
    const sequence = { next: () => ++current };
    const tx = new Tx(store, sequence, clock.now());
    try {
      const result = await fn(tx);
      if (!tx.hasWrites) {
        current = start;
        return result;
      }
      const seqDoc = { id: SEQUENCE_ID, watermark: current, kind: 'sequence', key: 'watermark', ref: '', data: { value: current } };
      const seqWrite: StoreWrite = { collection: 'records', doc: seqDoc, ...(seqPrevious ? { previous: seqPrevious } : {}) };
      await store.commit(tx.writes([seqWrite]));
      seqPrevious = await store.get('records', SEQUENCE_ID);
      bus.publish(tx.events);
      tx.runAfterCommit(logger);
      return result;
    } catch (err) {
      current = start;
      throw err;
    }
  };

  return {
    store,
    clock,
    ids,
    bus,
    logger,
    mutate<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const next = queue.then(() => run(fn));
      queue = next.catch(() => undefined);
      return next;
    },
    currentWatermark: () => current,
    async get<T extends StoredDoc>(collection: string, id: string) {
      const raw = await store.get(collection, id);
      return raw ? (stripMeta(raw) as T) : undefined;
    },
    async find<T extends StoredDoc>(collection: string, query: MangoQuery<StoredDoc>) {
      return (await store.find(collection, query)).map((r) => stripMeta(r) as T);
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
      const rows = await store.find('events', { selector: { id: { $gt: eventId(after) } }, sort: [{ id: 'asc' }], limit });
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
