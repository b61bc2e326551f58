import { MIN_PASSWORD } from '../../shared/passwords';
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { decodeJwt, jwtVerify, errors as joseErrors } from 'jose';
import { realNow } from '../clock';
import type { EngineCore } from '../core';
import { fail } from '../errors';
import { EMAIL_RE } from '../receivables/problems';
import { getRecord, putRecord, recordId, recordsOfKind } from '../records';
import type { InstallKeys } from '../security/install-keys';
import type { Credentials } from './credentials';
import { ROLE_SCOPES, isRole, type Role } from './roles';
import { authorizeLasting, scopesOfClaim, type Principal } from './scopes';

/**
 * Back-office users: people who sign in with their e-mail and a password, not with API keys.
 * Passwords are kept as scrypt hashes with a salt of their own and compared in constant time.
 * After MAX_FAILURES wrong passwords in a row from one client address, that address is locked out
 * of the user for LOCK_MS; after MAX_FAILURES_ALL in a row from any addresses, everyone is. So a
 * stranger who knows the owner's e-mail cannot keep the owner out by typing wrong passwords, and
 * a guesser with many addresses is stopped all the same. Tries sent together count as tries sent
 * one after another: a try is reserved before its (slow) hash, refused at once when the wrong tries
 * counted plus those in flight already reach a lock, and a user's count is increased inside the
 * unit of work that writes it, so at most MAX_FAILURES_ALL wrong guesses are ever tried. A new user (and the
 * owner at first start or after `admin reset-owner`) gets a one-time sign-in link instead of a
 * password: opening it sets the password. Sessions are JWTs signed with the install's JWT key,
 * whose `token` claim is `user:<id>`; the role is read again on every request, so a role change
 * or a disabled user takes effect at once.
 */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  password: { salt: string; hash: string } | null;
  /** SHA-256 of the one-time sign-in link's secret (the secret itself is shown once). */
  link: { hash: string; expires_at: string } | null;
  failures: number;
  locked_until: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
  /** Sessions issued before this (epoch seconds) are over: set when a password is set by a link. */
  sessions_after?: number;
}

export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  enabled: boolean;
  has_password: boolean;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export interface Session {
  jwt: string;
  exp: number;
  user: UserView;
}

export const MAX_FAILURES = 5;
/** Wrong passwords in a row from all addresses together before the user is locked for everyone. */
export const MAX_FAILURES_ALL = 50;
export const LOCK_MS = 15 * 60_000;
export const LINK_MS = 24 * 3_600_000;
export const SESSION_DAYS = 1;
export { MIN_PASSWORD } from '../../shared/passwords';
const SCRYPT: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEYLEN = 32;
export const USER_PREFIX = 'user:';

const scrypt = (password: string, salt: Buffer) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, KEYLEN, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Records of sessions signed out before they expired (key: a hash of the session id; of the JWT for one minted without). */
const SIGNED_OUT = 'session_signed_out';
const signedOutKey = (jwt: string, sid: string | undefined) => (sid ? sha256(`session:${sid}`) : sha256(jwt));

export interface Users {
  list(): UserView[];
  get(id: string): UserView;
  /**
   * A new user and their one-time sign-in link secret (shown once). `by` (here, in update and
   * newLink): the caller, who must hold every scope of the role the link or change hands out and be
   * no JWT minted by whoami (authorizeLasting); absent for the install itself (first start, admin).
   */
  create(input: { email: string; name?: string; role: string }, by?: Principal): Promise<{ user: UserView; link: string }>;
  update(id: string, patch: { role?: string; name?: string; enabled?: boolean }, by?: Principal): Promise<UserView>;
  /** A new one-time sign-in link for the user (the owner's lost password: `admin reset-owner`). */
  newLink(id: string, by?: Principal): Promise<{ user: UserView; link: string }>;
  /** `from`: the client's address; its wrong passwords lock it out before they lock out the user. */
  signIn(email: string, password: string, from?: string): Promise<Session>;
  /** Opens a one-time link: sets the password (and the e-mail, if given) and signs in. */
  redeemLink(link: string, password: string, email?: string): Promise<Session>;
  verifyJwt(jwt: string): Promise<Principal | null>;
  /**
   * Signing out: ends this session (the JWT given, every copy of it), not the user's sessions on
   * other browsers. Disabling the user or a password set by a link ends them all.
   */
  signOut(id: string, jwt: string, exp: number): Promise<void>;
  /**
   * The session again with a new JWT of the same session (`session`, its id: signing out ends
   * both), expiring no later than `notAfter` (a session never extends itself).
   */
  refresh(id: string, notAfter?: number, session?: string): Promise<Session>;
  /** First start: the owner, when the install has no user yet, with a sign-in link. */
  ensureOwner(): Promise<{ user: UserView; link: string } | undefined>;
  owner(): UserView | undefined;
}

