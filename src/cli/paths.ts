import { homedir, platform } from 'node:os';
import { join } from 'node:path';

/** The OS's per-user application-data folder for Laneway. */
export function defaultDataDir(): string {
  if (process.env.LANEWAY_DATA_DIR) return process.env.LANEWAY_DATA_DIR;
  const home = homedir();
  switch (platform()) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Laneway');
    case 'win32':
      return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Laneway');
    default:
      return join(process.env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'laneway');
  }
}

export const DEFAULT_PORT = 4747;
