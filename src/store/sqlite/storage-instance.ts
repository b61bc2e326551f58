import type { Transaction } from 'better-sqlite3';
import { Subject, type Observable } from 'rxjs';
import type {
  BulkWriteRow,
  PreparedQuery,
  RxDocumentData,
  RxJsonSchema,
  RxStorage,
  RxStorageBulkWriteResponse,
  RxStorageCountResult,
  RxStorageDefaultCheckpoint,
  RxStorageInstance,
  RxStorageQueryResult,
} from 'rxdb';
import { now } from 'rxdb';
import type { SqliteConnection } from './connection';
import { runQueryProjected, type ProjectedPage } from './packed-read';
import { runChangedSince, runCount, runQuery } from './query';
import { dropTable } from './table-creation';
import type { SqliteTable } from './table';
import type { SqliteInstanceOptions, SqliteInternals } from './types';
import {
  applyWriteRows,
  collectAttachmentBlobs,
  readAttachmentBlobs,
  type AppliedWrite,
  type AttachmentBytes,
  type ChangeBulk,
} from './write-batch';

/** Tombstones purged per cleanup() call, so one call never holds the write lock for long. */
const CLEANUP_BATCH = 1_000;

function rejectWith<T>(run: () => T): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (err) {
    return Promise.reject(err);
  }
}

