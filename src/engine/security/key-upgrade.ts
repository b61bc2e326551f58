import type { EngineCore } from '../core';
import { getRecord, putRecord, recordId } from '../records';
import { ACCOUNT_KEY } from '../account';
import { openInstallKeys, type InstallKeys, type KeyProtector } from './install-keys';

/**
 * Where an earlier version kept its keys: `secret` records in the database itself, beside what
 * they protect. Each field names the key file purpose it moves to; the JWT secret is not moved but
 * replaced, since a copy of the old database could sign JWTs with it (screens sign in again).
 */
const LEGACY_RECORDS = [
  { key: 'install', fields: { hmac_key: 'api_key_hash', jwt_key: null } },
  { key: 'vault', fields: { fingerprint_key: 'vault' } },
  // The register used the key's hex text itself as its HMAC key.
  { key: 'register', fields: { key: 'cashier_code' } },
] as const;

export interface EngineKeysOptions {
  /** Keys opened by the caller (tests); otherwise the key file of the store's data folder. */
  keys?: InstallKeys;
  keyFile?: string;
  protector?: KeyProtector;
}

export interface ScrubbableStore {
  directory?: string;
  scrub?(needles: readonly string[]): Promise<{ vacuumed: boolean }>;
}

/**
 * Opens the install's keys for the engine and upgrades an earlier layout in place: keys found in
 * the database go to the key file (as previous keys, so existing credentials, fingerprints, gift
 * cards and cashier codes keep working, and are moved to new keys as they are used), then are
 * deleted from the database and scrubbed from the file's bytes.
 */
export async function openEngineKeys(core: EngineCore, store: ScrubbableStore, options: EngineKeysOptions = {}): Promise<InstallKeys> {
  const legacy: Array<{ key: string; data: Record<string, unknown> }> = [];
  for (const { key } of LEGACY_RECORDS) {
    const found = await getRecord<Record<string, unknown>>(core, 'secret', key);
    if (found) legacy.push({ key, data: found.data });
  }
  let keys = options.keys;
  if (!keys) {
    if (!store.directory) throw new Error('The engine needs its keys: a data folder (store.directory) or options.keys');
    const existingInstall = (await getRecord(core, 'account', ACCOUNT_KEY)) !== undefined;
    keys = openInstallKeys({
      dataDir: store.directory,
      ...(options.keyFile ? { keyFile: options.keyFile } : {}),
      ...(options.protector ? { protector: options.protector } : {}),
      mayCreate: !existingInstall || legacy.length > 0,
      now: new Date(core.clock.now()),
    });
  }
  if (legacy.length === 0) return keys;

  const needles: string[] = [];
  for (const { key, data } of legacy) {
    const spec = LEGACY_RECORDS.find((r) => r.key === key)!;
    for (const [field, purpose] of Object.entries(spec.fields)) {
      const secret = data[field];
      if (typeof secret !== 'string' || secret === '') continue;
      needles.push(secret);
      if (purpose) keys.adoptLegacy(purpose, secret, key === 'register' ? { textKey: true } : {});
    }
  }
  // The key file is durable before anything leaves the database: a crash in between finds the
  // keys in both places and finishes here next time.
  await core.mutate(async (tx) => {
    for (const { key } of legacy) {
      // Emptied first, so the tombstone RxDB keeps holds no key.
      await putRecord(tx, 'secret', key, {}, { type: 'secret.moved', entity: 'secret', key });
      await tx.remove('records', recordId('secret', key), { type: 'secret.moved', entity: 'secret', key });
    }
  });
  const scrubbed = (await store.scrub?.(needles)) ?? { vacuumed: false };
  core.logger.info({ keyFile: keys.path, moved: legacy.map((l) => l.key), vacuumed: scrubbed.vacuumed }, 'install keys moved out of the database into the key file');
  return keys;
}
