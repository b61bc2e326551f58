import type { EngineCore } from '../core';
import { getRecord, putRecord } from '../records';
import { makeKeyer, type Keyer } from './instruments';

interface VaultSecrets {
  fingerprint_key: string;
}

/**
 * The install's key for card, bank account and gift card fingerprints and gift card PINs: a keyed
 * hash recognises the same number again without the number ever being stored.
 */
export async function openVaultKeyer(core: EngineCore): Promise<Keyer> {
  let secrets = (await getRecord<VaultSecrets>(core, 'secret', 'vault'))?.data;
  if (!secrets) {
    const fresh: VaultSecrets = { fingerprint_key: core.ids.secret(32) };
    await core.mutate((tx) => putRecord(tx, 'secret', 'vault', fresh, { type: 'vault.created', entity: 'vault', key: 'vault' }));
    secrets = fresh;
  }
  return makeKeyer(secrets.fingerprint_key);
}