export class SqliteStorageInstance<RxDocType>
  implements RxStorageInstance<RxDocType, SqliteInternals, SqliteInstanceOptions, RxStorageDefaultCheckpoint>
{
  readonly internals: SqliteInternals;
  readonly primaryPath: string;
  private readonly changes$ = new Subject<ChangeBulk<RxDocType>>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly writeTransaction: Transaction<
    (rows: BulkWriteRow<RxDocType>[], context: string, bytes: AttachmentBytes | undefined) => AppliedWrite<RxDocType>
  >;

  constructor(
    readonly storage: RxStorage<SqliteInternals, SqliteInstanceOptions>,
    readonly databaseName: string,
    readonly collectionName: string,
    readonly schema: Readonly<RxJsonSchema<RxDocumentData<RxDocType>>>,
    readonly options: Readonly<SqliteInstanceOptions>,
    readonly connection: SqliteConnection,
    readonly table: SqliteTable<RxDocType>,
    readonly multiInstance: boolean,
  ) {
    this.primaryPath = table.primaryPath;
    this.internals = { filePath: connection.filePath, tableName: table.tableName };
    table.users.add(this);
    this.writeTransaction = connection.db.transaction(
      (rows: BulkWriteRow<RxDocType>[], context: string, bytes: AttachmentBytes | undefined) =>
        applyWriteRows(this, table, rows, context, bytes),
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Throws when the instance can no longer be used; every operation calls it first. */
  ensureUsable(): void {
    if (this.closed) {
      throw new Error(`laneway sqlite: ${this.label()} is closed`);
    }
    if (this.table.removed) {
      throw new Error(`laneway sqlite: ${this.label()} was removed`);
    }
  }

  bulkWrite(rows: BulkWriteRow<RxDocType>[], context: string): Promise<RxStorageBulkWriteResponse<RxDocType>> {
    try {
      this.ensureUsable();
    } catch (err) {
      return Promise.reject(err);
    }
    const blobs = this.schema.attachments ? collectAttachmentBlobs(rows) : [];
    const prepare = blobs.length > 0 ? readAttachmentBlobs(blobs) : undefined;
    return this.connection.scheduleWrite(prepare, (bytes) => {
      const applied = this.applyInTransaction(rows, context, bytes);
      if (applied.eventBulk) {
        this.emit(applied.eventBulk);
      }
      return { error: applied.errors };
    });
  }

  private applyInTransaction(rows: BulkWriteRow<RxDocType>[], context: string, bytes: AttachmentBytes | undefined) {
    // The write path may already be queued when the table gets removed.
    if (this.table.removed) {
      throw new Error(`laneway sqlite: ${this.label()} was removed`);
    }
    return this.writeTransaction.immediate(rows, context, bytes);
  }

  /**
   * Delivers a committed change bulk to this instance and, when RxDB runs in
   * multi-instance mode, to the other open instances of the same collection in
   * this process. Other processes are not told: laneway runs one process per
   * data folder, so no BroadcastChannel is set up.
   */
  emit(bulk: ChangeBulk<RxDocType>): void {
    this.connection.deliver(this.changes$, bulk);
    if (!this.multiInstance) {
      return;
    }
    for (const user of this.table.users) {
      if (user !== this && user instanceof SqliteStorageInstance && user.multiInstance && !user.closed) {
        this.connection.deliver((user as SqliteStorageInstance<RxDocType>).changes$, bulk);
      }
    }
  }

  findDocumentsById(ids: string[], withDeleted: boolean): Promise<RxDocumentData<RxDocType>[]> {
    return rejectWith(() => {
      this.ensureUsable();
      const found: RxDocumentData<RxDocType>[] = [];
      for (const id of ids) {
        const doc = this.table.readDocument(id);
        if (doc && (withDeleted || !doc._deleted)) {
          found.push(doc);
        }
      }
      return found;
    });
  }

  query(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageQueryResult<RxDocType>> {
    return rejectWith(() => {
      this.ensureUsable();
      return { documents: runQuery(this.table, this.schema, preparedQuery) };
    });
  }

  /**
   * query() for export pages (not part of the RxStorage interface): per matching document, in
   * order, the values at `fields` and the stored UTF-8 bytes of the text column at `textPath`
   * (null where the field is not a string). No document is built. See packed-read.ts.
   */
  queryProjected(preparedQuery: PreparedQuery<RxDocType>, fields: readonly string[], textPath: string): Promise<ProjectedPage> {
    return rejectWith(() => {
      this.ensureUsable();
      return runQueryProjected(this.table, this.schema, preparedQuery, fields, textPath);
    });
  }

  count(preparedQuery: PreparedQuery<RxDocType>): Promise<RxStorageCountResult> {
    return rejectWith(() => {
      this.ensureUsable();
      return runCount(this.table, this.schema, preparedQuery);
    });
  }

  getChangedDocumentsSince(
    limit: number,
    checkpoint?: RxStorageDefaultCheckpoint,
  ): Promise<{ documents: RxDocumentData<RxDocType>[]; checkpoint: RxStorageDefaultCheckpoint }> {
    return rejectWith(() => {
      this.ensureUsable();
      return runChangedSince(this.table, limit, checkpoint);
    });
  }

  getAttachmentData(documentId: string, attachmentId: string, digest: string): Promise<Blob> {
    return rejectWith(() => {
      this.ensureUsable();
      const stored = this.table.readAttachment(documentId, attachmentId);
      if (!stored || !digest || stored.digest !== digest) {
        throw new Error(`laneway sqlite: attachment ${documentId}/${attachmentId} (${digest}) does not exist`);
      }
      return new Blob([new Uint8Array(stored.data)], { type: stored.type });
    });
  }

  changeStream(): Observable<ChangeBulk<RxDocType>> {
    return this.changes$.asObservable();
  }

  cleanup(minimumDeletedTime: number): Promise<boolean> {
    try {
      this.ensureUsable();
    } catch (err) {
      return Promise.reject(err);
    }
    // Tombstone age is wall time against `_meta.lwt`, which RxDB stamps with the same clock.
    const olderThan = now() - minimumDeletedTime;
    return this.connection.scheduleWrite(undefined, () => {
      const table = this.table;
      const purge = this.connection.db.transaction(() => {
        const ids = table
          .statement(
            'tombstones',
            () =>
              `SELECT id FROM ${table.quotedName} WHERE deleted = 1 AND lwt <= ? ORDER BY lwt LIMIT ${CLEANUP_BATCH}`,
            true,
          )
          .all(olderThan) as Buffer[];
        for (const id of ids) {
          table.deleteRow(id);
        }
        return ids.length;
      });
      return purge.immediate() < CLEANUP_BATCH;
    });
  }

  close(): Promise<void> {
    if (this.closing) {
      return this.closing;
    }
    this.closed = true;
    this.closing = this.connection.drainWrites().then(() => {
      this.table.users.delete(this);
      this.changes$.complete();
      this.connection.release();
    });
    return this.closing;
  }

  async remove(): Promise<void> {
    this.ensureUsable();
    this.closed = true;
    await this.connection.drainWrites();
    dropTable(this.table);
    this.connection.deleteFileWhenEmpty = true;
    this.closing = Promise.resolve();
    this.table.users.delete(this);
    this.changes$.complete();
    this.connection.release();
  }

  private label(): string {
    return `${this.databaseName}/${this.collectionName} v${this.schema.version} (${this.connection.filePath})`;
  }
}
