import type {
  BulkWriteRow,
  EventBulk,
  RxDocumentData,
  RxStorageChangeEvent,
  RxStorageDefaultCheckpoint,
  RxStorageInstance,
  RxStorageWriteError,
  StringKeys,
} from 'rxdb';
import { categorizeBulkWriteRows } from 'rxdb';
import type { SqliteTable, StoredRevision } from './table';

export type AttachmentBytes = ReadonlyMap<Blob, Uint8Array>;

export type ChangeBulk<RxDocType> = EventBulk<
  RxStorageChangeEvent<RxDocumentData<RxDocType>>,
  RxStorageDefaultCheckpoint
>;

export type AppliedWrite<RxDocType> = {
  errors: RxStorageWriteError<RxDocType>[];
  /** Undefined when no row produced an event. */
  eventBulk: ChangeBulk<RxDocType> | undefined;
};

/** Every attachment Blob the rows carry; RxDB v17 hands attachment data over as Blobs. */
export function collectAttachmentBlobs<RxDocType>(rows: readonly BulkWriteRow<RxDocType>[]): Blob[] {
  const blobs: Blob[] = [];
  for (const row of rows) {
    const attachments = row.document._attachments as Record<string, { data?: unknown }> | undefined;
    if (!attachments) {
      continue;
    }
    for (const attachment of Object.values(attachments)) {
      if (attachment.data instanceof Blob) {
        blobs.push(attachment.data);
      }
    }
  }
  return blobs;
}

/** Reading a Blob is async, so it happens before the write transaction opens. */
export async function readAttachmentBlobs(blobs: readonly Blob[]): Promise<AttachmentBytes> {
  const entries = await Promise.all(
    blobs.map(async (blob): Promise<[Blob, Uint8Array]> => [blob, new Uint8Array(await blob.arrayBuffer())]),
  );
  return new Map(entries);
}

/**
 * categorizeBulkWriteRows compares every row against one snapshot of the
 * stored documents, so two rows for the same id in one call would both look
 * like inserts. Rows are cut into runs of distinct ids and each run sees the
 * writes of the previous one, which gives the sequential meaning a caller
 * expects (the second row conflicts unless it names the first as previous).
 */
function runsOfDistinctIds<RxDocType>(rows: BulkWriteRow<RxDocType>[], primaryPath: string): BulkWriteRow<RxDocType>[][] {
  const runs: BulkWriteRow<RxDocType>[][] = [];
  let current: BulkWriteRow<RxDocType>[] = [];
  let ids = new Set<string>();
  for (const row of rows) {
    const id = (row.document as Record<string, unknown>)[primaryPath] as string;
    if (ids.has(id)) {
      runs.push(current);
      current = [];
      ids = new Set();
    }
    ids.add(id);
    current.push(row);
  }
  runs.push(current);
  return runs;
}

/**
 * The stored version as far as categorizeBulkWriteRows reads it for a row that is not in conflict:
 * whether it exists, its revision and whether it is deleted (the rows' own `previous` carry the
 * rest: events and attachments are taken from them).
 */
function storedRevision<RxDocType>(table: SqliteTable<RxDocType>, id: string, revisions: Map<string, StoredRevision>): RxDocumentData<RxDocType> | undefined {
  const stored = table.readRevision(id);
  if (!stored) return undefined;
  revisions.set(id, stored);
  return { [table.primaryPath]: id, _rev: stored.rev, _deleted: stored.deleted } as unknown as RxDocumentData<RxDocType>;
}

/**
 * An insert whose id is taken (a live document or a tombstone) is the conflict RxDB reports when
 * it finds the stored version first: status 409, with the stored document.
 */
function insertOrConflict<RxDocType>(table: SqliteTable<RxDocType>, row: BulkWriteRow<RxDocType>, context: string): RxStorageWriteError<RxDocType> | undefined {
  try {
    table.insertDocument(row.document);
    return undefined;
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') throw err;
    const documentId = table.idOf(row.document);
    const documentInDb = table.readDocument(documentId);
    if (!documentInDb) throw err;
    return { isError: true, status: 409, documentId, writeRow: row, documentInDb, context };
  }
}

/**
 * The stored versions categorizeBulkWriteRows compares the rows with. Revisions only: a row
 * without a previous version is an insert, and the primary key says whether its id is taken
 * (insertOrConflict), so it costs no read; an update reads the stored revision and index keys.
 */
