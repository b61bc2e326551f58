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

export const TOKEN_ALPHABET = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ'; // no I or O: tokens are read aloud and typed

/** Random bytes drawn 4 KiB at a time (one call per ~250 tokens: a file import makes one per invoice). */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

function pooledBytes(n: number): Buffer {
  if (used + n > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, n));
    used = 0;
  }
  const out = Buffer.from(pool.subarray(used, used + n));
  // Each byte serves one draw only.
  pool.fill(0, used, used + n);
  used += n;
  return out;
}

/**
 * `length` characters drawn uniformly from `alphabet` (at most 256 letters). A byte taken modulo
 * the alphabet's size favours the first `256 % size` letters (for 34, eighteen letters come 8/7 as
 * often as the others), so bytes at or above the largest multiple of the size are thrown away and
 * drawn again (rejection sampling).
 */
export function randomString(alphabet: string, length: number, bytes: (n: number) => Buffer = pooledBytes): string {
  const size = alphabet.length;
  if (size < 2 || size > 256) throw new Error('randomString: the alphabet must hold 2 to 256 letters');
  const limit = 256 - (256 % size);
  let out = '';
  while (out.length < length) {
    // Enough bytes for what is left, plus a few for the rejected ones.
    const batch = bytes(length - out.length + 4);
    for (const b of batch) {
      if (b >= limit) continue;
      out += alphabet[b % size];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * A token of the reference's twelve letters and digits, `prefix` included (a fund's `CC`/`BA`): the
 * ecommerce reference's WalletID and FundToken are `^[0-9A-Z]{12}$`, and a client generated from it
 * refuses a longer one. The last letters of a token: random in production (34^10 and more), unique
 * in tests.
 */
export const referenceToken = (ids: Ids, prefix = ''): string => `${prefix}${ids.token().slice(-(12 - prefix.length))}`;

export const randomIds: Ids = {
  token() {
    return randomString(TOKEN_ALPHABET, 16);
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
