import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { EngineCore, Tx } from '../core';
import { fail, notFound } from '../errors';
import { DAY_MS, realNow } from '../clock';
import { getRecord, putRecord, recordsOfKind } from '../records';
import { LEGACY_KEY_ID, type InstallKey, type InstallKeys } from '../security/install-keys';
import { DEFAULT_JWT_SCOPES, scopesOfClaim, scopesOfKind, type CredentialKind, type Principal, type Scope } from './scopes';

/**
 * API credentials: a public token (the Basic user name) and a secret key (the password). Only an
 * HMAC of the key is stored, under an install key kept outside the database (the key file, see
 * security/install-keys.ts); the key is shown once, when it is created. A JWT minted for a
 * credential carries its token, so disabling the credential stops its JWTs at once.
 */
export interface CredentialRecord {
  token: string;
  name: string;
  key_hash: string;
  /** The install key `key_hash` was made with; absent on credentials of an earlier version. */
  key_id?: string;
  created_at: string;
  disabled_at: string | null;
  /** What the credential is for (absent on credentials made before kinds existed: `api`). */
  kind?: CredentialKind;
  /** The hosted merchant account a `merchant` credential belongs to (see merchant-accounts.ts). */
  account?: string;
}

export interface CredentialView {
  token: string;
  name: string;
  created_at: string;
  disabled_at: string | null;
  enabled: boolean;
  kind: CredentialKind;
}

export type { Principal } from './scopes';

export interface CredentialInput {
  name?: string;
  token?: string;
  key?: string;
  kind?: CredentialKind;
  account?: string;
}

const TOKEN_RULE = /^[A-Za-z0-9_-]{8,64}$/;
export const JWT_DEFAULT_DAYS = 30;

export interface Credentials {
  create(input?: CredentialInput): Promise<{ token: string; key: string; name: string }>;
  /** create() inside a caller's unit of work (an approved application's merchant credentials). */
  createInTx(tx: Tx, input?: CredentialInput): Promise<{ token: string; key: string; name: string }>;
  disable(token: string): Promise<CredentialView>;
  list(): Promise<CredentialView[]>;
  verifyBasic(token: string, key: string): Principal | null;
  verifyJwt(jwt: string): Promise<Principal | null>;
  /**
   * A JWT for `credential`, valid `days` (1..365), holding `scopes` (default `api` only) and
   * expiring no later than `notAfter` (seconds since the epoch) when given.
   */
  /** `notBefore`: the issue time at least (seconds): a user's new session after a sign-out in the same second. */
  issueJwt(credential: string, days?: number, options?: { scopes?: readonly Scope[]; notAfter?: number; notBefore?: number; session?: string; minted?: boolean }): Promise<{ jwt: string; exp: number; scopes: readonly Scope[] }>;
  hasAny(): boolean;
  /** Ids of the API-key hash keys that enabled credentials still need (the rest may be dropped). */
  hashKeysInUse(): Set<string>;
}

