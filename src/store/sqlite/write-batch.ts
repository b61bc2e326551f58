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
import type { SqliteTable } from './table';

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
 * The synchronous core of a bulk write: read the stored versions of the rows,
 * let RxDB decide insert/update/conflict, apply documents and attachments.
 * Must run inside a transaction the caller opened; it never awaits.
 */
export function applyWriteRows<RxDocType>(
  instance: RxStorageInstance<RxDocType, unknown, unknown, unknown>,
  table: SqliteTable<RxDocType>,
  rows: BulkWriteRow<RxDocType>[],
  context: string,
  attachmentBytes: AttachmentBytes | undefined,
): AppliedWrite<RxDocType> {
  const primaryPath = table.primaryPath;
  const errors: RxStorageWriteError<RxDocType>[] = [];
  let eventBulk: ChangeBulk<RxDocType> | undefined;
  let newest: RxDocumentData<RxDocType> | undefined;

  for (const run of runsOfDistinctIds(rows, primaryPath)) {
    if (run.length === 0) {
      continue;
    }
    const docsInDb = new Map<string, RxDocumentData<RxDocType>>();
    for (const row of run) {
      const id = (row.document as Record<string, unknown>)[primaryPath] as string;
      const stored = table.readDocument(id);
      if (stored) {
        docsInDb.set(id, stored);
      }
    }

    const categorized = categorizeBulkWriteRows<RxDocType>(
      instance,
      primaryPath as StringKeys<RxDocType>,
      docsInDb,
      run,
      context,
    );

    for (const row of categorized.bulkInsertDocs) {
      table.insertDocument(row.document);
    }
    for (const row of categorized.bulkUpdateDocs) {
      table.updateDocument(row.document);
    }
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