export async function createUsers(core: EngineCore, keys: InstallKeys, credentials: Credentials): Promise<Users> {
  // A JWT's iat is in whole seconds: ending sessions "now" ends those minted in this second too.
  const endOfThisSecond = () => Math.ceil((realNow(core.clock) + 1) / 1000);
  const cache = new Map<string, UserRecord>();
  for (const r of await recordsOfKind<UserRecord>(core, 'user')) cache.set(r.key, r.data);
  // Sessions signed out before they expired, by a hash of their JWT (never the JWT itself), until then.
  const signedOut = new Map<string, number>();
  const expired: Array<{ key: string; user: string }> = [];
  for (const r of await recordsOfKind<{ exp: number; user: string }>(core, SIGNED_OUT)) {
    if (r.data.exp * 1000 > realNow(core.clock)) signedOut.set(r.key, r.data.exp);
    else expired.push({ key: r.key, user: r.data.user });
  }
  // Past its expiry a signed-out session's JWT is refused anyway: its record has nothing left to say.
  if (expired.length) await core.mutate(async (tx) => {
    for (const e of expired) await tx.remove('records', recordId(SIGNED_OUT, e.key), { type: 'user.signed_out_expired', entity: 'user', key: e.user });
  });
  // A hash to compare against when the e-mail is unknown, so timing does not tell which e-mails exist.
  const decoy = { salt: randomBytes(16).toString('hex'), hash: randomBytes(KEYLEN).toString('hex') };

  const view = (u: UserRecord): UserView => ({
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    enabled: u.disabled_at === null,
    has_password: u.password !== null,
    locked_until: u.locked_until,
    created_at: u.created_at,
    updated_at: u.updated_at,
    last_sign_in_at: u.last_sign_in_at,
  });
  const byEmail = (email: string) => [...cache.values()].find((u) => u.email === email.trim().toLowerCase());
  /**
   * Wrong passwords in a row, in memory and bounded: per e-mail and client address (the lock a
   * guesser meets first), and, for an e-mail that names no enabled user, per e-mail too (a user's
   * count is on its record). An unknown e-mail is counted and locked exactly like a user, so a lock
   * does not tell a guesser which e-mails are users.
   */
  const counts = new Map<string, { failures: number; locked_until: number }>();
  const countKey = (email: string, from: string | null) => `${email.trim().toLowerCase()}\n${from ?? '*'}`;
  const lockOf = (key: string) => counts.get(key)?.locked_until ?? 0;
  const failed = (key: string, now: number, max: number) => {
    const failures = (counts.get(key)?.failures ?? 0) + 1;
    counts.delete(key);
    if (counts.size >= 20_000) counts.delete(counts.keys().next().value!);
    counts.set(key, failures >= max ? { failures: 0, locked_until: now + LOCK_MS } : { failures, locked_until: 0 });
  };
  /**
   * Tries whose password is being hashed now (tens of milliseconds each), by the same keys as
   * `counts` (the e-mail and address; the e-mail alone, for a user too). A try is reserved here
   * before its hash and released only once its failure is counted, so a check of the count plus
   * the tries in flight never lets more wrong guesses through than the lock allows.
   */
  const inFlight = new Map<string, number>();
  const reserve = (key: string) => inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
  const release = (key: string) => {
    const left = (inFlight.get(key) ?? 1) - 1;
    if (left > 0) inFlight.set(key, left);
    else inFlight.delete(key);
  };
  const locked = (until: number) => fail.forbidden('user_locked', `Too many wrong passwords: try again after ${new Date(until).toISOString()}, or ask the owner for a sign-in link.`);
  const mustGet = (id: string) => {
    const u = cache.get(id);
    if (!u) throw fail.notFound('user_not_found', `no user ${id}`);
    return u;
  };
  const checkEmail = (email: string, self?: string) => {
    const e = email.trim().toLowerCase();
    if (!EMAIL_RE.test(e) || e.length > 200) throw fail.invalid('invalid_email', 'Enter an e-mail address such as name@example.com', [{ field: 'email', message: 'Enter an e-mail address such as name@example.com' }]);
    const other = byEmail(e);
    if (other && other.id !== self) throw fail.conflict('user_exists', `A user with the e-mail ${e} already exists`, [{ field: 'email', message: 'Another user has this e-mail' }]);
    return e;
  };
  const save = async (next: UserRecord, type: string) => {
    const saved = await core.mutate(async (tx) => {
      const data = { ...next, updated_at: tx.at };
      await putRecord(tx, 'user', data.id, data, { type, entity: 'user', key: data.id, data: { role: data.role, enabled: data.disabled_at === null } }, data.email);
      return data;
    });
    cache.set(saved.id, saved);
    return saved;
  };
  /**
   * A change to the user as stored now, read again inside the unit of work that writes it (never a
   * copy read before an await): `fn` answers the new record, or undefined to write nothing.
   */
  const change = async (id: string, type: string, fn: (current: UserRecord) => UserRecord | undefined) =>
    core.mutate(async (tx) => {
      const stored = (await getRecord<UserRecord>(tx, 'user', id))?.data;
      const next = stored && fn(stored);
      if (!next) return undefined;
      const data = { ...next, updated_at: tx.at };
      await putRecord(tx, 'user', id, data, { type, entity: 'user', key: id, data: { role: data.role, enabled: data.disabled_at === null } }, data.email);
      tx.afterCommit(() => cache.set(id, data));
      return data;
    });
  // Links and lock-outs run on real time, as sessions do: moving the sandbox clock (days ahead, to
  // see a cut-off) must neither expire the owner's own sign-in link nor end a lock-out early.
  const makeLink = () => {
    const secret = randomBytes(24).toString('base64url');
    return { secret, link: { hash: sha256(secret), expires_at: new Date(realNow(core.clock) + LINK_MS).toISOString() } };
  };
  const enabledOwners = () => [...cache.values()].filter((u) => u.role === 'owner' && !u.disabled_at);
  /** A sign-in's JWT; a refresh keeps the sign-in's session id, so signing out ends every JWT it made. */
  const session = async (u: UserRecord, notAfter?: number, id = randomBytes(12).toString('base64url')): Promise<Session> => {
    const { jwt, exp } = await credentials.issueJwt(`${USER_PREFIX}${u.id}`, SESSION_DAYS, { scopes: ROLE_SCOPES[u.role], session: id, ...(notAfter ? { notAfter } : {}), ...(u.sessions_after ? { notBefore: u.sessions_after } : {}) });
    return { jwt, exp, user: view(u) };
  };
  const checkPassword = (password: string) => {
    if (password.length < MIN_PASSWORD) throw fail.invalid('password_too_short', `A password needs at least ${MIN_PASSWORD} characters`, [{ field: 'password', message: `At least ${MIN_PASSWORD} characters` }]);
  };

  const users: Users = {
    list: () => [...cache.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.email.localeCompare(b.email)).map(view),
    get: (id) => view(mustGet(id)),
    async create(input, by) {
      if (!isRole(input.role)) throw fail.invalid('invalid_role', 'role must be owner, manager, clerk or cashier', [{ field: 'role', message: 'Choose owner, manager, clerk or cashier' }]);
      const email = checkEmail(input.email);
      authorizeLasting(by, `a sign-in link for a new ${input.role}`, ROLE_SCOPES[input.role]);
      const { secret, link } = makeLink();
      const at = new Date(core.clock.now()).toISOString();
      const record: UserRecord = {
        id: core.ids.token(),
        email,
        name: input.name?.trim() || email,
        role: input.role,
        password: null,
        link,
        failures: 0,
        locked_until: null,
        disabled_at: null,
        created_at: at,
        updated_at: at,
        last_sign_in_at: null,
      };
      return { user: view(await save(record, 'user.created')), link: secret };
    },
    async update(id, patch, by) {
      const u = mustGet(id);
      if (patch.role !== undefined && !isRole(patch.role)) throw fail.invalid('invalid_role', 'role must be owner, manager, clerk or cashier', [{ field: 'role', message: 'Choose owner, manager, clerk or cashier' }]);
      const role = (patch.role ?? u.role) as Role;
      const disabled = patch.enabled === undefined ? u.disabled_at : patch.enabled ? null : (u.disabled_at ?? new Date(core.clock.now()).toISOString());
      // A wider role, or a disabled user enabled again, hands a person's sign-in more than it had.
      const wider = ROLE_SCOPES[role].some((s) => !ROLE_SCOPES[u.role].includes(s));
      if (wider || (u.disabled_at && !disabled)) authorizeLasting(by, `the ${role} role for ${u.email}`, ROLE_SCOPES[role]);
      // Someone must always be able to manage users and credentials.
      if (u.role === 'owner' && !u.disabled_at && (role !== 'owner' || disabled) && enabledOwners().length === 1) {
        throw fail.conflict('last_owner', 'This is the only owner: make another user owner first');
      }
      // Disabling ends every session made before, for good: enabling again (or a new link) must not bring them back.
      const ended = disabled && !u.disabled_at ? { sessions_after: endOfThisSecond() } : {};
      const next: UserRecord = { ...u, role, disabled_at: disabled, name: patch.name?.trim() || u.name, ...ended };
      return view(await save(next, 'user.updated'));
    },
    async newLink(id, by) {
      const u = mustGet(id);
      authorizeLasting(by, `a sign-in link for ${u.email} (${u.role})`, ROLE_SCOPES[u.role]);
      const { secret, link } = makeLink();
      // A link may enable a disabled user again; sessions from before stay ended (only the link's own will work).
      const ended = u.disabled_at ? { sessions_after: Math.max(u.sessions_after ?? 0, endOfThisSecond()) } : {};
      const saved = await save({ ...u, link, failures: 0, locked_until: null, disabled_at: null, ...ended }, 'user.link_issued');
      return { user: view(saved), link: secret };
    },
    async signIn(email, password, from = '') {
      const here = countKey(email, from);
      const everyone = countKey(email, null);
      const refused = () => fail.unauthorized('sign_in_failed', 'That e-mail and password do not match an enabled user.');
      // Before the slow hash, and with no await between the check and the reservation: a lock, or
      // wrong tries already in flight that would reach it, refuse at once. So tries sent together
      // are bounded exactly as tries sent one after another (every try in flight counts as wrong).
      const before = byEmail(email);
      const user = before && !before.disabled_at ? before : undefined;
      const now = realNow(core.clock);
      if (lockOf(here) > now) throw locked(lockOf(here));
      if ((counts.get(here)?.failures ?? 0) + (inFlight.get(here) ?? 0) >= MAX_FAILURES) throw locked(now + LOCK_MS);
      const lockAll = user ? (user.locked_until ? Date.parse(user.locked_until) : 0) : lockOf(everyone);
      if (lockAll > now) throw locked(lockAll);
      const wrongAll = user ? user.failures : (counts.get(everyone)?.failures ?? 0);
      if (wrongAll + (inFlight.get(everyone) ?? 0) >= MAX_FAILURES_ALL) throw locked(now + LOCK_MS);
      reserve(here);
      reserve(everyone);
      try {
        const stored = user?.password ?? decoy;
        const candidate = await scrypt(password, Buffer.from(stored.salt, 'hex'));
        const equal = timingSafeEqual(candidate, Buffer.from(stored.hash, 'hex'));
        const at = realNow(core.clock);
        if (!user) {
          failed(here, at, MAX_FAILURES);
          failed(everyone, at, MAX_FAILURES_ALL);
          throw refused();
        }
        if (!user.password || !equal) {
          failed(here, at, MAX_FAILURES);
          // Counted on the record as stored now, inside the unit of work that writes it: tries
          // that finish together each add one, none overwrites another's count.
          await change(user.id, 'user.sign_in_failed', (current) => {
            const failures = current.failures + 1;
            const lockedUntil = failures >= MAX_FAILURES_ALL ? new Date(at + LOCK_MS).toISOString() : current.locked_until && Date.parse(current.locked_until) > at ? current.locked_until : null;
            return { ...current, failures: failures >= MAX_FAILURES_ALL ? 0 : failures, locked_until: lockedUntil };
          });
          throw refused();
        }
        counts.delete(here);
        // The user as stored now: disabled, locked or given a new password while the hash ran, the
        // password just checked no longer signs in.
        let lockedUntil = 0;
        const saved = await change(user.id, 'user.signed_in', (current) => {
          if (current.disabled_at || current.password?.hash !== user.password!.hash) return undefined;
          if (current.locked_until && Date.parse(current.locked_until) > at) {
            lockedUntil = Date.parse(current.locked_until);
            return undefined;
          }
          return { ...current, failures: 0, locked_until: null, last_sign_in_at: new Date(at).toISOString() };
        });
        if (lockedUntil) throw locked(lockedUntil);
        if (!saved) throw refused();
        return session(saved);
      } finally {
        release(here);
        release(everyone);
      }
    },
    async redeemLink(secret, password, email) {
      const hash = sha256(secret);
      const u = [...cache.values()].find((x) => x.link && timingSafeEqual(Buffer.from(x.link.hash, 'hex'), Buffer.from(hash, 'hex')));
      if (!u || !u.link || Date.parse(u.link.expires_at) <= realNow(core.clock) || u.disabled_at) {
        throw fail.unauthorized('link_invalid', 'This sign-in link has expired or was already used: ask the owner for a new one.');
      }
      checkPassword(password);
      const nextEmail = email ? checkEmail(email, u.id) : u.email;
      const salt = randomBytes(16);
      const hashed = (await scrypt(password, salt)).toString('hex');
      // A password set again (forgotten, or the account taken over) ends every session made before:
      // whoever holds one of them needs the new password. The session answered here is after it.
      const sessionsAfter = Math.floor(realNow(core.clock) / 1000);
      const saved = await save(
        { ...u, email: nextEmail, password: { salt: salt.toString('hex'), hash: hashed }, link: null, failures: 0, locked_until: null, last_sign_in_at: new Date(core.clock.now()).toISOString(), sessions_after: sessionsAfter },
        'user.password_set',
      );
      return session(saved);
    },
    async verifyJwt(jwt) {
      try {
        const { payload } = await jwtVerify(jwt, new Uint8Array(Buffer.from(keys.current('jwt').secret, 'hex')), {
          algorithms: ['HS256'],
          requiredClaims: ['exp'],
          // Minted on the real time (credentials.issueJwt): a moved sandbox clock must not sign users out.
          currentDate: new Date(realNow(core.clock)),
        });
        const token = typeof payload.token === 'string' ? payload.token : '';
        if (!token.startsWith(USER_PREFIX)) return null;
        const u = cache.get(token.slice(USER_PREFIX.length));
        if (!u || u.disabled_at) return null;
        const sid = typeof payload.sid === 'string' ? payload.sid : undefined;
        if (signedOut.has(signedOutKey(jwt, sid))) return null;
        // Disabling the user ends its sessions, and so does a password set by a link (issued before
        // it); a lockout or a link issued but not used yet does not.
        if (u.sessions_after !== undefined && (payload.iat ?? 0) < u.sessions_after) return null;
        // A session's own JWT follows the role as it is now; one minted from it (whoami's jwt_scope)
        // holds no more than it was given either.
        const minted = payload.minted === true;
        const claimed = scopesOfClaim(payload.scope);
        const scopes = minted ? ROLE_SCOPES[u.role].filter((s) => claimed.includes(s)) : ROLE_SCOPES[u.role];
        return { credential: token, via: 'jwt', scopes, exp: payload.exp!, user: { id: u.id, email: u.email, name: u.name, role: u.role }, ...(sid ? { session: sid } : {}), ...(minted ? { minted } : {}) };
      } catch (err) {
        if (err instanceof joseErrors.JOSEError) return null;
        throw err;
      }
    },
    async signOut(id, jwt, exp) {
      mustGet(id);
      // The caller verified this JWT; its session id names every JWT of the session.
      const { sid } = decodeJwt(jwt);
      const key = signedOutKey(jwt, typeof sid === 'string' ? sid : undefined);
      const now = realNow(core.clock);
      for (const [k, until] of signedOut) if (until * 1000 <= now) signedOut.delete(k);
      await core.mutate((tx) => putRecord(tx, SIGNED_OUT, key, { exp, user: id }, { type: 'user.signed_out', entity: 'user', key: id }, String(exp)));
      signedOut.set(key, exp);
    },
    async refresh(id, notAfter, sid) {
      const u = mustGet(id);
      if (u.disabled_at) throw fail.unauthorized('unauthorized', 'This user is disabled');
      return session(u, notAfter, sid);
    },
    async ensureOwner() {
      if (cache.size > 0) return undefined;
      return users.create({ email: 'owner@laneway.local', name: 'Owner', role: 'owner' });
    },
    owner() {
      const o = enabledOwners()[0] ?? [...cache.values()].find((u) => u.role === 'owner');
      return o && view(o);
    },
  };
  return users;
}
