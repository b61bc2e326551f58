import type { RxStorageInstance, RxStorageWriteError } from 'rxdb';
import { SqliteStorageInstance } from './storage-instance';
import type { AtomicCommitFailure, AtomicCommitResult, AtomicWrite } from './types';
import {
  applyWriteRows,
  collectAttachmentBlobs,
  readAttachmentBlobs,
  type AppliedWrite,
  type AttachmentBytes,
} from './write-batch';

/** Thrown inside the transaction so better-sqlite3 rolls everything back. */
class RollbackForConflicts extends Error {
  constructor(readonly failures: AtomicCommitFailure[]) {
    super('laneway sqlite: atomic commit rolled back');
  }
}

type Unwrappable = { originalStorageInstance?: unknown };

/** Accepts our instance or RxDB's wrapper around it (`collection.storageInstance`). */
function unwrap(instance: unknown): SqliteStorageInstance<unknown> | undefined {
  let current: unknown = instance;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (current instanceof SqliteStorageInstance) {
      return current as SqliteStorageInstance<unknown>;
    }
    current = (current as Unwrappable).originalStorageInstance;
  }
  return undefined;
}

function checkRowMeta(write: AtomicWrite<unknown>, index: number): void {
  for (const row of write.rows) {
    const doc = row.document;
    if (typeof doc._rev !== 'string' || typeof doc._meta?.lwt !== 'number' || !Number.isFinite(doc._meta.lwt)) {
      throw new Error(
        `laneway sqlite: commitAtomically write ${index} has a row without _rev or _meta.lwt; ` +
          'set them as RxDB does before a storage write',
      );
    }
  }
}

/**
 * Commits writes to several collections of one SQLite file in ONE transaction.
 * A conflict in any row of any collection rolls back every write and reports
 * the errors per write; otherwise all rows land and each collection's change
 * events are emitted after the single commit. All SQLite work runs
 * synchronously inside the transaction so no reader can see half of it.
 */
export async function commitAtomically<Ts extends unknown[]>(writes: {
  [K in keyof Ts]: AtomicWrite<Ts[K]>;
}): Promise<AtomicCommitResult> {
  const list = writes as unknown as AtomicWrite<unknown>[];
  if (list.length === 0) {
    return { ok: true };
  }
  const instances = list.map((write, index) => {
    const instance = unwrap(write.instance);
    if (!instance) {
      throw new Error(`laneway sqlite: commitAtomically write ${index} is not a laneway SQLite storage instance`);
    }
    instance.ensureUsable();
    checkRowMeta(write, index);
    return instance;
  });
  const connection = instances[0]!.connection;
  instances.forEach((instance, index) => {
    if (instance.connection !== connection) {
      throw new Error(
        `laneway sqlite: commitAtomically needs all instances in one SQLite file; write ${index} is in ` +
          `${instance.connection.filePath}, write 0 in ${connection.filePath}`,
      );
    }
  });

  const blobs = list.flatMap((write, index) =>
    instances[index]!.schema.attachments ? collectAttachmentBlobs(write.rows) : [],
  );
  const prepare = blobs.length > 0 ? readAttachmentBlobs(blobs) : undefined;

  return connection.scheduleWrite(prepare, (bytes: AttachmentBytes | undefined): AtomicCommitResult => {
    const transaction = connection.db.transaction(() => {
      const applied: AppliedWrite<unknown>[] = [];
      const failures: AtomicCommitFailure[] = [];
      list.forEach((write, index) => {
        const instance = instances[index]!;
        if (instance.table.removed) {
          throw new Error(`laneway sqlite: commitAtomically write ${index} targets a removed collection`);
        }
        const result = applyWriteRows(
          instance as RxStorageInstance<unknown, unknown, unknown, unknown>,
          instance.table,
          write.rows,
          write.context,
          bytes,
          true,
        );
        applied.push(result);
        if (result.errors.length > 0) {
          failures.push({ instanceIndex: index, errors: result.errors as RxStorageWriteError<unknown>[] });
        }
      });
      if (failures.length > 0) {
        throw new RollbackForConflicts(failures);
      }
      return applied;
    });

    let applied: AppliedWrite<unknown>[];
    try {
      applied = transaction.immediate();
    } catch (err) {
      if (err instanceof RollbackForConflicts) {
        return { ok: false, errors: err.failures };
      }
      throw err;
    }
    applied.forEach((result, index) => {
      if (result.eventBulk) {
        instances[index]!.emit(result.eventBulk);
      }
    });
    return { ok: true };
  });
}
