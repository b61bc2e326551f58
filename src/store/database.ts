import {
  createRevision,
  createRxDatabase,
  normalizeMangoQuery,
  now as rxNow,
  prepareQuery,
  type BulkWriteRow,
  type MangoQuery,
  type MangoQuerySelector,
  type PreparedQuery,
  type RxCollection,
  type RxDatabase,
  type RxDocumentData,
  type RxStorage,
  type RxStorageInstance,
  type RxStorageWriteError,
} from 'rxdb';
import type { CollectionDef, StoredDoc } from './schema';

export type Raw<T extends StoredDoc = StoredDoc> = RxDocumentData<T>;

export interface StoreWrite {
  collection: string;
  /** The new document body (no RxDB meta fields). */
  doc: StoredDoc;
  /** The stored version this write replaces, exactly as read; undefined for an insert. */
  previous?: Raw;
  /** Write a tombstone instead of a live document. */
  delete?: boolean;
}

export interface AtomicCommitResult {
  ok: boolean;
  errors?: Array<{ instanceIndex: number; errors: RxStorageWriteError<StoredDoc>[] }>;
}

/** Writes to several collections of one SQLite file in one transaction (see src/store/sqlite). */
export type AtomicCommit = (
  writes: Array<{ instance: RxStorageInstance<StoredDoc, unknown, unknown>; rows: BulkWriteRow<StoredDoc>[]; context: string }>,
) => Promise<AtomicCommitResult>;

export class StoreConflictError extends Error {
  override readonly name = 'StoreConflictError';
  constructor(readonly collection: string, readonly ids: string[]) {
    super(`write conflict in ${collection}: ${ids.join(', ')}`);
  }
}

export interface Store {
  readonly db: RxDatabase;
  collection(name: string): RxCollection<StoredDoc>;
  get(collection: string, id: string): Promise<Raw | undefined>;
  getMany(collection: string, ids: readonly string[]): Promise<Raw[]>;
  /** A mango query run straight on the storage instance (no RxDocument layer: exports are hot). */
  find(collection: string, query: MangoQuery<StoredDoc>): Promise<Raw[]>;
  /**
   * find() for reads that send a stored text field as it is (exports of stored renderings): each
   * document comes with the UTF-8 bytes of its string at `path` (a dot path; null when it is not
   * a string) and holds null there. A collection that declares `path` a text column hands the
   * bytes over without a string ever being made or parsed.
   */
  findWithBytes(collection: string, query: MangoQuery<StoredDoc>, path: string): Promise<Array<{ doc: Raw; bytes: Buffer | null }>>;
  count(collection: string, selector: MangoQuerySelector<StoredDoc>): Promise<number>;
  /** All-or-nothing across collections when the storage supports it (our SQLite storage does). */
  commit(writes: readonly StoreWrite[]): Promise<void>;
  close(): Promise<void>;
}

/** What our SQLite storage instance adds to the RxStorage interface (see src/store/sqlite). */
interface BytesQuery {
  queryWithBytes(prepared: PreparedQuery<StoredDoc>, path: string): Promise<{ documents: Raw[]; bytes: Array<Buffer | null> }>;
}

/** The storage instance under RxDB's wrapper, when it can read a text column as bytes. */
function bytesQueryOf(instance: unknown): BytesQuery | undefined {
  let current = instance as { originalStorageInstance?: unknown; queryWithBytes?: unknown } | undefined;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (typeof current.queryWithBytes === 'function') return current as unknown as BytesQuery;
    current = current.originalStorageInstance as typeof current;
  }
  return undefined;
}

/**
 * Generic form of queryWithBytes for other storages: the string at `path` taken out as UTF-8, in
 * a copy along the path (a storage such as RxDB's memory one hands out the objects it keeps).
 */
function takeText(value: unknown, path: readonly string[], at = 0): { value: unknown; bytes: Buffer | null } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { value, bytes: null };
  const obj = value as Record<string, unknown>;
  const key = path[at]!;
  const child = obj[key];
  if (at === path.length - 1) {
    return typeof child === 'string' ? { value: { ...obj, [key]: null }, bytes: Buffer.from(child, 'utf8') } : { value, bytes: null };
  }
  const inner = takeText(child, path, at + 1);
  return inner.bytes ? { value: { ...obj, [key]: inner.value }, bytes: inner.bytes } : { value, bytes: null };
}

