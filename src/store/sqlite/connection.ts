import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Subject } from 'rxjs';

/**
 * Crash-consistency choice: WAL journal with synchronous=FULL.
 * WAL alone keeps the file consistent across a killed process or a power cut
 * (a torn transaction is never visible). With synchronous=NORMAL a power cut
 * may still drop the last transactions that were already acknowledged to the
 * caller; for payment records an acknowledged write must stay written, so we
 * pay one WAL fsync per transaction (measured ~0.4 ms here), which is cheap
 * next to the batch sizes we write.
 */
export const SQLITE_PRAGMAS: readonly string[] = [
  // 16 KiB pages for a new file (an existing one keeps its size: WAL mode cannot change it). Our rows
  // are 1-3 KiB (an invoice with its stored rendering is about 2.4): at 4 KiB a page holds one or two,
  // so a 2,500-invoice export page read about 1,500 pages from the OS one syscall each. Measured on
  // 1M invoices: the page's SQL went from 10.5 to 7 ms.
  'page_size = 16384',
  'journal_mode = WAL',
  'synchronous = FULL',
  // Another process (an admin CLI, a backup) may hold the lock briefly.
  'busy_timeout = 5000',
  // The default 2 MiB page cache thrashes on large index B-trees.
  'cache_size = -65536',
  // Index pages touched by consecutive batches are checkpointed once instead
  // of every 4 MiB; measured ~40% faster batch inserts. Recovery replays at
  // most this much WAL, and the file is trimmed back after checkpoints.
  'wal_autocheckpoint = 4000',
  'journal_size_limit = 67108864',
  // Deleted and overwritten content is zeroed where that costs no extra I/O (the page is written
  // anyway): a record replaced or removed leaves no readable copy in its page.
  'secure_delete = FAST',
];

const REGISTRY_DDL = `
CREATE TABLE IF NOT EXISTS laneway_rx_collections (
  id INTEGER PRIMARY KEY,
  database_name TEXT NOT NULL,
  collection_name TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  primary_path TEXT NOT NULL,
  indexes_json TEXT NOT NULL,
  has_attachments INTEGER NOT NULL,
  text_columns TEXT NOT NULL DEFAULT '[]',
  projections TEXT NOT NULL DEFAULT '[]',
  UNIQUE (database_name, collection_name, schema_version)
)`;

/**
 * Bumped when the on-disk layout of collection tables changes. 2: text columns (text-columns.ts),
 * listed per table in the registry. 3: projection columns (projections.ts), listed the same way.
 * A build refuses a file of a later layout; an earlier one is upgraded in place when opened (see
 * UPGRADES).
 */
export const LAYOUT_VERSION = 3;

/** From layout n to n+1, each in the transaction that also sets user_version. */
const UPGRADES: Record<number, readonly string[]> = {
  1: [`ALTER TABLE laneway_rx_collections ADD COLUMN text_columns TEXT NOT NULL DEFAULT '[]'`],
  2: [`ALTER TABLE laneway_rx_collections ADD COLUMN projections TEXT NOT NULL DEFAULT '[]'`],
};

type Delivery = { subject: Subject<unknown>; value: unknown };

/**
 * One better-sqlite3 connection per SQLite file, shared by every storage
 * instance that lives in that file. It also owns the two orderings that must be
 * per file rather than per collection: the write queue (an atomic commit spans
 * collections) and the change-event queue.
 */
export class SqliteConnection {
  readonly db: Database.Database;
  private refCount = 0;
  private pendingWrites = 0;
  private writeTail: Promise<void> = Promise.resolve();
  private deliveries: Delivery[] = [];
  private delivering = false;
  /** Set by remove(): delete the file once it holds no collection and nobody uses it. */
  deleteFileWhenEmpty = false;
  /** Shared per-table state, keyed by table name; typed loosely to avoid an import cycle. */
  readonly tables = new Map<string, unknown>();

