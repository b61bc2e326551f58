import { chmodSync, closeSync, existsSync, lstatSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data folder holds payment records: only the account that runs Laneway may read it. The
 * folder 0700 and what Laneway keeps in it (`ours`: the database and its WAL/SHM, logs/, keys/)
 * 0700 for folders and 0600 for files, whatever the umask or an earlier version (0755/0644) made;
 * tightened in place on open. Other entries are left alone: a data folder pointed at a folder that
 * holds other things must not have them changed. Symbolic links are skipped (their target is not
 * ours). Windows has no mode bits: its per-user profile folder's ACL does this.
 */
export function tightenDataFolder(dir: string, ours: readonly string[]): void {
  if (process.platform === 'win32' || !existsSync(dir)) return;
  chmodSync(dir, 0o700);
  for (const name of ours) tighten(join(dir, name));
}

function tighten(path: string): void {
  if (!existsSync(path)) return;
  const stat = lstatSync(path);
  if (stat.isDirectory()) {
    if ((stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
    for (const entry of readdirSync(path)) tighten(join(path, entry));
  } else if (stat.isFile() && (stat.mode & 0o077) !== 0) {
    chmodSync(path, 0o600);
  }
}

/**
 * Creates an empty file 0600 when it does not exist yet. SQLite gives a database's -wal and -shm
 * files the mode of the database file, so creating that one private makes them private too.
 */
export function createPrivateFile(path: string): void {
  if (existsSync(path)) return;
  closeSync(openSync(path, 'a', 0o600));
}