export interface OpenStoreOptions {
  storage: RxStorage<unknown, unknown>;
  collections: readonly CollectionDef[];
  /** Present when every collection lives in one SQLite file; otherwise commits are per collection. */
  commitAtomically?: AtomicCommit;
  name?: string;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const db = await createRxDatabase<Record<string, RxCollection<StoredDoc>>>({
    name: options.name ?? 'laneway',
    storage: options.storage,
    multiInstance: false,
    eventReduce: true,
    closeDuplicates: true,
  });
  const defs: Record<string, { schema: CollectionDef['schema']; instanceCreationOptions?: { textColumns: readonly string[] } }> = {};
  for (const def of options.collections) {
    defs[def.name] = { schema: def.schema, ...(def.textColumns ? { instanceCreationOptions: { textColumns: def.textColumns } } : {}) };
  }
  await db.addCollections(defs);

  const collection = (name: string): RxCollection<StoredDoc> => {
    const c = db.collections[name];
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  };
  const instance = (name: string) => collection(name).storageInstance as unknown as RxStorageInstance<StoredDoc, unknown, unknown>;

  const toRow = (w: StoreWrite): BulkWriteRow<StoredDoc> => {
    const document = {
      ...w.doc,
      _deleted: w.delete === true,
      _attachments: {},
      _meta: { lwt: rxNow() },
      _rev: createRevision(db.token, w.previous),
    } as Raw;
    return w.previous ? { document, previous: w.previous } : { document };
  };

  let closed = false;

  /** Live documents only; an explicit index gets `_deleted` in front, as RxDB's own indexes have. */
  const prepared = (name: string, query: MangoQuery<StoredDoc>): PreparedQuery<StoredDoc> => {
    const schema = collection(name).schema.jsonSchema;
    const normalized = normalizeMangoQuery<StoredDoc>(schema, query);
    (normalized.selector as Record<string, unknown>)._deleted = { $eq: false };
    if (normalized.index) normalized.index.unshift('_deleted');
    return prepareQuery(schema, normalized);
  };

  return {
    db,
    collection,
    async get(name, id) {
      const [doc] = await instance(name).findDocumentsById([id], false);
      return doc;
    },
    async getMany(name, ids) {
      if (ids.length === 0) return [];
      return instance(name).findDocumentsById([...ids], false);
    },
    async find(name, query) {
      const result = await instance(name).query(prepared(name, query));
      return result.documents;
    },
    async findWithBytes(name, query, path) {
      const reader = bytesQueryOf(instance(name));
      if (reader) {
        const { documents, bytes } = await db.lockedRun(() => reader.queryWithBytes(prepared(name, query), path));
        return documents.map((doc, i) => ({ doc, bytes: bytes[i] ?? null }));
      }
      const parts = path.split('.');
      const { documents } = await instance(name).query(prepared(name, query));
      return documents.map((doc) => {
        const taken = takeText(doc, parts);
        return { doc: taken.value as Raw, bytes: taken.bytes };
      });
    },
    async count(name, selector) {
      const schema = collection(name).schema.jsonSchema;
      const normalized = normalizeMangoQuery<StoredDoc>(schema, { selector });
      (normalized.selector as Record<string, unknown>)._deleted = { $eq: false };
      const result = await instance(name).count(prepareQuery(schema, normalized));
      return result.count;
    },
    async commit(writes) {
      if (writes.length === 0) return;
      const byCollection = new Map<string, BulkWriteRow<StoredDoc>[]>();
      for (const w of writes) {
        const rows = byCollection.get(w.collection) ?? [];
        rows.push(toRow(w));
        byCollection.set(w.collection, rows);
      }
      const names = [...byCollection.keys()];
      if (options.commitAtomically) {
        const result = await options.commitAtomically(
          names.map((name) => ({ instance: instance(name), rows: byCollection.get(name) ?? [], context: 'laneway-engine' })),
        );
        if (!result.ok) {
          const first = result.errors?.[0];
          const name = names[first?.instanceIndex ?? 0] ?? '?';
          throw new StoreConflictError(name, (first?.errors ?? []).map((e) => e.documentId));
        }
        return;
      }
      // Storages without a shared transaction (the in-memory one in a few unit tests): per collection.
      for (const name of names) {
        const response = await instance(name).bulkWrite(byCollection.get(name) ?? [], 'laneway-engine');
        if (response.error.length > 0) throw new StoreConflictError(name, response.error.map((e) => e.documentId));
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}

/** The record body without RxDB's bookkeeping fields. */
export function stripMeta<T extends StoredDoc>(raw: RxDocumentData<T>): T {
  const { _rev: _r, _meta: _m, _deleted: _d, _attachments: _a, ...doc } = raw;
  return doc as unknown as T;
}
