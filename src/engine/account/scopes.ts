import { CREDENTIAL_KINDS } from '../../shared/schemas/account';
import { ROLES, ROLE_SCOPES, roleAllows, type Role } from './roles';
import { fail } from '../errors';

/**
 * What a caller may do. The API key (HTTP Basic) is the owner's root credential and holds every
 * scope; a JWT holds the scopes it was minted with. The screens sign in once with the key and
 * keep a JWT for the day: if that JWT leaks (a shared till, a page's storage), it must not be
 * able to make itself permanent, so it gets `api` only.
 *
 * - `api`: every business operation (sales, imports, exports, lanes, settings).
 * - `credentials`: create, list and disable credentials, and mint JWTs that hold `credentials`
 *   (an owner's session: asked for explicitly, with the key).
 * - `onboarding`: the merchant onboarding operations, and nothing else. Only a `partner` credential
 *   holds it (the spec: "onboarding operations need partner credentials arranged through support").
 * - `sync`: a paired lane's replication (pull the hub's documents, push its own); the only scope
 *   a `lane` credential holds (see engine/sync/pairing.ts).
 * - `users`: the back-office users (list, invite, change role, disable).
 * - `settings`: also a scope of its own where an operation requires it (the account's settings and
 *   capability flags): the API key, the owner and managers hold it; the default JWT does not.
 * - The rest are the grants a back-office user's role holds instead of `api` (./roles.ts): an
 *   operation needing `api` also admits a caller holding the operation's grant.
 */
export const SCOPES = ['api', 'credentials', 'onboarding', 'sync', 'users', 'read', 'collect', 'manage', 'money', 'settings', 'register'] as const;
export type Scope = (typeof SCOPES)[number];

/** A JWT minted without naming scopes: the screens' sessions and the reference's clients. */
export const DEFAULT_JWT_SCOPES: readonly Scope[] = ['api'];
/**
 * The API key: the owner's root credential. The grants are implied by `api`, so it needs none of
 * them, except `settings`, which an operation may require on its own (PATCH /api/account: a leaked
 * screen JWT must not turn capabilities on or move the processing cut-off); neither `onboarding`
 * nor `sync`, which only partner and lane credentials hold.
 */
export const KEY_SCOPES: readonly Scope[] = ['api', 'credentials', 'users', 'settings'];
/** What a credential of the `lane` kind holds, by key or JWT: replication and nothing else. */
export const LANE_SCOPES: readonly Scope[] = ['sync'];

/**
 * What a credential is for: `api`, the account owner's key; `partner`, an onboarding partner's
 * (onboarding only); `merchant`, the key of a sandbox merchant account an approved application
 * made (see merchant-accounts.ts: it identifies that account and reaches only whoami); `lane`, a
 * lane paired with this hub (engine/sync/pairing.ts: replication only).
 */
export { CREDENTIAL_KINDS };
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export function scopesOfKind(kind: CredentialKind | undefined): readonly Scope[] {
  if (kind === 'partner') return ['onboarding'];
  if (kind === 'merchant') return DEFAULT_JWT_SCOPES;
  if (kind === 'lane') return LANE_SCOPES;
  return KEY_SCOPES;
}

export interface Principal {
  /** The API credential's token, or `user:<id>` for a back-office user's session. */
  credential: string;
  via: 'basic' | 'jwt';
  scopes: readonly Scope[];
  /** When the JWT expires (seconds since the epoch); the API key does not. */
  exp?: number;
  /** Set for a credential of a hosted merchant account, not of the install's own account. */
  account?: string;
  /** Set for a back-office user's session: who signed in, and the role their scopes come from. */
  user?: { id: string; email: string; name: string; role: string };
  /** A user's session: the id every JWT of one sign-in shares (refreshed ones too), which sign-out ends. */
  session?: string;
  /**
   * A user's JWT minted by GET /api/whoami (for an integration, often narrowed with jwt_scope):
   * it holds no more than it was given, and it is not a session (it neither refreshes nor signs out).
   */
  minted?: boolean;
}

const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

/** The `scope` claim (space-separated, as OAuth writes it). JWTs minted before scopes existed get the default. */
export function scopesOfClaim(claim: unknown): readonly Scope[] {
  if (typeof claim !== 'string') return DEFAULT_JWT_SCOPES;
  return [...new Set(claim.split(' ').filter(isScope))];
}

/** `api credentials` from what a client asked for; an unknown name is refused, not dropped. */
export function parseScopes(text: string): Scope[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  const unknown = names.filter((n) => !isScope(n));
  if (unknown.length || names.length === 0) {
    throw fail.invalid('invalid_scope', `jwt_scope must name scopes among ${SCOPES.join(', ')} (got ${text.slice(0, 60)})`);
  }
  return [...new Set(names as Scope[])];
}

/** Whether the caller holds `scope`, or, for an operation needing `api`, one of its `grants` (authorize's rule, without the refusal). */
export function admits(principal: Principal, scope: Scope, grants: readonly Scope[] = []): boolean {
  return principal.scopes.includes(scope) || (scope === 'api' && grants.some((g) => principal.scopes.includes(g)));
}

/**
 * Throws 403 unless the caller holds `scope`, or, for an operation needing `api`, one of the
 * operation's `grants` (what a back-office role holds instead of `api`, see ./roles.ts).
 */
