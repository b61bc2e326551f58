import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RxStorage } from 'rxdb';
import { getRxStorageSqlite, commitAtomically } from './sqlite';
import { openStore, type AtomicCommit, type Store } from './database';
import type { RelayoutNotice } from './sqlite/types';
import { allCollections } from './collection-registry';
import { withLayouts, type StoreLayouts } from './schema';
import { acquireConnection } from './sqlite/connection';
import { createPrivateFile, tightenDataFolder } from './folder-modes';

export type { Store, StoreWrite, Raw } from './database';
export { stripMeta } from './database';
export type { StoredDoc, CollectionDef, CollectionLayout, StoreLayouts } from './schema';

export const DATA_FILE = 'laneway.sqlite';

export interface DataStore extends Store {
  readonly directory: string;
  /** Bytes on disk: the SQLite file and its WAL. */
  sizeBytes(): number;
  /**
   * Makes sure values deleted from the store (keys an earlier version kept in it) are gone from
   * the file's bytes: checkpoints the WAL into the file and truncates it, then, if any of
   * `needles` is still found in the file (in a page freed before deleted content was zeroed),
   * rebuilds the file with VACUUM. Run once, at start, before the store is in use.
   */
  scrub(needles: readonly string[]): Promise<{ vacuumed: boolean }>;
}

/**
 * Opens (creating when new) the data folder's one SQLite file with every collection, laid out as
 * `layouts` says (the engine's `storeLayouts`). Required: a store opened without a collection's
 * layout would move its rows back into the document JSON (the SQLite storage relays rows out on open).
 */
export async function openDataStore(options: { directory: string; layouts: StoreLayouts; nativeBinding?: string; onRelayout?: (notice: RelayoutNotice) => void }): Promise<DataStore> {
  mkdirSync(options.directory, { recursive: true, mode: 0o700 });
  tightenDataFolder(options.directory, [DATA_FILE, `${DATA_FILE}-wal`, `${DATA_FILE}-shm`, `${DATA_FILE}-journal`, 'logs', 'keys']);
  createPrivateFile(join(options.directory, DATA_FILE));
  const storage = getRxStorageSqlite({
    directory: options.directory,
    fileName: DATA_FILE,
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
    ...(options.onRelayout ? { onRelayout: options.onRelayout } : {}),
  }) as unknown as RxStorage<unknown, unknown>;
  const store = await openStore({
    storage,
    collections: withLayouts(allCollections, options.layouts),
    commitAtomically: commitAtomically as unknown as AtomicCommit,
  });
  const file = join(options.directory, DATA_FILE);
  const fileHolds = (needles: readonly string[]) => {
    if (needles.length === 0) return false;
    for (const suffix of ['', '-wal']) {
      if (!existsSync(file + suffix)) continue;
      const bytes = readFileSync(file + suffix);
      if (needles.some((n) => bytes.includes(n))) return true;
    }
    return false;
  };
  return {
    ...store,
    directory: options.directory,
    async scrub(needles) {
      const connection = acquireConnection(file, options.nativeBinding);
      try {
        await connection.drainWrites();
        connection.db.pragma('wal_checkpoint(TRUNCATE)');
        if (!fileHolds(needles)) return { vacuumed: false };
        connection.db.exec('VACUUM');
        connection.db.pragma('wal_checkpoint(TRUNCATE)');
        return { vacuumed: true };
      } finally {
        connection.release();
      }
    },
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
