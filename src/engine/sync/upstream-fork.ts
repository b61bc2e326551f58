import { concatMap, filter, Subject, type Observable } from 'rxjs';
import { fillWithDefaultSettings, type BulkWriteRow, type EventBulk, type RxDocumentData, type RxJsonSchema, type RxStorageBulkWriteResponse, type RxStorageWriteError } from 'rxdb';
import type { EngineCore } from '../core';
import { unusedForkMethods, withRepushes, type Repush } from './replication-parts';
import type { Receivables } from '../receivables';
import type { Orders } from '../orders';
import type { StoredDoc } from '../../store/schema';
import type { AllocationCut } from '../receivables/types';
import { bodyOfRecord, isRetired, keyOfBody, type Body, type EntitySpec, type ReversalStatus } from './upstream-shapes';

/**
 * One entity's records on this install as the storage RxDB's replication protocol works on (its
 * "fork"), for replication with an upstream service. A document is `{ id, body, watermark }`: the
 * identifier the import operations upsert on, the record as the import operation takes it
 * (upstream-shapes.ts), and this install's watermark, the upstream checkpoint. Reads go through
 * this install's own export functions; writes through its own import functions (the same rules a
 * `POST /api/imports/...` runs), so a pulled record gets this install's next watermark and its
 * events like any import.
 */
export interface UpstreamDoc {
  id: string;
  body: Body;
  watermark: number;
}
type Raw = RxDocumentData<UpstreamDoc>;
type Checkpoint = { watermark: number };

export const UPSTREAM_DOC_SCHEMA = (version: number): RxJsonSchema<Raw> =>
  fillWithDefaultSettings({
    version,
    primaryKey: 'id',
    type: 'object',
    properties: { id: { type: 'string', maxLength: 200 }, body: { type: 'object' }, watermark: { type: 'number' } },
    required: ['id', 'body', 'watermark'],
  } as RxJsonSchema<UpstreamDoc>) as RxJsonSchema<Raw>;

/** Canonical JSON: the same body whatever order its keys came in. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v));
}

export const sameBody = (a: { body?: unknown } | undefined, b: { body?: unknown } | undefined): boolean => !!a && !!b && canonical(a.body) === canonical(b.body);

/** This install's export records of one entity, and its import of one body. */
export interface LocalSide {
  page(after: number, limit: number): Promise<Array<Record<string, unknown> & { watermark: number }>>;
  /** The watermark of the record with this key, when there is one. */
  watermarkOf(key: string): Promise<number | undefined>;
  /** Answers each allocation the import left taking less than asked or held (a payment served later on an invoice that could not take every one). */
  import(body: Body): Promise<AllocationCut[]>;
  /** Retires this install's record by its own rule: deletes an invoice, reverses a payment. */
  retire(body: Body): Promise<void>;
}

export function localSide(core: EngineCore, receivables: Receivables, orders: Orders | undefined, entity: EntitySpec): LocalSide {
  const page = async (after: number, limit: number): Promise<Array<Record<string, unknown> & { watermark: number }>> => {
    const p = { after, limit };
    if (entity.name === 'customers') return (await receivables.exportCustomers(p, false)) as never;
    if (entity.name === 'payments') return (await receivables.exportPayments(p, false)) as never;
    if (entity.name === 'orders') return orders ? ((await orders.exportOrders(p)) as never) : [];
    const { records } = await receivables.exportInvoicesJson('all', p, { includeDeleted: true });
    return records.map((r) => JSON.parse(r.json.head + r.json.rest.toString('utf8')) as Record<string, unknown> & { watermark: number });
  };
  return {
    page,
    async watermarkOf(key) {
      if (entity.name === 'customers') return (await core.find<StoredDoc>('customers', { selector: { identifier: key }, sort: [{ identifier: 'asc' }], limit: 1 }))[0]?.watermark;
      return (await core.get<StoredDoc>(entity.collection, key))?.watermark;
    },
    async import(body) {
      const cuts: AllocationCut[] = [];
      if (entity.name === 'customers') await receivables.importCustomer(body as never);
      else if (entity.name === 'invoices') await receivables.importInvoice(body as never, { cuts });
      else if (entity.name === 'payments') await receivables.importPayment(body as never, 'json', { cuts });
      else throw new Error(`${entity.name} are not pulled from an upstream`);
      return cuts;
    },
    async retire(body) {
      if (entity.name === 'invoices') await receivables.deleteInvoice(String(body.number));
      else if (entity.name === 'payments') await receivables.reversePayment(String(body.identifier), body.status as ReversalStatus, typeof body.status_reason === 'string' ? body.status_reason : undefined);
      else throw new Error(`${entity.name} cannot be retired from an upstream`);
    },
  };
}

/** The fork documents of a page of export records (records that carry nothing importable are skipped). */
export function docsOf(entity: EntitySpec, records: ReadonlyArray<Record<string, unknown> & { watermark: number }>): UpstreamDoc[] {
  const out: UpstreamDoc[] = [];
  for (const r of records) {
    const body = bodyOfRecord(entity.name, r);
    if (body) out.push({ id: keyOfBody(entity.name, body), body, watermark: r.watermark });
  }
  return out;
}

export interface ForkHooks {
  /** Before a pulled body is imported: make what it depends on exist here (a payment's invoices). */
  prepare?(body: Body): Promise<void>;
  /** What a pulled body's import here left applying less than asked or held (none, mostly): recorded. */
  reduced(key: string, cuts: AllocationCut[]): Promise<unknown>;
  /** A pulled body this install's import rules refused: recorded, and the page goes on. */
  refused(key: string, body: Body, err: unknown): Promise<unknown>;
  /** Documents to offer for push again as they are (replication-parts.ts, lostPushGuard). */
  repush$?: Observable<Repush>;
}

