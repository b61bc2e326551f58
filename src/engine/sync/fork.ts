import { Subject, filter, map, type Observable } from 'rxjs';
import type { BulkWriteRow, EventBulk, RxDocumentData, RxJsonSchema, RxStorageBulkWriteResponse, RxStorageWriteError } from 'rxdb';
import type { EngineCore, Tx } from '../core';
import { unusedForkMethods, withRepushes, type Repush } from './replication-parts';
import type { StoredDoc } from '../../store/schema';
import { bodyOf, changesSince, inStream, sameDocument, syncEventOf, type SyncDoc, type SyncStream } from './streams';

type Raw = RxDocumentData<StoredDoc>;
type Checkpoint = { watermark: number };

/**
 * One replication stream's documents on this install, as the storage instance RxDB's replication
 * protocol works on (its "fork"). Reads are the stream's documents in watermark order (the
 * watermark is the fork's checkpoint); writes go through the engine's units of work, so a pulled
 * document gets this install's next watermark and its event like any other change (exports, the
 * event stream and the screens see it) instead of being written under the engine's feet.
 *
 * A write whose `previous` no longer matches what is stored (the register changed the document
 * meanwhile) is answered 409 with the stored version, as a storage would: the protocol resolves
 * it and writes again.
 */
/** Work done in the unit of work that writes a pulled document (`current`: the version it replaces). */
export type PulledHook = (tx: Tx, doc: SyncDoc, current: SyncDoc | undefined) => Promise<void>;

export function engineFork(core: EngineCore, stream: SyncStream, repush$?: Observable<Repush>, onPulledInTx?: PulledHook): unknown {
  const collection = core.store.collection(stream.collection);
  const schema = collection.schema.jsonSchema as RxJsonSchema<Raw>;
  const real = collection.storageInstance;
  const withMeta = (doc: StoredDoc, raw?: Raw): Raw =>
    ({ ...doc, _deleted: false, _attachments: {}, _meta: raw?._meta ?? { lwt: core.clock.now() }, _rev: raw?._rev ?? '1-sync' }) as Raw;
  const closed$ = new Subject<void>();
  const rawReader = { find: (name: string, query: Parameters<EngineCore['find']>[1]) => core.store.find(name, query) } as unknown as EngineCore;

  return {
    databaseName: collection.database.name,
    collectionName: `${stream.collection}-${stream.name}`,
    schema,
    internals: {},
    options: {},
    async findDocumentsById(ids: string[], withDeleted: boolean): Promise<Raw[]> {
      const found = await core.store.getMany(stream.collection, ids);
      return found.filter((d) => (withDeleted || !d._deleted) && inStream(stream, d));
    },
    async getChangedDocumentsSince(limit: number, checkpoint?: Checkpoint): Promise<{ documents: Raw[]; checkpoint: Checkpoint }> {
      const after = checkpoint?.watermark ?? 0;
      // The storage's own rows (with RxDB's _rev and _meta), in one query: no second read by id.
      const raws = (await changesSince(rawReader, stream, after, limit)) as unknown as Raw[];
      const last = raws[raws.length - 1];
      return { documents: raws.filter((r) => inStream(stream, r)), checkpoint: { watermark: last ? last.watermark : after } };
    },
    changeStream(): Observable<EventBulk<Raw, Checkpoint>> {
      const changes = real.changeStream().pipe(
        map((bulk) => {
          const events = bulk.events.filter((e) => inStream(stream, e.documentData as Record<string, unknown>));
          const top = events.reduce((w, e) => Math.max(w, Number((e.documentData as Raw).watermark) || 0), 0);
          return { ...bulk, events, checkpoint: { watermark: top } } as unknown as EventBulk<Raw, Checkpoint>;
        }),
        filter((bulk) => bulk.events.length > 0),
      );
      // Offered again by the lane's guard: the stored rows as they are (replication-parts.ts).
      return withRepushes(changes, repush$, (d) => d as unknown as Raw, (watermark) => ({ watermark }));
    },
    async bulkWrite(rows: BulkWriteRow<Raw>[], context: string): Promise<RxStorageBulkWriteResponse<Raw>> {
      const error: RxStorageWriteError<Raw>[] = [];
      await core.mutate(async (tx) => {
        for (const row of rows) {
          const doc = bodyOf(row.document as unknown as Record<string, unknown>) as SyncDoc;
          const current = await tx.get(stream.collection, doc.id);
          const expected = row.previous ? bodyOf(row.previous as unknown as Record<string, unknown>) : undefined;
          if (current && !sameDocument(current, expected)) {
            const raw = await core.store.get(stream.collection, doc.id);
            error.push({ status: 409, isError: true, context, documentId: doc.id, writeRow: row, documentInDb: withMeta(current, raw) });
            continue;
          }
          if (current && sameDocument(current, doc)) continue;
          if (row.document._deleted) await tx.remove(stream.collection, doc.id, syncEventOf(stream, doc));
          else {
            await tx.put(stream.collection, { ...doc }, syncEventOf(stream, doc));
            if (onPulledInTx) await onPulledInTx(tx, doc, current as SyncDoc | undefined);
          }
        }
      });
      return { error };
    },
    ...unusedForkMethods('sync fork', closed$),
  };
}
