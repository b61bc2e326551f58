import { createHmac, randomBytes } from 'node:crypto';
import { accessSync, chmodSync, closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { homedir, platform } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * The install's secret keys, kept in a key file outside the data folder and never in the
 * database (issue 13): a copy of the SQLite file, a backup of the data folder, or a replica of the
 * records reveals no key, so none of its fingerprints, PIN hashes or API key hashes can be checked
 * offline, and no JWT can be forged from it. See docs/key-management.md.
 *
 * Three purposes, each rotated on its own:
 * - `jwt`: signs the JWTs of `GET /api/whoami`. One key; a rotation refuses every JWT signed
 *   before it (the point of rotating after a leak).
 * - `api_key_hash`: HMAC key of stored API key hashes. A credential records the id of the key its
 *   hash was made with; the previous keys are kept until no enabled credential needs them, and a
 *   credential is re-hashed under the current key the first time it signs in after a rotation.
 * - `vault`: keys the fingerprints of card, bank and gift card numbers and peppers gift card PIN
 *   hashes. New fingerprints use the current key; gift cards are still found under a previous key
 *   (and moved to the current one when found), so previous vault keys are kept.
 * - `cashier_code`: keys the hashes of the register's cashier codes (looked up by hash). A code is
 *   still found under a previous key; a code changed after a rotation is hashed under the new one.
 * - `settings_secret`: encrypts secrets the account settings must be able to use again (the
 *   webhook signing key, the SMTP relay's password). A sealed value records its key's id, so
 *   previous keys are kept; a key file made before this purpose existed gets one on open.
 */
export type KeyPurpose = 'jwt' | 'api_key_hash' | 'vault' | 'cashier_code' | 'settings_secret';
export const KEY_PURPOSES: readonly KeyPurpose[] = ['jwt', 'api_key_hash', 'vault', 'cashier_code', 'settings_secret'];
/** Purposes added after the first key files: created on open when a file lacks them. */
const LATER_PURPOSES: readonly KeyPurpose[] = ['settings_secret'];

export interface InstallKey {
  id: string;
  /** 32 random bytes, hex. */
  secret: string;
  created_at: string;
  /** An earlier version used this key's hex text itself as the HMAC key (the register's). */
  text_key?: true;
}

/** The bytes an install key keys its HMACs with. */
export function keyBytes(key: InstallKey): Buffer {
  return key.text_key ? Buffer.from(key.secret, 'utf8') : Buffer.from(key.secret, 'hex');
}

interface KeyChain {
  current: InstallKey;
  previous: InstallKey[];
}

export interface KeyFileData {
  format: typeof KEY_FILE_FORMAT;
  jwt: KeyChain;
  api_key_hash: KeyChain;
  vault: KeyChain;
  cashier_code: KeyChain;
  settings_secret: KeyChain;
}

/** How a key file's contents are sealed at rest, when they are (the desktop's OS keychain). */
export interface KeyProtector {
  /** Written into the file so another opener knows what unseals it, e.g. `electron-safe-storage`. */
  readonly name: string;
  seal(plain: Buffer): Buffer;
  unseal(sealed: Buffer): Buffer;
}

interface SealedFile {
  format: typeof SEALED_FORMAT;
  protector: string;
  sealed: string;
}

const KEY_FILE_FORMAT = 'laneway-keys/1';
const SEALED_FORMAT = 'laneway-keys-sealed/1';
/** The id of a key moved out of the database of an earlier version. */
export const LEGACY_KEY_ID = 'legacy';
/** Where earlier versions kept the key file, inside the data folder: moved out when found. */
export const KEYS_FOLDER = 'keys';
export const KEY_FILE_NAME = 'install-keys.json';
/** Names the key file itself (another volume, a mount left out of backups). */
export const KEY_FILE_ENV = 'LANEWAY_KEY_FILE';
/** The folder key files are kept in by default (defaultKeysHome). */
export const KEYS_HOME_ENV = 'LANEWAY_KEYS_HOME';
/** The data folder's install id (not secret): its key file's name in the keys folder. */
export const INSTALL_ID_FILE = 'install-id';

/**
 * The per-user folder key files live in by default, apart from every data folder, so a copy, a
 * backup or a support bundle of a data folder carries no key. On Windows it is the local (not
 * roaming) profile, so keys do not follow a roaming data folder either.
 */
export function defaultKeysHome(): string {
  const named = process.env[KEYS_HOME_ENV];
  if (named) return named;
  const home = homedir();
  switch (platform()) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Laneway Keys');
    case 'win32':
      return join(process.env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Laneway', 'keys');
    default:
      return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'laneway', 'keys');
  }
}

const legacyKeyFile = (dataDir: string) => join(dataDir, KEYS_FOLDER, KEY_FILE_NAME);

function readInstallId(dataDir: string): string | undefined {
  const path = join(dataDir, INSTALL_ID_FILE);
  if (!existsSync(path)) return undefined;
  const id = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-f]{32}$/.test(id)) throw new KeyFileError(`${path} is not a Laneway install id`, 'key_file_unreadable');
  return id;
}

