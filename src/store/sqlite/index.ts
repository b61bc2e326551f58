export { getRxStorageSqlite, DEFAULT_FILE_NAME } from './storage';
export { commitAtomically } from './commit-atomically';
export { SqliteStorageInstance } from './storage-instance';
export type {
  AtomicCommitFailure,
  AtomicCommitResult,
  AtomicWrite,
  RxStorageSqlite,
  SqliteInstanceOptions,
  SqliteInternals,
  SqliteStorageOptions,
} from './types';