function storedVersions<RxDocType>(table: SqliteTable<RxDocType>, run: BulkWriteRow<RxDocType>[], revisionsOnly: boolean) {
  const docsInDb = new Map<string, RxDocumentData<RxDocType>>();
  const revisions = new Map<string, StoredRevision>();
  for (const row of run) {
    if (revisionsOnly && !row.previous) {
      continue;
    }
    const id = table.idOf(row.document);
    const stored = revisionsOnly ? storedRevision(table, id, revisions) : table.readDocument(id);
    if (stored) {
      docsInDb.set(id, stored);
    }
  }
  return { docsInDb, revisions };
}

/** The inserts and updates RxDB decided on; a taken id found by an insert joins the conflicts. */
function writeDocuments<RxDocType>(
  table: SqliteTable<RxDocType>,
  categorized: ReturnType<typeof categorizeBulkWriteRows<RxDocType>>,
  revisions: ReadonlyMap<string, StoredRevision>,
  revisionsOnly: boolean,
  context: string,
): void {
  for (const row of categorized.bulkInsertDocs) {
    if (revisionsOnly) {
      const conflict = insertOrConflict(table, row, context);
      if (conflict) categorized.errors.push(conflict);
    } else {
      table.insertDocument(row.document);
    }
  }
  for (const row of categorized.bulkUpdateDocs) {
    const stored = revisions.get(table.idOf(row.document));
    if (stored) {
      table.updateChangedKeys(row.document, stored);
    } else {
      table.updateDocument(row.document);
    }
  }
}

/**
 * The synchronous core of a bulk write: read the stored versions of the rows,
 * let RxDB decide insert/update/conflict, apply documents and attachments.
 * Must run inside a transaction the caller opened; it never awaits. With `revisionsOnly` (a commit
 * that rolls back on any error, as commitAtomically does), an update reads only the stored
 * revision for its conflict check, an insert reads nothing (the primary key refuses a taken id),
 * and a conflict's error carries the whole stored document.
 */
export function applyWriteRows<RxDocType>(
  instance: RxStorageInstance<RxDocType, unknown, unknown, unknown>,
  table: SqliteTable<RxDocType>,
  rows: BulkWriteRow<RxDocType>[],
  context: string,
  attachmentBytes: AttachmentBytes | undefined,
  revisionsOnly = false,
): AppliedWrite<RxDocType> {
  const primaryPath = table.primaryPath;
  const errors: RxStorageWriteError<RxDocType>[] = [];
  let eventBulk: ChangeBulk<RxDocType> | undefined;
  let newest: RxDocumentData<RxDocType> | undefined;

  for (const run of runsOfDistinctIds(rows, primaryPath)) {
    if (run.length === 0) {
      continue;
    }
    const { docsInDb, revisions } = storedVersions(table, run, revisionsOnly);
    const categorized = categorizeBulkWriteRows<RxDocType>(
      instance,
      primaryPath as StringKeys<RxDocType>,
      docsInDb,
      run,
      context,
    );
    if (revisionsOnly) {
      // A conflict hands the stored document to the caller: the whole one, read now (rare).
      for (const error of categorized.errors) {
        if (!('documentInDb' in error) || !error.documentInDb) continue;
        const whole = table.readDocument(error.documentId);
        if (whole) error.documentInDb = whole;
      }
    }

    writeDocuments(table, categorized, revisions, revisionsOnly, context);
    for (const add of [...categorized.attachmentsAdd, ...categorized.attachmentsUpdate]) {
      const bytes = attachmentBytes?.get(add.attachmentData.data);
      if (!bytes) {
        throw new Error(
          `laneway sqlite: attachment ${add.documentId}/${add.attachmentId} has no readable data`,
        );
      }
      table.putAttachment(add.documentId, add.attachmentId, add.digest, add.attachmentData.type, bytes);
    }
    for (const removed of categorized.attachmentsRemove) {
      table.removeAttachment(removed.documentId, removed.attachmentId);
    }

    errors.push(...categorized.errors);
    if (categorized.newestRow) {
      newest = categorized.newestRow.document;
    }
    // RxDB also emits an event for a row whose attachment data was missing
    // (status 510) although nothing was written; nobody may observe that.
    let events = categorized.eventBulk.events;
    if (categorized.errors.length > 0) {
      const failed = new Set(categorized.errors.map((e) => e.documentId));
      events = events.filter((event) => !failed.has(event.documentId));
    }
    if (!eventBulk) {
      eventBulk = { ...(categorized.eventBulk as ChangeBulk<RxDocType>), events };
    } else {
      eventBulk.events.push(...events);
    }
  }

  if (!eventBulk || eventBulk.events.length === 0 || !newest) {
    return { errors, eventBulk: undefined };
  }
  eventBulk.checkpoint = { id: table.idOf(newest), lwt: newest._meta.lwt };
  return { errors, eventBulk };
}
