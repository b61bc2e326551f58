import type {
  BulkWriteRow,
  RxStorage,
  RxStorageInstance,
  RxStorageWriteError,
} from 'rxdb';

export type SqliteStorageOptions = {
  /** Folder holding the one SQLite file of this data folder; created when missing. */
  directory: string;
  /** Defaults to `laneway.sqlite`. */
  fileName?: string;
  /** Path to a better-sqlite3 `.node` build, e.g. the Electron-ABI one. */
  nativeBinding?: string;
  /**
   * Told before a collection's stored rows are rewritten to another layout (new text or
   * projection columns, other indexes), with `done` 0, then again as they are (after each batch,
   * the last with `done` equal to `rows`): once per upgrade, and long on a large file (9-40 s
   * for a million invoices), so whoever starts the app can say why it is waiting, and how far along.
   */
  onRelayout?: (notice: RelayoutNotice) => void;
};

export type RelayoutNotice = { collection: string; rows: number; change: 'text columns' | 'projections' | 'indexes'; done: number };

/** What `storageInstance.internals` exposes; kept plain so it stays inspectable. */
export type SqliteInternals = {
  readonly filePath: string;
  readonly tableName: string;
};

/** Per collection (RxDB's `instanceCreationOptions`). */
export type SqliteInstanceOptions = {
  /**
   * Dot paths of large string fields (e.g. `data.view`, a stored rendering) kept in their own
   * TEXT columns instead of inside the document JSON: neither escaped on write nor unescaped on
   * read. Documents read back are the same; only the table layout differs. See text-columns.ts.
   */
  textColumns?: readonly string[];
  /**
   * Field lists (dot paths) that projected page reads ask for (Store.project): each is kept by
   * every write as a JSON array in its own column, so such a read takes it as it is instead of
   * extracting the fields from each document's JSON. See projections.ts.
   */
  projections?: readonly (readonly string[])[];
};

export type RxStorageSqlite = RxStorage<SqliteInternals, SqliteInstanceOptions>;

/**
 * One collection's share of an atomic commit. `instance` may be the raw storage
 * instance or RxDB's wrapped one (`collection.storageInstance`); either way the
 * rows are written as given, so `_rev` and `_meta.lwt` must already be set the
 * way RxDB's wrapper would set them.
 */
export type AtomicWrite<RxDocType> = {
  instance: RxStorageInstance<RxDocType, unknown, unknown, unknown>;
  rows: BulkWriteRow<RxDocType>[];
  context: string;
};

export type AtomicCommitFailure = {
  /** Index into the `writes` array given to `commitAtomically`. */
  instanceIndex: number;
  errors: RxStorageWriteError<unknown>[];
};

export type AtomicCommitResult =
  | { ok: true }
  | { ok: false; errors: AtomicCommitFailure[] };