/**
 * Where an install's key file is: the path given, `LANEWAY_KEY_FILE`, else
 * `<keys home>/<install id>.json`. Where the keys home cannot be written (a locked-down account)
 * it stays where an earlier version kept it, `<data folder>/keys/install-keys.json`, which is also
 * the answer for a data folder without an install id yet.
 */
export function keyFilePath(dataDir: string, explicit?: string): string {
  const named = explicit ?? process.env[KEY_FILE_ENV];
  if (named) return named;
  const id = readInstallId(dataDir);
  const legacy = legacyKeyFile(dataDir);
  if (!id) return legacy;
  const home = join(defaultKeysHome(), `${id}.json`);
  return !existsSync(home) && existsSync(legacy) ? legacy : home;
}

/** Whether the keys home can hold a key file (made 0700 when missing). */
function keysHomeWritable(): boolean {
  try {
    mkdirSync(defaultKeysHome(), { recursive: true, mode: 0o700 });
    accessSync(defaultKeysHome(), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The key file's path for an open: the data folder gets an install id when it has none (a new
 * install, or one whose key file an earlier version kept inside it, or one that may not make keys:
 * then the error names the keys folder). A key file found inside the data folder is moved out to
 * the keys home; where that cannot be written, a new key file is made inside the data folder as
 * before, and moved out at an open that can.
 */
function keyFileForOpen(options: OpenKeysOptions): string {
  const named = options.keyFile ?? process.env[KEY_FILE_ENV];
  if (named) return named;
  const legacy = legacyKeyFile(options.dataDir);
  let id = readInstallId(options.dataDir);
  if (!id) {
    if (!existsSync(legacy) && options.mayCreate === false) return join(defaultKeysHome(), '<install id>.json');
    id = randomBytes(16).toString('hex');
    writeDurably(join(options.dataDir, INSTALL_ID_FILE), Buffer.from(`${id}\n`));
  }
  const path = join(defaultKeysHome(), `${id}.json`);
  if (existsSync(path)) {
    // A move cut short after the copy was written: the copy inside goes.
    if (existsSync(legacy)) removeLegacy(legacy);
    return path;
  }
  if (!keysHomeWritable()) return existsSync(legacy) || options.mayCreate !== false ? legacy : path;
  if (existsSync(legacy)) {
    // Written and synced at its new place before the old one goes: a crash between leaves both,
    // and the next open removes the old copy.
    writeDurably(path, readFileSync(legacy));
    removeLegacy(legacy);
  }
  return path;
}

function removeLegacy(legacy: string): void {
  unlinkSync(legacy);
  try {
    rmdirSync(dirname(legacy));
  } catch {
    // Something else is in it: the operator's, left as it is.
  }
}

export class KeyFileError extends Error {
  constructor(
    message: string,
    readonly code: 'key_file_missing' | 'key_file_unreadable' | 'key_file_sealed',
  ) {
    super(message);
    this.name = 'KeyFileError';
  }
}

export interface InstallKeys {
  readonly path: string;
  /** The current key of a purpose (what new hashes, fingerprints and JWTs use). */
  current(purpose: KeyPurpose): InstallKey;
  /** A key by id, current or previous. */
  find(purpose: KeyPurpose, id: string): InstallKey | undefined;
  /** Every key kept for a purpose, current first. */
  all(purpose: KeyPurpose): InstallKey[];
  /** Makes a new current key for each purpose named; see the module comment for what each keeps. */
  rotate(purposes: readonly KeyPurpose[]): Array<{ purpose: KeyPurpose; id: string; previous: string[] }>;
  /** Forgets previous keys of a purpose that nothing needs any longer. */
  dropPrevious(purpose: KeyPurpose, keep: (id: string) => boolean): string[];
  /** Keeps a key taken from the database of an earlier version as a previous key (once). */
  adoptLegacy(purpose: Exclude<KeyPurpose, 'jwt'>, secret: string, options?: { textKey?: boolean }): void;
  /** True when the file was created by this open (a new install, or an upgrade from keys in the database). */
  readonly created: boolean;
}

const newKey = (id: string, now: Date): InstallKey => ({ id, secret: randomBytes(32).toString('hex'), created_at: now.toISOString() });

/** Key ids are short and ordered: k1, k2, ... per purpose. */
function nextId(chain: KeyChain): string {
  const used = [chain.current, ...chain.previous].map((k) => Number(/^k(\d+)$/.exec(k.id)?.[1] ?? 0));
  return `k${Math.max(0, ...used) + 1}`;
}

function freshData(now: Date): KeyFileData {
  return {
    format: KEY_FILE_FORMAT,
    jwt: { current: newKey('k1', now), previous: [] },
    api_key_hash: { current: newKey('k1', now), previous: [] },
    vault: { current: newKey('k1', now), previous: [] },
    cashier_code: { current: newKey('k1', now), previous: [] },
    settings_secret: { current: newKey('k1', now), previous: [] },
  };
}

/**
 * The key file 0600 and, when it is in the keys home (or an earlier version's `keys/`), that
 * folder 0700, whatever the umask made. A folder named by LANEWAY_KEY_FILE is the operator's: it is created 0700 when it does
 * not exist, and otherwise left as it is.
 */
function tighten(path: string): void {
  if (process.platform === 'win32') return;
  const folder = dirname(path);
  if (folder === defaultKeysHome() || (basename(folder) === KEYS_FOLDER && basename(path) === KEY_FILE_NAME)) chmodSync(folder, 0o700);
  if (existsSync(path)) chmodSync(path, 0o600);
}

/** Replaces the file atomically (write a 0600 temporary beside it, fsync, rename). */
function writeKeyFile(path: string, data: KeyFileData, protector: KeyProtector | undefined): void {
  const plain = Buffer.from(JSON.stringify(data, null, 2) + '\n');
  const body = protector
    ? Buffer.from(JSON.stringify({ format: SEALED_FORMAT, protector: protector.name, sealed: protector.seal(plain).toString('base64') } satisfies SealedFile) + '\n')
    : plain;
  writeDurably(path, body);
}

/** A 0600 file written atomically and durably (a temporary beside it, fsync, rename, fsync of the folder). */
function writeDurably(path: string, body: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, body);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename is durable only once the folder's entry is.
  if (process.platform !== 'win32') {
    const dir = openSync(dirname(path), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
  tighten(path);
}

/** Key files read that lacked a later purpose (and must be written back with it). */
const upgraded = new Set<string>();

function readKeyFile(path: string, protector: KeyProtector | undefined): KeyFileData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new KeyFileError(`The key file ${path} cannot be read (${err instanceof Error ? err.message : String(err)})`, 'key_file_unreadable');
  }
  const sealed = parsed as Partial<SealedFile>;
  if (sealed.format === SEALED_FORMAT) {
    if (!protector || protector.name !== sealed.protector) {
      throw new KeyFileError(`The key file ${path} is sealed by ${String(sealed.protector)}: open this data folder with the desktop app that sealed it`, 'key_file_sealed');
    }
    try {
      parsed = JSON.parse(protector.unseal(Buffer.from(String(sealed.sealed), 'base64')).toString('utf8'));
    } catch (err) {
      throw new KeyFileError(`The key file ${path} could not be unsealed (${err instanceof Error ? err.message : String(err)})`, 'key_file_unreadable');
    }
  }
  const data = parsed as Partial<KeyFileData>;
  for (const purpose of LATER_PURPOSES) {
    if (data[purpose]) continue;
    data[purpose] = { current: newKey('k1', new Date()), previous: [] };
    upgraded.add(path);
  }
  const chainOk = (c: KeyChain | undefined) => !!c && typeof c.current?.secret === 'string' && /^[0-9a-f]{64}$/.test(c.current.secret) && Array.isArray(c.previous);
  if (data.format !== KEY_FILE_FORMAT || !KEY_PURPOSES.every((p) => chainOk(data[p]))) {
    throw new KeyFileError(`The key file ${path} is not a Laneway key file (${KEY_FILE_FORMAT})`, 'key_file_unreadable');
  }
  return data as KeyFileData;
}

export interface OpenKeysOptions {
  dataDir: string;
  /** Default keyFilePath(dataDir). */
  keyFile?: string;
  /** Seals the file (the desktop's OS keychain). A plain file found is sealed on open. */
  protector?: KeyProtector;
  /**
   * Whether a missing key file may be created. False for a data folder that already holds an
   * install whose keys are not in its database (an upgraded install whose key file was lost or
   * left behind): new keys would silently orphan every credential and gift card.
   */
  mayCreate?: boolean;
  now?: Date;
}

/** Opens (or, for a new install, creates) the install's key file. */
export function openInstallKeys(options: OpenKeysOptions): InstallKeys {
  const path = keyFileForOpen(options);
  const now = () => options.now ?? new Date();
  let created = false;
  let data: KeyFileData;
  if (existsSync(path)) {
    tighten(path);
    data = readKeyFile(path, options.protector);
    const wasSealed = (JSON.parse(readFileSync(path, 'utf8')) as { format?: string }).format === SEALED_FORMAT;
    const lacked = upgraded.delete(path);
    if ((options.protector && !wasSealed) || lacked) writeKeyFile(path, data, options.protector);
  } else {
    if (options.mayCreate === false) {
      throw new KeyFileError(
        `This data folder's key file ${path} is missing. Restore it from where the folder came from (or set ${KEY_FILE_ENV} to where it is): without it no credential, JWT or gift card of this install can be checked.`,
        'key_file_missing',
      );
    }
    data = freshData(now());
    writeKeyFile(path, data, options.protector);
    created = true;
  }
  const save = () => writeKeyFile(path, data, options.protector);

  return {
    path,
    created,
    current: (purpose) => data[purpose].current,
    find: (purpose, id) => [data[purpose].current, ...data[purpose].previous].find((k) => k.id === id),
    all: (purpose) => [data[purpose].current, ...data[purpose].previous],
    rotate(purposes) {
      const out: Array<{ purpose: KeyPurpose; id: string; previous: string[] }> = [];
      for (const purpose of new Set(purposes)) {
        const chain = data[purpose];
        const fresh = newKey(nextId(chain), now());
        // A JWT key is never kept: JWTs signed before a rotation are refused.
        const previous = purpose === 'jwt' ? [] : [chain.current, ...chain.previous];
        data = { ...data, [purpose]: { current: fresh, previous } };
        out.push({ purpose, id: fresh.id, previous: previous.map((k) => k.id) });
      }
      save();
      return out;
    },
    dropPrevious(purpose, keep) {
      const chain = data[purpose];
      const dropped = chain.previous.filter((k) => !keep(k.id)).map((k) => k.id);
      if (dropped.length === 0) return [];
      data = { ...data, [purpose]: { current: chain.current, previous: chain.previous.filter((k) => keep(k.id)) } };
      save();
      return dropped;
    },
    adoptLegacy(purpose, secret, adopt = {}) {
      const chain = data[purpose];
      if ([chain.current, ...chain.previous].some((k) => k.secret === secret)) return;
      const legacy: InstallKey = { id: LEGACY_KEY_ID, secret, created_at: now().toISOString(), ...(adopt.textKey ? { text_key: true as const } : {}) };
      data = { ...data, [purpose]: { current: chain.current, previous: [...chain.previous.filter((k) => k.id !== LEGACY_KEY_ID), legacy] } };
      save();
    },
  };
}

/**
 * Rotates keys of a data folder whose engine is not running (the admin CLI; a running engine
 * rotates through `engine.keys.rotate`, which also updates what it holds in memory).
 */
export function rotateInstallKeys(options: { dataDir: string; keyFile?: string; protector?: KeyProtector; purposes: readonly KeyPurpose[] }) {
  const keys = openInstallKeys({ ...options, mayCreate: false });
  return keys.rotate(options.purposes);
}

/** HMAC-SHA256 under an install key, hex, truncated to `chars`. */
export function keyedHash(key: InstallKey, value: string, chars = 64): string {
  return createHmac('sha256', keyBytes(key)).update(value).digest('hex').slice(0, chars);
}
