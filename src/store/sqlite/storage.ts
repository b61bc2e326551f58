import path from 'node:path';
import type { RxStorageInstanceCreationParams } from 'rxdb';
import { ensureRxStorageInstanceParamsAreCorrect, RXDB_VERSION } from 'rxdb';
import { acquireConnection } from './connection';
import { SqliteStorageInstance } from './storage-instance';
import { openTable } from './table-creation';
import { parseTextPaths } from './text-columns';
import type { RxStorageSqlite, SqliteInstanceOptions, SqliteStorageOptions } from './types';

export const DEFAULT_FILE_NAME = 'laneway.sqlite';

/**
 * RxDB storage keeping every database and collection of `directory` in one
 * SQLite file (WAL, one shared connection per file). See README.md and the notes in
 * connection.ts (durability), key-encoding.ts (ordering), table.ts, table-creation.ts and
 * table-relayouts.ts (layout).
 */
export function getRxStorageSqlite(options: SqliteStorageOptions): RxStorageSqlite {
  const filePath = path.resolve(options.directory, options.fileName ?? DEFAULT_FILE_NAME);
  const storage: RxStorageSqlite = {
    name: 'laneway-sqlite',
    rxdbVersion: RXDB_VERSION,
    async createStorageInstance<RxDocType>(
      params: RxStorageInstanceCreationParams<RxDocType, SqliteInstanceOptions>,
    ): Promise<SqliteStorageInstance<RxDocType>> {
      ensureRxStorageInstanceParamsAreCorrect(params);
      const connection = acquireConnection(filePath, options.nativeBinding);
      try {
        const table = openTable<RxDocType>(
          connection,
          params.databaseName,
          params.collectionName,
          params.schema,
          parseTextPaths(params.options?.textColumns),
          params.options?.projections,
          options.onRelayout,
        );
        return new SqliteStorageInstance<RxDocType>(
          storage,
          params.databaseName,
          params.collectionName,
          params.schema,
          params.options,
          connection,
          table,
          params.multiInstance,
        );
      } catch (err) {
        connection.release();
        throw err;
      }
    },
  };
  return storage;
}