  constructor(
    readonly filePath: string,
    nativeBinding: string | undefined,
  ) {
    fs.mkdirSync(path.dirname(filePath), { recursive: true });
    this.db = new Database(filePath, nativeBinding ? { nativeBinding } : {});
    try {
      for (const pragma of SQLITE_PRAGMAS) {
        this.db.pragma(pragma);
      }
      const mode = this.db.pragma('journal_mode', { simple: true });
      if (mode !== 'wal') {
        throw new Error(`laneway sqlite: could not enable WAL on ${filePath} (journal_mode=${String(mode)})`);
      }
      const userVersion = this.db.pragma('user_version', { simple: true }) as number;
      if (userVersion > LAYOUT_VERSION || (userVersion > 0 && !UPGRADES[userVersion] && userVersion !== LAYOUT_VERSION)) {
        throw new Error(
          `laneway sqlite: ${filePath} has layout version ${String(userVersion)}, this build reads ${LAYOUT_VERSION}`,
        );
      }
      if (userVersion !== LAYOUT_VERSION) {
        this.db
          .transaction(() => {
            // Read again under the write lock: another process may have upgraded it meanwhile.
            const current = this.db.pragma('user_version', { simple: true }) as number;
            if (current === 0) {
              this.db.exec(REGISTRY_DDL);
            }
            for (let version = current; version > 0 && version < LAYOUT_VERSION; version++) {
              for (const sql of UPGRADES[version] ?? []) {
                this.db.exec(sql);
              }
            }
            this.db.pragma(`user_version = ${LAYOUT_VERSION}`);
          })
          .immediate();
      }
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  acquire(): void {
    this.refCount++;
  }

  /** Returns true when this was the last user and the connection is now closed. */
  release(): boolean {
    this.refCount--;
    if (this.refCount > 0) {
      return false;
    }
    CONNECTIONS.delete(this.filePath);
    const empty =
      this.deleteFileWhenEmpty &&
      (this.db.prepare('SELECT COUNT(*) FROM laneway_rx_collections').pluck().get() as number) === 0;
    this.db.close();
    if (empty) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) {
        fs.rmSync(this.filePath + suffix, { force: true });
      }
    }
    return true;
  }

  /**
   * Runs `apply` (synchronous SQLite work) after every earlier write on this
   * file has been applied, in call order. When nothing is queued and there is
   * nothing to prepare, it runs right now so that a plain bulkWrite never waits
   * a tick. `prepare` is for async work that must happen before the
   * transaction (reading attachment Blobs), so no await ever splits one.
   */
  scheduleWrite<P, R>(prepare: Promise<P> | undefined, apply: (prepared: P | undefined) => R): Promise<R> {
    if (this.pendingWrites === 0 && prepare === undefined) {
      try {
        return Promise.resolve(apply(undefined));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    this.pendingWrites++;
    const run = Promise.all([this.writeTail, prepare]).then(([, prepared]) => apply(prepared));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.writeTail = settled.then(() => {
      this.pendingWrites--;
    });
    return run;
  }

  /** Resolves once every write scheduled so far has been applied or failed. */
  async drainWrites(): Promise<void> {
    while (this.pendingWrites > 0) {
      await this.writeTail;
    }
  }

  /**
   * Emits in a single FIFO per file. A subscriber that writes from inside its
   * callback must not have its event overtake the one it is reacting to at the
   * other subscribers, so nested emissions are queued, not delivered inline.
   */
  deliver<T>(subject: Subject<T>, value: T): void {
    this.deliveries.push({ subject: subject as Subject<unknown>, value });
    if (this.delivering) {
      return;
    }
    this.delivering = true;
    let next = this.deliveries.shift();
    while (next) {
      try {
        next.subject.next(next.value);
      } catch (err) {
        // The write is committed; a throwing subscriber must not turn it into a
        // rejected promise or starve the others. Surface it like RxJS does.
        setTimeout(() => {
          throw err;
        });
      }
      next = this.deliveries.shift();
    }
    this.delivering = false;
  }
}

const CONNECTIONS = new Map<string, SqliteConnection>();

export function acquireConnection(filePath: string, nativeBinding: string | undefined): SqliteConnection {
  const resolved = path.resolve(filePath);
  let connection = CONNECTIONS.get(resolved);
  if (!connection) {
    connection = new SqliteConnection(resolved, nativeBinding);
    CONNECTIONS.set(resolved, connection);
  }
  connection.acquire();
  return connection;
}