export function upstreamFork(core: EngineCore, entity: EntitySpec, local: LocalSide, schema: RxJsonSchema<Raw>, hooks: ForkHooks): unknown {
  const withMeta = (doc: UpstreamDoc): Raw => ({ ...doc, _deleted: false, _attachments: {}, _meta: { lwt: core.clock.now() }, _rev: '1-upstream' }) as Raw;
  const one = async (key: string): Promise<UpstreamDoc | undefined> => {
    const watermark = await local.watermarkOf(key);
    if (watermark === undefined) return undefined;
    // Watermarks are unique on an install: the first record after watermark - 1 is this one.
    const [doc] = docsOf(entity, await local.page(watermark - 1, 1));
    return doc && doc.id === key ? doc : undefined;
  };
  const real = core.store.collection(entity.collection).storageInstance;
  const closed$ = new Subject<void>();
  // A pulled record's own write here comes back on the change stream and in reads from the push
  // checkpoint, possibly before the protocol recorded it as the upstream's version: while it is as
  // pulled it is not offered for push, so it is not sent back (after a restart the recorded version
  // does the same). Bounded: the oldest marks go first.
  const justPulled = new Map<string, string>();
  const MAX_MARKS = 20_000;
  const markPulled = (doc: UpstreamDoc) => {
    justPulled.delete(doc.id);
    justPulled.set(doc.id, canonical(doc.body));
    if (justPulled.size > MAX_MARKS) justPulled.delete(justPulled.keys().next().value as string);
  };
  const echo = (d: UpstreamDoc) => {
    const pulled = justPulled.get(d.id);
    if (pulled === undefined) return false;
    if (pulled === canonical(d.body)) return true;
    justPulled.delete(d.id);
    return false;
  };
  const keyOf = (d: Record<string, unknown>) => String(entity.name === 'customers' ? d.identifier : d.id);

  return {
    databaseName: core.store.collection(entity.collection).database.name,
    collectionName: `${entity.collection}-upstream`,
    schema,
    internals: {},
    options: {},
    async findDocumentsById(ids: string[]): Promise<Raw[]> {
      const docs = await Promise.all(ids.map(one));
      return docs.filter((d): d is UpstreamDoc => !!d).map(withMeta);
    },
    async getChangedDocumentsSince(limit: number, checkpoint?: Checkpoint): Promise<{ documents: Raw[]; checkpoint: Checkpoint }> {
      const after = checkpoint?.watermark ?? 0;
      const records = await local.page(after, limit);
      const last = records[records.length - 1];
      return { documents: docsOf(entity, records).filter((d) => !echo(d)).map(withMeta), checkpoint: { watermark: last ? last.watermark : after } };
    },
    changeStream(): Observable<EventBulk<Raw, Checkpoint>> {
      // A change of the collection is read back through the export, in order, as the document
      // the upstream would be sent.
      const changes = real.changeStream().pipe(
        concatMap(async (bulk) => {
          const keys = [...new Set(bulk.events.filter((e) => !(e.documentData as { _deleted?: boolean })._deleted).map((e) => keyOf(e.documentData as Record<string, unknown>)))];
          const docs = (await Promise.all(keys.map(one))).filter((d): d is UpstreamDoc => !!d && !echo(d));
          const top = docs.reduce((w, d) => Math.max(w, d.watermark), 0);
          const events = docs.map((d) => ({ operation: 'UPDATE', documentId: d.id, documentData: withMeta(d), previousDocumentData: undefined }));
          return { id: bulk.id, events, checkpoint: { watermark: top }, context: bulk.context } as unknown as EventBulk<Raw, Checkpoint>;
        }),
        filter((bulk) => bulk.events.length > 0),
      );
      return withRepushes(changes, hooks.repush$, (d) => withMeta(d as unknown as UpstreamDoc), (watermark) => ({ watermark }));
    },
    async bulkWrite(rows: BulkWriteRow<Raw>[], context: string): Promise<RxStorageBulkWriteResponse<Raw>> {
      const error: RxStorageWriteError<Raw>[] = [];
      for (const row of rows) {
        if (row.document._deleted) continue;
        const doc = row.document as unknown as UpstreamDoc;
        const current = await one(doc.id);
        if (current && row.previous && !sameBody(current, row.previous as unknown as UpstreamDoc)) {
          // Changed here meanwhile: answered as a storage would, the protocol resolves and writes again.
          error.push({ status: 409, isError: true, context, documentId: doc.id, writeRow: row, documentInDb: withMeta(current) });
          continue;
        }
        if (current && sameBody(current, doc)) continue;
        const retired = isRetired(entity.name, doc.body);
        // A record deleted or reversed upstream that this install never had: nothing here to undo.
        if (retired && !current) continue;
        try {
          if (!retired) await hooks.prepare?.(doc.body);
          markPulled(doc);
          // Deleted or reversed upstream: the same rule as here (the invoice leaves the customer's
          // balance, the payment's allocations come off its invoices), not a second one.
          await (retired ? local.retire(doc.body) : local.import(doc.body).then((cuts) => hooks.reduced(doc.id, cuts)));
        } catch (err) {
          await hooks.refused(doc.id, doc.body, err);
        }
      }
      return { error };
    },
    ...unusedForkMethods('upstream fork', closed$),
  };
}