export async function createCredentials(core: EngineCore, keys: InstallKeys): Promise<Credentials> {
  // Auth runs on every request: the enabled credentials live in memory, refreshed on each change.
  const cache = new Map<string, CredentialRecord>();
  for (const r of await recordsOfKind<CredentialRecord>(core, 'credential')) cache.set(r.key, r.data);

  // Decoded keys by id: keys rotate while the engine runs, so they are looked up, never captured.
  const decoded = new Map<string, Buffer>();
  const bytes = (k: InstallKey) => {
    let b = decoded.get(`${k.id}:${k.secret}`);
    if (!b) decoded.set(`${k.id}:${k.secret}`, (b = Buffer.from(k.secret, 'hex')));
    return b;
  };
  const jwtKey = () => new Uint8Array(bytes(keys.current('jwt')));
  const hashWith = (k: InstallKey, key: string) => createHmac('sha256', bytes(k)).update(key).digest();
  const hash = (key: string) => {
    const k = keys.current('api_key_hash');
    return { key_hash: hashWith(k, key).toString('hex'), key_id: k.id };
  };
  /** After a rotation, a credential's hash moves to the current key the first time its key is seen. */
  const rehashing = new Set<string>();
  const rehash = (token: string, key: string) => {
    if (rehashing.has(token)) return;
    rehashing.add(token);
    core
      .mutate(async (tx) => {
        const existing = await getRecord<CredentialRecord>(tx, 'credential', token);
        if (!existing) return undefined;
        const data: CredentialRecord = { ...existing.data, ...hash(key) };
        await putRecord(tx, 'credential', token, data, { type: 'credential.rehashed', entity: 'credential', key: token });
        return data;
      })
      .then((data) => {
        if (data) cache.set(token, data);
      })
      .catch((err: unknown) => core.logger.error({ err, token }, 'credential re-hash failed'))
      .finally(() => rehashing.delete(token));
  };
  const view = (r: CredentialRecord): CredentialView => ({
    token: r.token,
    name: r.name,
    created_at: r.created_at,
    disabled_at: r.disabled_at,
    enabled: r.disabled_at === null,
    kind: r.kind ?? 'api',
  });
  const owner = (r: CredentialRecord) => (r.account ? { account: r.account } : {});

  const createInTx: Credentials['createInTx'] = async (tx, input = {}) => {
    const token = input.token ?? core.ids.token();
    const key = input.key ?? core.ids.secret(24);
    if (!TOKEN_RULE.test(token)) throw fail.invalid('invalid_token', 'API token must be 8 to 64 letters, digits, - or _');
    if (key.length < 8) throw fail.invalid('invalid_key', 'API key must be at least 8 characters');
    const name = input.name ?? 'API credential';
    if (await getRecord(tx, 'credential', token)) throw fail.conflict('credential_exists', `credential ${token} already exists`);
    const data: CredentialRecord = {
      token,
      name,
      ...hash(key),
      created_at: tx.at,
      disabled_at: null,
      ...(input.kind && input.kind !== 'api' ? { kind: input.kind } : {}),
      ...(input.account ? { account: input.account } : {}),
    };
    await putRecord(tx, 'credential', token, data, { type: 'credential.created', entity: 'credential', key: token });
    tx.afterCommit(() => cache.set(token, data));
    return { token, key, name };
  };

  return {
    async create(input = {}) {
      const made = await core.mutate((tx) => createInTx(tx, input));
      return made;
    },
    createInTx,
    async disable(token) {
      const record = await core.mutate(async (tx) => {
        const existing = await getRecord<CredentialRecord>(tx, 'credential', token);
        if (!existing) throw notFound('credential_not_found', `no credential ${token}`);
        if (existing.data.disabled_at) return existing.data;
        const data = { ...existing.data, disabled_at: tx.at };
        await putRecord(tx, 'credential', token, data, { type: 'credential.disabled', entity: 'credential', key: token });
        return data;
      });
      cache.set(token, record);
      return view(record);
    },
    async list() {
      return [...cache.values()].map(view);
    },
    verifyBasic(token, key) {
      const record = cache.get(token);
      const current = keys.current('api_key_hash');
      // A hash made under a key no longer kept cannot match: compare with the current key anyway.
      const hashKey = (record && keys.find('api_key_hash', record.key_id ?? LEGACY_KEY_ID)) ?? current;
      const candidate = hashWith(hashKey, key);
      // Compare even for an unknown token so timing does not tell which tokens exist.
      const stored = record ? Buffer.from(record.key_hash, 'hex') : Buffer.alloc(candidate.length);
      const equal = stored.length === candidate.length && timingSafeEqual(stored, candidate);
      if (!record || !equal || record.disabled_at) return null;
      if (hashKey.id !== current.id || record.key_id === undefined) rehash(token, key);
      return { credential: token, via: 'basic', scopes: scopesOfKind(record.kind), ...owner(record) };
    },
    async verifyJwt(jwt) {
      try {
        // A JWT without an expiry would be a key that cannot be rotated: refused.
        const { payload } = await jwtVerify(jwt, jwtKey(), { algorithms: ['HS256'], requiredClaims: ['exp'], currentDate: new Date(realNow(core.clock)) });
        const token = typeof payload.token === 'string' ? payload.token : '';
        const record = cache.get(token);
        if (!record || record.disabled_at) return null;
        const held = scopesOfKind(record.kind);
        // A JWT never holds more than its credential's kind allows, whatever its claim says.
        return { credential: token, via: 'jwt', scopes: scopesOfClaim(payload.scope).filter((s) => held.includes(s)), exp: payload.exp!, ...owner(record) };
      } catch (err) {
        if (err instanceof joseErrors.JOSEError) return null;
        throw err;
      }
    },
    async issueJwt(credential, days = JWT_DEFAULT_DAYS, options = {}) {
      if (!Number.isInteger(days) || days < 1 || days > 365) {
        throw fail.invalid('invalid_jwt_expiry', 'options[jwt_expiry] must be a whole number of days from 1 to 365');
      }
      const scopes = options.scopes ?? DEFAULT_JWT_SCOPES;
      const wanted = Math.floor((realNow(core.clock) + days * DAY_MS) / 1000);
      const exp = options.notAfter !== undefined ? Math.min(wanted, options.notAfter) : wanted;
      // A jti of its own: two sessions minted in the same second are two JWTs (one can be signed out alone).
      const jwt = await new SignJWT({ token: credential, scope: scopes.join(' '), ...(options.session ? { sid: options.session } : {}), ...(options.minted ? { minted: true } : {}) })
        .setJti(randomBytes(12).toString('base64url'))
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(Math.max(Math.floor(realNow(core.clock) / 1000), options.notBefore ?? 0))
        .setExpirationTime(exp)
        .sign(jwtKey());
      return { jwt, exp, scopes };
    },
    hasAny: () => cache.size > 0,
    hashKeysInUse() {
      const ids = new Set<string>();
      for (const r of cache.values()) if (!r.disabled_at) ids.add(r.key_id ?? LEGACY_KEY_ID);
      return ids;
    },
  };
}
