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

/** Random bytes drawn 4 KiB at a time (one call per 256 tokens: a file import makes one per invoice). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

export const randomIds: Ids = {
  token() {
    if (used + 16 > pool.length) {
      pool = randomBytes(POOL_BYTES);
      used = 0;
    }
    let out = '';
    for (let i = 0; i < 16; i++) out += ALPHABET[(pool[used + i] ?? 0) % ALPHABET.length];
    // Each byte serves one token only.
    pool.fill(0, used, used + 16);
    used += 16;
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
