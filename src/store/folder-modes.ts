import { chmodSync, closeSync, existsSync, lstatSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data folder holds payment records: only the account that runs Laneway may read it. Folders
 * 0700, files 0600, whatever the umask or an earlier version (0755/0644) made; a folder of an
 * earlier version is tightened in place on open. Symbolic links are left alone (their target is
 * not ours to change). Windows has no mode bits: its per-user profile folder's ACL does this.
 */
export function tightenFolder(dir: string): void {
  if (process.platform === 'win32' || !existsSync(dir)) return;
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tightenFolder(path);
    else if (entry.isFile() && (lstatSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
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
