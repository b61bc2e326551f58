import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { fail } from '../errors';
import type { VaultKeys } from '../wallets/secrets';

/**
 * An approved application's API key, from its approval until the partner's first status read:
 * sealed (AES-256-GCM) under a key derived from the install's vault key, which lives in the key
 * file, never in the database. The application token is the associated data, so a sealed key
 * copied onto another application does not open.
 */
export interface SealedKey {
  key_id: string;
  iv: string;
  data: string;
  tag: string;
}

const INFO = 'laneway onboarding api key delivery';

function aesKey(vault: VaultKeys, id: string): Buffer {
  const base = vault.key(id);
  if (!base) throw fail.internal('sealing_key_missing', 'The key that sealed these credentials is no longer kept');
  return Buffer.from(hkdfSync('sha256', base, Buffer.alloc(0), INFO, 32));
}

export function sealKey(vault: VaultKeys, clear: string, applicationToken: string): SealedKey {
  const keyId = vault.currentId();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(vault, keyId), iv);
  cipher.setAAD(Buffer.from(applicationToken));
  const data = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
  return { key_id: keyId, iv: iv.toString('base64'), data: data.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

export function openKey(vault: VaultKeys, sealed: SealedKey, applicationToken: string): string {
  const decipher = createDecipheriv('aes-256-gcm', aesKey(vault, sealed.key_id), Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(applicationToken));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
}
