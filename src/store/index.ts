import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RxStorage } from 'rxdb';
import { getRxStorageSqlite, commitAtomically } from './sqlite';
import { openStore, type AtomicCommit, type Store } from './database';
import type { RelayoutNotice } from './sqlite/types';
import { allCollections } from './registry';

export type { Store, StoreWrite, Raw } from './database';
export { stripMeta } from './database';
export type { StoredDoc, CollectionDef } from './schema';

export const DATA_FILE = 'laneway.sqlite';

export interface DataStore extends Store {
  readonly directory: string;
  /** Bytes on disk: the SQLite file and its WAL. */
  sizeBytes(): number;
}

/** Opens (creating when new) the data folder's one SQLite file with every collection. */
export async function openDataStore(options: { directory: string; nativeBinding?: string; onRelayout?: (notice: RelayoutNotice) => void }): Promise<DataStore> {
  mkdirSync(options.directory, { recursive: true });
  const storage = getRxStorageSqlite({
    directory: options.directory,
    fileName: DATA_FILE,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    ...(options.onRelayout ? { onRelayout: options.onRelayout } : {}),
  }) as unknown as RxStorage<unknown, unknown>;
  const store = await openStore({
    storage,
    collections: allCollections,
    commitAtomically: commitAtomically as unknown as AtomicCommit,
  });
  return {
    ...store,
    directory: options.directory,
    sizeBytes() {
      let total = 0;
      for (const suffix of ['', '-wal']) {
        const file = join(options.directory, DATA_FILE + suffix);
        if (existsSync(file)) total += statSync(file).size;
      }
      return total;
    },
  };
}
