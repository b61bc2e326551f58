import { randomBytes } from 'node:crypto';

/**
 * Identifier source. Tokens look like the reference API's (upper-case letters and digits) and are
 * random in production; tests inject a sequential source so ids are predictable.
 */
export interface Ids {
  /** A public token such as a transaction, order, wallet or fund token. */
  token(): string;
  /** A secret of the given byte length, hex encoded (API keys, signing keys). */
  secret(bytes?: number): string;
}

const ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'; // no I or O: tokens are read aloud and typed

export const randomIds: Ids = {
  token() {
    const bytes = randomBytes(16);
    let out = '';
    for (let i = 0; i < 16; i++) out += ALPHABET[(bytes[i] ?? 0) % ALPHABET.length];
    return out;
  },
  secret(bytes = 32) {
    return randomBytes(bytes).toString('hex');
  },
};

/**
 * Predictable tokens for tests (T000000000000001, T000000000000002, ...). Secrets stay random even
 * here: two installs must never share a signing key.
 */
export function sequentialIds(prefix = 'T'): Ids {
  let n = 0;
  return {
    token() {
      n += 1;
      return `${prefix}${String(n).padStart(15, '0')}`;
    },
    secret: randomIds.secret,
  };
}
