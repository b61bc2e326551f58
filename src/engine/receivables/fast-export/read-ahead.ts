import type { Page } from '../exports';

/**
 * Read-ahead for export drains. An integration catches up by asking for the page after the last
 * watermark it got, again and again, until a page comes back short; between two pages it is busy
 * taking in the one it has (a 2,500-invoice page is about 4 MB of JSON to parse and store). So
 * after a full page, the page after it is read then, one chunk per turn of the event loop, and
 * kept until that page is asked for (up to `maxBytes` of it; the rest is read on request).
 *
 * It is served only to the very next request for that page, and only while nothing at all has
 * been written since it was read (see `writeMark`): what it gives is then exactly what a read at
 * that moment would give. Anything else (a write, another limit, a page nobody asks for within
 * `ttlMs`) and it is dropped, and the page is read as usual. Only pages that do not depend on the
 * clock are read ahead (the caller's choice of key).
 */
export interface ReadAhead {
  /**
   * The chunks of `page`: those read ahead for it when they are still good, else `read(page)`'s.
   * A full page has the next one read ahead under the same key.
   */
  pages<R>(key: string, page: Page, read: (page: Page) => AsyncGenerator<R[]>, record: RecordMeasure<R>): AsyncGenerator<R[]>;
  /** Stops reading ahead and drops what was read (before the store closes). */
  close(): Promise<void>;
}

export interface RecordMeasure<R> {
  watermarkOf(record: R): number;
  /** What keeping it costs, in bytes (roughly: what it holds beyond a few fields). */
  bytesOf(record: R): number;
}

interface Ahead {
  id: string;
  /** writeMark() when the read began. */
  asOf: string;
  chunks: unknown[][];
  bytes: number;
  bytesOf: (record: unknown) => number;
  source: AsyncGenerator<unknown[]>;
  done: boolean;
  failed: boolean;
  /** Taken by its request, dropped, or closing: the pump stops at its next turn. */
  stopped: boolean;
  pumping: Promise<void>;
  expiry: NodeJS.Timeout;
}

export interface ReadAheadOptions {
  /**
   * A value that changes with every write and every commit: the greatest watermark handed out and
   * the count of commits (a unit in flight has its watermarks before its commit lands).
   */
  writeMark(): string;
  /** Off: every page is read when asked for. */
  enabled?: boolean;
  /** How long a page read ahead waits for its request (default 10 s). */
  ttlMs?: number;
  /** How many pages are kept at once, for as many drains (default 4; the oldest goes first). */
  maxPages?: number;
  /** How much of a page is read ahead (default 8 MB: a 2,500-invoice page is about 4.3 MB). */
  maxBytes?: number;
}

export function createReadAhead(options: ReadAheadOptions): ReadAhead {
  const enabled = options.enabled ?? true;
  const ttlMs = options.ttlMs ?? 10_000;
  const maxPages = options.maxPages ?? 4;
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  const ahead = new Map<string, Ahead>();
  let closed = false;
  const idOf = (key: string, page: Page) => `${key}\u0000${page.after}\u0000${page.limit}`;

  /** Out of the map, its pump stopped at its next turn, its expiry cleared. */
  const stop = (entry: Ahead) => {
    if (ahead.get(entry.id) === entry) ahead.delete(entry.id);
    entry.stopped = true;
    clearTimeout(entry.expiry);
  };

  const drop = (entry: Ahead) => {
    stop(entry);
    // The source is closed once the pump has let go of it (a generator cannot be closed mid-step).
    void entry.pumping.then(() => entry.source.return(undefined)).catch(() => undefined);
  };

  const pump = async (entry: Ahead) => {
    try {
      // Past maxBytes it waits: the rest of the page is read when asked for.
      while (!entry.stopped && !entry.done && entry.bytes < maxBytes) {
        // One chunk per turn: requests, terminal traffic and writes go on in between.
        await new Promise((resolve) => setImmediate(resolve));
        if (entry.stopped) return;
        const next = await entry.source.next();
        if (next.done) entry.done = true;
        else {
          entry.chunks.push(next.value);
          for (const record of next.value) entry.bytes += entry.bytesOf(record);
        }
      }
    } catch {
      // A read that fails here fails again, visibly, when the page is asked for.
      entry.failed = true;
    }
  };

  const start = <R>(key: string, page: Page, read: (page: Page) => AsyncGenerator<R[]>, record: RecordMeasure<R>) => {
    if (closed) return;
    const id = idOf(key, page);
    const old = ahead.get(id);
    if (old) drop(old);
    while (ahead.size >= maxPages) drop(ahead.values().next().value!);
    const entry: Ahead = {
      id,
      asOf: options.writeMark(),
      chunks: [],
      bytes: 0,
      bytesOf: record.bytesOf as (record: unknown) => number,
      source: read(page) as AsyncGenerator<unknown[]>,
      done: false,
      failed: false,
      stopped: false,
      pumping: Promise.resolve(),
      expiry: setTimeout(() => drop(entry), ttlMs),
    };
    entry.expiry.unref();
    entry.pumping = pump(entry);
    ahead.set(id, entry);
  };

  /** The read-ahead of this page if it can stand for a read now; it is taken either way. */
  const take = async (id: string): Promise<Ahead | undefined> => {
    const entry = ahead.get(id);
    if (!entry) return undefined;
    stop(entry);
    await entry.pumping;
    if (entry.failed || entry.asOf !== options.writeMark()) {
      drop(entry);
      return undefined;
    }
    return entry;
  };

  return {
    async *pages<R>(key: string, page: Page, read: (page: Page) => AsyncGenerator<R[]>, record: RecordMeasure<R>) {
      if (!enabled || closed) return yield* read(page);
      const entry = await take(idOf(key, page));
      let sent = 0;
      let last = page.after;
      const send = (chunk: R[]) => {
        sent += chunk.length;
        if (chunk.length > 0) last = record.watermarkOf(chunk[chunk.length - 1]!);
        return chunk;
      };
      if (entry) {
        try {
          for (const chunk of entry.chunks as R[][]) yield send(chunk);
          // The rest of the page, if the read ahead had not got that far, from where it stopped.
          if (!entry.done) for await (const chunk of { [Symbol.asyncIterator]: () => entry.source as AsyncGenerator<R[]> }) yield send(chunk);
        } finally {
          // A client that left while the read-ahead chunks were sent: its read is closed too.
          await entry.source.return(undefined);
        }
      } else {
        for await (const chunk of read(page)) yield send(chunk);
      }
      if (sent >= page.limit) start(key, { after: last, limit: page.limit }, read, record);
    },

    async close() {
      closed = true;
      const entries = [...ahead.values()];
      entries.forEach(drop);
      await Promise.all(entries.map((e) => e.pumping));
    },
  };
}
