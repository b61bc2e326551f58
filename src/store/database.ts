import {
  _collectionNamePrimary,
  createRevision,
  createRxDatabase,
  createRxSchema,
  deepEqual,
  getPrimaryKeyOfInternalDocument,
  INTERNAL_CONTEXT_COLLECTION,
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
// The projection rule (a dot path's value, null where absent) is the SQLite storage's; other storages answer the same.
import { projectValues, valueAt } from './sqlite/projections';

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
   * find() for export pages of stored renderings: per matching document, in order, the values at
   * `fields` (dot paths; null where absent) and the UTF-8 bytes of its string at `textPath` (null
   * where that is not a string). A collection that declares `textPath` a text column hands the
   * bytes over without a document, a string or a parse per record (see sqlite/packed-read.ts). The
   * bytes of one page may be views of one buffer.
   */
  project(collection: string, query: MangoQuery<StoredDoc>, fields: readonly string[], textPath: string): Promise<{ values: unknown[][]; bytes: Array<Buffer | null> }>;
  count(collection: string, selector: MangoQuerySelector<StoredDoc>): Promise<number>;
  /** All-or-nothing across collections when the storage supports it (our SQLite storage does). */
  commit(writes: readonly StoreWrite[]): Promise<void>;
  close(): Promise<void>;
}

/** What our SQLite storage instance adds to the RxStorage interface (see src/store/sqlite). */
interface ProjectedQuery {
  queryProjected(prepared: PreparedQuery<StoredDoc>, fields: readonly string[], textPath: string): Promise<{ values: unknown[][]; bytes: Array<Buffer | null> }>;
}

/** The storage instance under RxDB's wrapper, when it can read projected pages. */
function projectedQueryOf(instance: unknown): ProjectedQuery | undefined {
  let current = instance as { originalStorageInstance?: unknown; queryProjected?: unknown } | undefined;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (typeof current.queryProjected === 'function') return current as unknown as ProjectedQuery;
    current = current.originalStorageInstance as typeof current;
  }
  return undefined;
}

export interface OpenStoreOptions {
  storage: RxStorage<unknown, unknown>;
  collections: readonly CollectionDef[];
  /** Present when every collection lives in one SQLite file; otherwise commits are per collection. */
  commitAtomically?: AtomicCommit;
  name?: string;
}

type InternalCollectionDoc = { id: string; key: string; context: string; data: { name: string; schemaHash: string; schema: Record<string, unknown>; version: number; connectedStorages: unknown[] } };

/**
 * Whether a stored schema becomes `wanted` by adding indexes or fields only: its other settings and
 * every field it had stay as they were.
 */
function onlyIndexesOrNewFields(stored: Record<string, unknown>, wanted: Record<string, unknown>): boolean {
  const rest = (schema: Record<string, unknown>) => {
    const { indexes: _indexes, internalIndexes: _internal, properties: _properties, required: _required, ...others } = schema;
    return others;
  };
  if (!deepEqual(rest(stored), rest(wanted))) return false;
  const had = (stored.properties ?? {}) as Record<string, unknown>;
  const has = (wanted.properties ?? {}) as Record<string, unknown>;
  if (!Object.entries(had).every(([name, field]) => deepEqual(field, has[name]))) return false;
  // A field it had is required as before; only a new one may be added to the list.
  const required = (schema: Record<string, unknown>) => new Set((schema.required ?? []) as string[]);
  const before = required(stored);
  const after = required(wanted);
  return [...before].every((f) => after.has(f)) && [...after].every((f) => before.has(f) || !(f in had));
}

/**
 * Our SQLite storage keeps a collection's index columns as data derived from each document's
 * JSON and recomputes them when the schema's indexes change (table-relayouts.ts), but RxDB refuses
 * (DB6) a stored collection whose schema differs under the same version: a data folder from before
 * an index was dropped or added (1de0d47 dropped the transactions' watermark index) would not
 * open. A stored schema that this one only adds indexes or fields to (rows stored before have none
 * of a new field: an index on it holds them under its empty value) is replaced by it; any other
 * difference is left for RxDB to refuse.
 */
