import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { EngineCore } from '../core';
import { fail } from '../errors';
import { DAY_MS } from '../clock';
import { getRecord, putRecord, recordsOfKind } from '../records';
import { DEFAULT_JWT_SCOPES, KEY_SCOPES, scopesOfClaim, type Principal, type Scope } from './scopes';

/**
 * API credentials: a public token (the Basic user name) and a secret key (the password). Only an
 * HMAC of the key is stored; the key is shown once, when it is created. A JWT minted for a
 * credential carries its token, so disabling the credential stops its JWTs at once.
 */
export interface CredentialRecord {
  token: string;
  name: string;
  key_hash: string;
  created_at: string;
  disabled_at: string | null;
}

export interface CredentialView {
  token: string;
  name: string;
  created_at: string;
  disabled_at: string | null;
  enabled: boolean;
}

export type { Principal } from './scopes';

interface InstallSecrets {
  hmac_key: string;
  jwt_key: string;
}

const TOKEN_RULE = /^[A-Za-z0-9_-]{8,64}$/;
export const JWT_DEFAULT_DAYS = 30;

export interface Credentials {
  create(input?: { name?: string; token?: string; key?: string }): Promise<{ token: string; key: string; name: string }>;
  disable(token: string): Promise<CredentialView>;
  list(): Promise<CredentialView[]>;
  verifyBasic(token: string, key: string): Principal | null;
  verifyJwt(jwt: string): Promise<Principal | null>;
  /**
   * A JWT for `credential`, valid `days` (1..365), holding `scopes` (default `api` only) and
   * expiring no later than `notAfter` (seconds since the epoch) when given.
   */
  issueJwt(credential: string, days?: number, options?: { scopes?: readonly Scope[]; notAfter?: number }): Promise<{ jwt: string; exp: number; scopes: readonly Scope[] }>;
  hasAny(): boolean;
}

export async function createCredentials(core: EngineCore): Promise<Credentials> {
  let secrets = (await getRecord<InstallSecrets>(core, 'secret', 'install'))?.data;
  if (!secrets) {
    const fresh: InstallSecrets = { hmac_key: core.ids.secret(32), jwt_key: core.ids.secret(32) };
    await core.mutate((tx) => putRecord(tx, 'secret', 'install', fresh, { type: 'install.created', entity: 'install', key: 'install' }));
    secrets = fresh;
  }
  const hmacKey = Buffer.from(secrets.hmac_key, 'hex');
  const jwtKey = new Uint8Array(Buffer.from(secrets.jwt_key, 'hex'));

  // Auth runs on every request: the enabled credentials live in memory, refreshed on each change.
  const cache = new Map<string, CredentialRecord>();
  for (const r of await recordsOfKind<CredentialRecord>(core, 'credential')) cache.set(r.key, r.data);

  const hash = (key: string) => createHmac('sha256', hmacKey).update(key).digest();
  const view = (r: CredentialRecord): CredentialView => ({
    token: r.token,
    name: r.name,
    created_at: r.created_at,
    disabled_at: r.disabled_at,
    enabled: r.disabled_at === null,
  });

  return {
    async create(input = {}) {
      const token = input.token ?? core.ids.token();
      const key = input.key ?? core.ids.secret(24);
      if (!TOKEN_RULE.test(token)) throw fail.invalid('invalid_token', 'API token must be 8 to 64 letters, digits, - or _');
      if (key.length < 8) throw fail.invalid('invalid_key', 'API key must be at least 8 characters');
      const name = input.name ?? 'API credential';
      const record = await core.mutate(async (tx) => {
        if (await getRecord(tx, 'credential', token)) throw fail.conflict('credential_exists', `credential ${token} already exists`);
        const data: CredentialRecord = { token, name, key_hash: hash(key).toString('hex'), created_at: tx.at, disabled_at: null };
        await putRecord(tx, 'credential', token, data, { type: 'credential.created', entity: 'credential', key: token });
        return data;
      });
      cache.set(token, record);
      return { token, key, name };
    },
    async disable(token) {
      const record = await core.mutate(async (tx) => {
        const existing = await getRecord<CredentialRecord>(tx, 'credential', token);
        if (!existing) throw fail.notFound('credential_not_found', `no credential ${token}`);
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
      const candidate = hash(key);
      // Compare even for an unknown token so timing does not tell which tokens exist.
      const stored = record ? Buffer.from(record.key_hash, 'hex') : Buffer.alloc(candidate.length);
      const equal = stored.length === candidate.length && timingSafeEqual(stored, candidate);
      if (!record || !equal || record.disabled_at) return null;
      return { credential: token, via: 'basic', scopes: KEY_SCOPES };
    },
    async verifyJwt(jwt) {
      try {
        // A JWT without an expiry would be a key that cannot be rotated: refused.
        const { payload } = await jwtVerify(jwt, jwtKey, { algorithms: ['HS256'], requiredClaims: ['exp'], currentDate: new Date(core.clock.now()) });
        const token = typeof payload.token === 'string' ? payload.token : '';
        const record = cache.get(token);
        if (!record || record.disabled_at) return null;
        return { credential: token, via: 'jwt', scopes: scopesOfClaim(payload.scope), exp: payload.exp! };
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
      const wanted = Math.floor((core.clock.now() + days * DAY_MS) / 1000);
      const exp = options.notAfter !== undefined ? Math.min(wanted, options.notAfter) : wanted;
      const jwt = await new SignJWT({ token: credential, scope: scopes.join(' ') })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(Math.floor(core.clock.now() / 1000))
        .setExpirationTime(exp)
        .sign(jwtKey);
      return { jwt, exp, scopes };
    },
    hasAny: () => cache.size > 0,
  };
}