export function authorize(principal: Principal, scope: Scope, grants: readonly Scope[] = []): void {
  if (admits(principal, scope, grants)) return;
  if (scope === 'onboarding') throw fail.forbidden('partner_credentials_required', 'Onboarding operations need partner credentials, arranged through support (a credential of kind partner).');
  const role = principal.user?.role as Role | undefined;
  // A user's JWT narrowed when it was minted (options[jwt_scope]) whose role would pass.
  const narrowed = principal.minted === true && role !== undefined && admits({ ...principal, scopes: ROLE_SCOPES[role] ?? [] }, scope, grants);
  if (principal.user && !narrowed) {
    // Said with the roles that may (a person knows roles, not grant names). The grants name who
    // passes an `api` operation; any other scope is what the operation needs.
    const mayDo = (r: Role) => (scope === 'api' && grants.length ? roleAllows(r, grants) : ROLE_SCOPES[r].includes(scope));
    const who = ROLES.filter((r) => r !== principal.user!.role && mayDo(r)).map((r) => (r === 'owner' ? 'the owner' : `a ${r}`));
    throw fail.forbidden('role_forbidden', `Your role (${principal.user.role}) may not do this${who.length ? `: ${who.join(' or ')} may` : ''}. Ask the owner.`);
  }
  if (principal.via === 'jwt') {
    // Say that the JWT was narrowed, and to what: not that the role may not.
    const lacks = scope === 'api' && grants.length ? `api (or one of ${grants.join(', ')})` : scope;
    const how = narrowed
      ? `Your role (${role}) may: use your session, or mint a JWT from it with jwt_scope including ${scope}.`
      : `Use a credential that holds it: the API key (HTTP Basic), or a JWT minted with jwt_scope including ${scope}.`;
    throw fail.forbidden('insufficient_scope', `This token was narrowed to the scopes ${principal.scopes.join(' ') || '(none)'} and lacks ${lacks}, which this operation needs. ${how}`);
  }
  const how = scope === 'credentials' ? 'Sign in with the API key (HTTP Basic), or with a JWT minted with jwt_scope including credentials' : `Use a credential with the ${scope} scope`;
  throw fail.forbidden('insufficient_scope', `This credential may not do this (it needs the ${scope} scope). ${how}.`);
}

/** The grants `api` stands for: what a back-office role holds instead of it (./roles.ts). */
const GRANTS: readonly Scope[] = ['read', 'collect', 'manage', 'money', 'register'];

/**
 * The scopes a caller must hold to make a credential holding `scopes`: each of them, where `api`
 * stands for the grants. `sync`, which only lane credentials hold, stands for every scope of the
 * API key: a lane receives the hub's settings and cashier-code key, nothing the key cannot reach,
 * and the owner pairs the shop's lanes. `onboarding` stands for itself: a partner's approved
 * applications make merchant accounts and their keys, which no key or session of this account can,
 * so no caller holds it and only the install (the admin command: "arranged through support") makes one.
 */
function neededToMake(scopes: readonly Scope[]): Scope[] {
  const needed = scopes.flatMap((s) => (s === 'sync' ? [...KEY_SCOPES] : [s]));
  return [...new Set(needed)];
}

/**
 * Throws 403 unless `principal` may make `what`, a credential that outlives the request and holds
 * `scopes`: an API key, a lane's pairing code (its credential), a user's sign-in link or a wider
 * role. A credential can never make one wider than itself, and a JWT minted by GET /api/whoami
 * (from the key or from a session, narrowed or not) makes none at all: it would outlive the JWT
 * (a one-day JWT would leave a key that never expires). The API key itself (HTTP Basic) and a
 * person's own sign-in (a session, which follows their role and ends with their sign-out) may.
 * `by` absent: the install itself (first start, admin commands), which may.
 */
export function authorizeLasting(by: Principal | undefined, what: string, scopes: readonly Scope[]): void {
  if (!by) return;
  if (by.via === 'jwt' && (!by.user || by.minted)) {
    const until = by.exp !== undefined ? ` and expires at ${new Date(by.exp * 1000).toISOString()}` : '';
    throw fail.forbidden(
      'minted_jwt_cannot_create_credentials',
      `This JWT was minted by GET /api/whoami${until}: it cannot create ${what}, which would outlive it. Use the API key (HTTP Basic), or an owner's sign-in.`,
    );
  }
  const missing = neededToMake(scopes).filter((s) => !by.scopes.includes(s) && !(GRANTS.includes(s) && by.scopes.includes('api')));
  if (missing.length) {
    const support = missing.includes('onboarding') ? ' Partner credentials are arranged through support: `npm run admin -- new-credentials --kind partner` on the install.' : '';
    throw fail.forbidden(
      'insufficient_scope',
      `${what[0]!.toUpperCase()}${what.slice(1)} would hold ${scopes.join(' ')}; this credential holds ${by.scopes.join(' ') || 'no scope'} and lacks ${missing.join(', ')}: a credential cannot make one wider than itself.${support}`,
    );
  }
}

/**
 * What a JWT minted for `principal` may hold: never a scope the caller lacks, never past the
 * caller's own expiry, so a JWT cannot extend or widen itself by minting another.
 */
export function mintLimits(principal: Principal, requested: readonly Scope[] | undefined): { scopes: readonly Scope[]; notAfter?: number; minted?: boolean; session?: string } {
  // A user's session renews with its role's scopes (which are read again on every request anyway).
  const scopes = requested ?? (principal.user ? principal.scopes : DEFAULT_JWT_SCOPES);
  const missing = scopes.filter((s) => !principal.scopes.includes(s));
  if (missing.length) {
    throw fail.forbidden('insufficient_scope', `This credential cannot mint a JWT with ${missing.join(', ')}: it does not hold that scope itself.`);
  }
  // A user's minted JWT keeps the session's id, so signing out ends it with the session.
  const ofUser = principal.user ? { minted: true, ...(principal.session ? { session: principal.session } : {}) } : {};
  return { scopes, ...(principal.exp !== undefined ? { notAfter: principal.exp } : {}), ...ofUser };
}
