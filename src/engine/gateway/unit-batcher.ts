import type { EngineCore, Tx } from '../core';

/**
 * Group commit for gateway requests. Every acknowledged payment must be on disk (the store pays one
 * fsync per commit), so one commit per request caps throughput at the disk's fsync rate. Requests
 * that arrive while a commit is in flight wait and then share the next unit of work: each runs its
 * own function against the same Tx, in arrival order, and each gets its own result or error. None is
 * answered before the commit that holds it.
 *
 * Isolation rests on one rule the gateway's operations follow: check everything, then write. An
 * operation that throws before its first write leaves nothing behind and fails alone. One that
 * throws after writing (a bug) aborts the shared unit; its neighbours are then retried one unit each,
 * so a faulty request can never commit half of itself or fail the others.
 */
type Op<T> = (tx: Tx) => Promise<T>;

interface Pending {
  op: Op<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

class PartialWrite extends Error {
  constructor(readonly original: unknown) {
    super('an operation failed after writing');
  }
}

export class UnitBatcher {
  private queue: Pending[] = [];
  private draining = false;
  private lastBatch = 0;
  /** Sizes of the units run so far (for benchmarks and tests). */
  readonly stats = { units: 0, requests: 0 };

  constructor(
    private readonly core: EngineCore,
    private readonly options: { maxBatch?: number; lingerMs?: number } = {},
  ) {}

  run<T>(op: Op<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // Let the requests that arrived with this one reach the queue first.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    const max = this.options.maxBatch ?? 200;
    const linger = this.options.lingerMs ?? 1;
    try {
      while (this.queue.length > 0) {
        // The store's commit blocks the event loop (one fsync), so requests sent meanwhile are
        // still unread: under load, give them a moment to arrive before the next commit.
        if (this.lastBatch > 1 && this.queue.length < max && linger > 0) await new Promise((r) => setTimeout(r, linger));
        const batch = this.queue.splice(0, max);
        this.lastBatch = batch.length;
        this.stats.units += 1;
        this.stats.requests += batch.length;
        await this.runBatch(batch);
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      this.draining = false;
      if (this.queue.length > 0) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    }
  }

  private async runBatch(batch: Pending[]): Promise<void> {
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.core.mutate(async (tx) => {
        for (const item of batch) {
          const before = tx.events.length;
          try {
            results.push({ ok: true, value: await item.op(tx) });
          } catch (error) {
            if (tx.events.length !== before) throw new PartialWrite(error);
            results.push({ ok: false, error });
          }
        }
      });
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err instanceof PartialWrite ? err.original : err);
        return;
      }
      for (const item of batch) {
        try {
          item.resolve(await this.core.mutate(item.op));
        } catch (error) {
          item.reject(error);
        }
      }
      return;
    }
    batch.forEach((item, i) => {
      const r = results[i]!;
      if (r.ok) item.resolve(r.value);
      else item.reject(r.error);
    });
  }
}
