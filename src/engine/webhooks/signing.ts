import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { InstallKeys } from '../security/install-keys';
import { keyBytes } from '../security/install-keys';
import { fail } from '../errors';

/**
 * `X-Service-Signature`, as the spec's three steps compute it: HMAC-SHA256 of the exact body
 * bytes keyed with the signing key's text, Base64 with the line feed the reference implementation
 * appends, then URL-encoded. docs/webhooks.md has the receiver's side.
 */
export function signatureOf(signingKey: string, body: Buffer | string): string {
  const digest = createHmac('sha256', Buffer.from(signingKey, 'utf8')).update(body).digest('base64');
  return encodeURIComponent(`${digest}\n`);
}

/** A new signing key: 32 random bytes, Base64url, with a prefix that says what it is when found in a paste. */
export function newSigningKey(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** A secret sealed under an install key (AES-256-GCM): never at rest beside the key that opens it. */
export interface SealedSecret {
  /** The install key (purpose `settings_secret`) it was sealed with. */
  key_id: string;
  /** Base64 of iv (12) | tag (16) | ciphertext. */
  sealed: string;
}

const AAD = Buffer.from('laneway-settings-secret/1');

export function sealSecret(keys: InstallKeys, plain: string): SealedSecret {
  const key = keys.current('settings_secret');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  cipher.setAAD(AAD);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return { key_id: key.id, sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64') };
}

export function openSecret(keys: InstallKeys, secret: SealedSecret): string {
  const key = keys.find('settings_secret', secret.key_id);
  if (!key) throw fail.internal('settings_key_missing', `The install key ${secret.key_id} that sealed a settings secret is gone: set the secret again`);
  const raw = Buffer.from(secret.sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), raw.subarray(0, 12));
  decipher.setAAD(AAD);
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