async function acceptLayoutChanges(db: RxDatabase, collections: readonly CollectionDef[]): Promise<boolean> {
  const internal = db.internalStore as unknown as RxStorageInstance<InternalCollectionDoc, unknown, unknown>;
  let accepted = false;
  for (const def of collections) {
    const id = getPrimaryKeyOfInternalDocument(_collectionNamePrimary(def.name, def.schema as never), INTERNAL_CONTEXT_COLLECTION);
    const [stored] = await internal.findDocumentsById([id], false);
    if (!stored) continue;
    const schema = createRxSchema(def.schema as never, db.hashFunction);
    const hash = await schema.hash;
    const wanted = schema.jsonSchema as unknown as Record<string, unknown>;
    if (stored.data.schemaHash === hash || deepEqual(stored.data.schema, wanted) || !onlyIndexesOrNewFields(stored.data.schema, wanted)) continue;
    const document = { ...stored, data: { ...stored.data, schemaHash: hash, schema: wanted }, _meta: { lwt: rxNow() }, _rev: createRevision(db.token, stored) };
    const result = await internal.bulkWrite([{ previous: stored, document }], 'laneway-accept-layout-change');
    if (result.error.length) throw new Error(`laneway store: the ${def.name} collection's new layout could not be recorded`);
    accepted = true;
  }
  return accepted;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const db = await createRxDatabase<Record<string, RxCollection<StoredDoc>>>({
    name: options.name ?? 'laneway',
    storage: options.storage,
    multiInstance: false,
    eventReduce: true,
    closeDuplicates: true,
  });
  const defs: Record<string, { schema: CollectionDef['schema']; instanceCreationOptions?: Pick<CollectionDef, 'textColumns' | 'projections'> }> = {};
  for (const def of options.collections) {
    const layout = { ...(def.textColumns ? { textColumns: def.textColumns } : {}), ...(def.projections ? { projections: def.projections } : {}) };
    defs[def.name] = { schema: def.schema, ...(Object.keys(layout).length ? { instanceCreationOptions: layout } : {}) };
  }
  try {
    await db.addCollections(defs);
  } catch (err) {
    // Only when RxDB refused a stored schema: the common open reads nothing more.
    if ((err as { code?: unknown }).code !== 'DB6' || !(await acceptLayoutChanges(db, options.collections))) throw err;
    await db.addCollections(defs);
  }

  const collection = (name: string): RxCollection<StoredDoc> => {
    const c = db.collections[name];
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  };
  const instance = (name: string) => collection(name).storageInstance as unknown as RxStorageInstance<StoredDoc, unknown, unknown>;

  const toRow = (w: StoreWrite): BulkWriteRow<StoredDoc> => {
    // Object.assign and property sets: on Node 20 `{ ...w.doc, _deleted, _attachments, _meta, _rev }`
    // builds a new hidden class per row (about 20 µs each, most of a replicated page's JS time).
    const document = Object.assign({}, w.doc) as Raw;
    document._deleted = w.delete === true;
    document._attachments = {};
    document._meta = { lwt: rxNow() };
    document._rev = createRevision(db.token, w.previous);
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
    async project(name, query, fields, textPath) {
      const reader = projectedQueryOf(instance(name));
      if (reader) return db.lockedRun(() => reader.queryProjected(prepared(name, query), fields, textPath));
      // Other storages (the in-memory one in a few unit tests): project the documents.
      const { documents } = await instance(name).query(prepared(name, query));
      const text = textPath.split('.');
      return {
        values: projectValues(documents, fields),
        bytes: documents.map((doc) => {
          const value = valueAt(doc, text);
          return typeof value === 'string' ? Buffer.from(value, 'utf8') : null;
        }),
      };
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
        const attempt = () => options.commitAtomically!(names.map((name) => ({ instance: instance(name), rows: byCollection.get(name) ?? [], context: 'laneway-engine' })));
        let result = await attempt();
        // The commit rolled back whole, so it can be made again with those rows as updates of their tombstones.
        if (!result.ok && overTombstonesOnly(result, names, byCollection, db.token)) result = await attempt();
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

/**
 * A record written again under the id of one removed earlier: its insert meets the tombstone,
 * which RxDB reports as a conflict. RxDB's own collection API writes such a row again as an update
 * of the tombstone (a re-insert); a commit made here does the same. When every conflict of a
 * failed commit is one of those, the rows are turned into updates of their tombstones (true);
 * otherwise nothing is changed (false) and the conflict stands.
 */
function overTombstonesOnly(result: AtomicCommitResult, names: readonly string[], byCollection: Map<string, BulkWriteRow<StoredDoc>[]>, token: string): boolean {
  const failures = result.errors ?? [];
  const reinserts = failures.flatMap((f) => f.errors.map((e) => ({ name: names[f.instanceIndex] ?? '', e })));
  const isReinsert = ({ e }: { e: RxStorageWriteError<StoredDoc> }) => e.status === 409 && !e.writeRow.previous && !e.writeRow.document._deleted && (e as { documentInDb?: Raw }).documentInDb?._deleted === true;
  if (reinserts.length === 0 || !reinserts.every(isReinsert)) return false;
  for (const { name, e } of reinserts) {
    const rows = byCollection.get(name) ?? [];
    const at = rows.indexOf(e.writeRow);
    const tombstone = (e as { documentInDb: Raw }).documentInDb;
    if (at === -1) return false;
    rows[at] = { previous: tombstone, document: { ...e.writeRow.document, _rev: createRevision(token, tombstone) } };
  }
  return true;
}

/** The record body without RxDB's bookkeeping fields. */
export function stripMeta<T extends StoredDoc>(raw: RxDocumentData<T>): T {
  const { _rev: _r, _meta: _m, _deleted: _d, _attachments: _a, ...doc } = raw;
  return doc as unknown as T;
}
