import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'laneway.lock';

/** What the lock file says about the process holding the data folder. */
export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
  /** Linux: the process's start time in clock ticks since boot, so a reused pid is not taken for it. */
  proc_start: string | null;
  /** serve, desktop, admin. */
  program: string;
}

export class FolderLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly holder: LockHolder,
  ) {
    const where = holder.host === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on ${holder.host}`;
    super(
      `The data folder ${directory} is in use by ${where} (Laneway ${holder.program}, started ${holder.started_at}). ` +
        `Stop that one first, or give this one another --data-dir. If no such process runs, delete ${join(directory, LOCK_FILE)}.`,
    );
    this.name = 'FolderLockedError';
  }
}

export interface FolderLock {
  readonly path: string;
  release(): void;
}

function procStart(pid: number | 'self'): string | null {
  try {
    // Field 22 of /proc/PID/stat; the name (field 2) may hold spaces, so count from its ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the process that wrote `holder` still runs (another host's cannot be checked: assume so). */
function alive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) {
    // Our pid: this process (it cannot lock twice), or one before a reboot or in another container.
    if (holder.proc_start !== null) return procStart('self') === holder.proc_start;
    return Date.parse(holder.started_at) >= Date.now() - process.uptime() * 1000 - 1000;
  }
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.proc_start === null) return true;
  const now = procStart(holder.pid);
  return now === null || now === holder.proc_start;
}

function readHolder(path: string): { raw: string; holder: LockHolder | null } | null {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed = JSON.parse(raw) as LockHolder;
    return { raw, holder: Number.isInteger(parsed.pid) ? parsed : null };
  } catch {
    return { raw, holder: null }; // half-written by a process that died while writing it
  }
}

/**
 * One process at a time per data folder: the lock file is created with O_EXCL and holds the pid;
 * a lock whose process is gone (crash, kill -9, power loss) is taken over. Released on stop and,
 * failing that, when the process exits.
 */
export function lockDataFolder(directory: string, program: string): FolderLock {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), proc_start: procStart('self'), program };
  const mine = JSON.stringify(me);
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, mine);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const found = readHolder(path);
      if (!found) continue; // released meanwhile
      if (found.holder && alive(found.holder)) throw new FolderLockedError(directory, found.holder);
      // Stale. Remove it only if it is still the same stale lock (another starter may have taken
      // it over meanwhile), then try again.
      if (readHolder(path)?.raw === found.raw) {
        try {
          unlinkSync(path);
        } catch {
          // someone else removed it first
        }
      }
      continue;
    }
    // Two starters breaking the same stale lock: only one file survives; make sure it is ours.
    const check = readHolder(path);
    if (check?.raw !== mine) {
      if (check?.holder) throw new FolderLockedError(directory, check.holder);
      continue;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.removeListener('exit', release);
      if (readHolder(path)?.raw === mine) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
    };
    process.on('exit', release);
    return { path, release };
  }
  throw new Error(`Could not lock the data folder ${directory}: ${path} keeps changing`);
}
