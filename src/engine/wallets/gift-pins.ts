import { createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { VaultKeys } from './secrets';

/**
 * Gift card PINs are kept as `scrypt1$<vault key id>$<salt>$<hash>`: scrypt (a slow, memory-hard
 * KDF) of an HMAC of the card's token and the PIN under a vault key, with a random salt per card.
 * The salt makes two cards with the same PIN look unrelated; scrypt makes each guess cost ~16 MiB
 * and tens of milliseconds; the vault key (in the key file, not the database) means a copy of the
 * database alone cannot test a guess at all. PIN attempts on a card are also limited (gift-cards.ts).
 */
const PARAMS: ScryptOptions = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;
const PREFIX = 'scrypt1';

const derive = (input: Buffer, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) => scrypt(input, salt, KEY_LENGTH, PARAMS, (err, out) => (err ? reject(err) : resolve(out))));

const peppered = (pepper: Buffer, token: string, pin: string) => createHmac('sha256', pepper).update(`gift-pin:${token}:${pin}`).digest();

export async function hashPin(vault: VaultKeys, token: string, pin: string): Promise<string> {
  const id = vault.currentId();
  const salt = randomBytes(16);
  const out = await derive(peppered(vault.key(id)!, token, pin), salt);
  return `${PREFIX}$${id}$${salt.toString('base64url')}$${out.toString('base64url')}`;
}

/**
 * Whether `pin` is the card's PIN. `stale`: the hash is not under the current vault key or is an
 * earlier version's unsalted HMAC, so the caller re-hashes it now that it knows the PIN.
 */
export async function verifyPin(vault: VaultKeys, token: string, pin: string, stored: string): Promise<{ ok: boolean; stale: boolean }> {
  const parts = stored.split('$');
  if (parts[0] === PREFIX && parts.length === 4) {
    const [, id, salt, hash] = parts as [string, string, string, string];
    const pepper = vault.key(id);
    if (!pepper) return { ok: false, stale: false };
    const expected = Buffer.from(hash, 'base64url');
    const actual = await derive(peppered(pepper, token, pin), Buffer.from(salt, 'base64url'));
    const ok = expected.length === actual.length && timingSafeEqual(expected, actual);
    return { ok, stale: ok && id !== vault.currentId() };
  }
  // An earlier version's PIN hash: HMAC of the PIN alone under the vault key it kept in the database.
  const ok = vault.fingerprints(`gift-pin:${pin}`).some((f) => f.fingerprint === stored);
  return { ok, stale: ok };
}
