import { createHmac } from 'node:crypto';
import type { InstallKey, InstallKeys } from '../security/install-keys';
import type { Keyer } from './instruments';

/**
 * The vault's keys: they key the fingerprints of card, bank account and gift card numbers (a keyed
 * hash recognises the same number again without the number ever being stored) and pepper gift
 * card PIN hashes. They live in the install's key file, never in the database, so a fingerprint
 * cannot be confirmed offline by enumerating the few candidates a BIN and last four leave.
 */
export interface VaultKeys {
  /** Fingerprint under the current key: what is written. */
  keyer: Keyer;
  currentId(): string;
  /** Fingerprints of a value under every vault key kept, current first (lookups across rotations). */
  fingerprints(value: string): Array<{ keyId: string; fingerprint: string }>;
  /** A vault key's bytes by id. */
  key(id: string): Buffer | undefined;
}

const FINGERPRINT_CHARS = 40;

export function vaultKeys(keys: InstallKeys): VaultKeys {
  const decoded = new Map<string, Buffer>();
  const bytes = (k: InstallKey) => {
    let b = decoded.get(`${k.id}:${k.secret}`);
    if (!b) decoded.set(`${k.id}:${k.secret}`, (b = Buffer.from(k.secret, 'hex')));
    return b;
  };
  const mac = (k: InstallKey, value: string) => createHmac('sha256', bytes(k)).update(value).digest('hex').slice(0, FINGERPRINT_CHARS);
  return {
    keyer: (value) => mac(keys.current('vault'), value),
    currentId: () => keys.current('vault').id,
    fingerprints: (value) => keys.all('vault').map((k) => ({ keyId: k.id, fingerprint: mac(k, value) })),
    key(id) {
      const k = keys.find('vault', id);
      return k ? bytes(k) : undefined;
    },
  };
}
