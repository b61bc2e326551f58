import type { EngineCore } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord } from '../records';
import { CAPABILITIES, defaultProfile, type AccountProfile, type Capability, type ProfilePatch } from './profile';
import { createCredentials, type Credentials } from './credentials';
import { whoamiEntry } from './whoami';
import type { InstallKeys } from '../security/install-keys';
import { KEY_SCOPES, authorizeLasting, mintLimits, scopesOfKind, type CredentialKind, type Principal, type Scope } from './scopes';
import { merchantProfile } from './merchant-accounts';
import { dayKeptOnChange } from '../gateway/processing-day';

export * from './profile';
export * from './scopes';
export type { Credentials, CredentialView } from './credentials';
export * from './merchant-accounts';
export { merchantId } from './merchant-id';

export interface Account {
  profile(): AccountProfile;
  update(patch: ProfilePatch): Promise<AccountProfile>;
  can(capability: Capability): boolean;
  /** Throws a precondition error naming the capability when it is off. */
  require(capability: Capability): void;
  credentials: Credentials;
  /**
   * POST /api/account/credentials: a new credential of `input.kind`, made for `by` only when it
   * holds every scope the new one gets and is no JWT minted by whoami (authorizeLasting): never a
   * partner's, whose `onboarding` no caller holds (the admin command makes those).
   */
  createCredential(by: Principal, input: { name?: string; kind?: CredentialKind }): Promise<{ token: string; key: string; name: string }>;
  /**
   * GET /api/whoami: keyed by the calling credential's token, with a JWT of `days` validity
   * holding `scopes` (default `api`). A JWT caller gets no scope it lacks and no later expiry
   * than its own. A bare token stands for the key holder (admin commands, the desktop shell).
   */
  whoami(caller: Principal | string, days?: number, scopes?: readonly Scope[]): Promise<Record<string, Awaited<ReturnType<typeof whoamiEntry>>>>;
}

export interface BootstrapResult {
  account: Account;
  /** This start made the account: a new install. */
  created: boolean;
}

/** What a first start shows once: the clear key exists only in this object, never at rest. */
export interface FirstCredentials {
  token: string;
  key: string;
}

export const ACCOUNT_KEY = 'supplier';

/** ", such as America/Toronto", or the zones whose city holds what was typed ("toronto"; "Montreal" is no zone's name). */
function zonesLike(typed: string): string {
  const word = typed.trim().toLowerCase().replace(/\s+/g, '_');
  const zones = word.length < 3 ? [] : Intl.supportedValuesOf('timeZone').filter((z) => z.toLowerCase().split('/').pop()!.includes(word)).slice(0, 3);
  return `, such as ${zones.length ? zones.join(' or ') : 'America/Toronto'}`;
}

export async function openAccount(core: EngineCore, keys: InstallKeys, options: { timezone?: string } = {}): Promise<BootstrapResult> {
  let profile = (await getRecord<AccountProfile>(core, 'account', ACCOUNT_KEY))?.data;
  const created = !profile;
  const credentials = await createCredentials(core, keys);
  if (!profile) {
    const timezone = options.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
    const created = defaultProfile(core.ids.token(), new Date(core.clock.now()).toISOString(), timezone);
    await core.mutate((tx) => putRecord(tx, 'account', ACCOUNT_KEY, created, { type: 'account.created', entity: 'account', key: created.token }));
    profile = created;
  }

  let current: AccountProfile = profile;
  const account: Account = {
    profile: () => current,
    async update(patch) {
      current = await core.mutate(async (tx) => {
        const stored = (await getRecord<AccountProfile>(tx, 'account', ACCOUNT_KEY))?.data ?? current;
        const { capabilities, ...rest } = patch;
        if (rest.timezone !== undefined && !validTimeZone(rest.timezone)) {
          const message = `unknown time zone ${rest.timezone}: give its name as Region/City${zonesLike(rest.timezone)}`;
          throw fail.invalid('invalid_timezone', message, [{ field: 'timezone', code: 'invalid_timezone', message }]);
        }
        if (capabilities) {
          for (const name of Object.keys(capabilities)) {
            if (!(CAPABILITIES as readonly string[]).includes(name)) throw fail.invalid('unknown_capability', `unknown capability ${name}`);
          }
        }
        const next: AccountProfile = {
          ...stored,
          ...rest,
          capabilities: { ...stored.capabilities, ...(capabilities ?? {}) },
          updated_at: tx.at,
        };
        const kept = dayKeptOnChange(stored, next, tx.now);
        if (kept) next.processing_day_kept = kept;
        await putRecord(tx, 'account', ACCOUNT_KEY, next, { type: 'account.updated', entity: 'account', key: next.token });
        return next;
      });
      return current;
    },
    can: (capability) => current.capabilities[capability] === true,
    require(capability) {
      if (!account.can(capability)) {
        throw fail.precondition('capability_disabled', `This account is not enabled for ${capability.replace(/_/g, ' ')}`);
      }
    },
    credentials,
    async createCredential(by, input) {
      const kind = input.kind ?? 'api';
      authorizeLasting(by, kind === 'api' ? 'an API key' : `a ${kind} credential`, scopesOfKind(kind));
      return credentials.create({ ...(input.name ? { name: input.name } : {}), ...(input.kind ? { kind: input.kind } : {}) });
    },
    async whoami(caller, days, scopes) {
      const principal: Principal = typeof caller === 'string' ? { credential: caller, via: 'basic', scopes: KEY_SCOPES } : caller;
      const jwt = await credentials.issueJwt(principal.credential, days, mintLimits(principal, scopes));
      if (principal.account) {
        const merchant = await merchantProfile(core, principal.account, current.timezone);
        if (!merchant) throw fail.forbidden('account_not_hosted', 'This credential\'s account is not hosted here');
        return { [principal.credential]: await whoamiEntry(core, merchant, jwt, { divisions: false }) };
      }
      return { [principal.credential]: await whoamiEntry(core, current, jwt) };
    },
  };
  return { account, created };
}

/**
 * The install's first credential, made when it has none: the caller shows the key once. `serve`
 * and the desktop app call this only once their socket listens, so a start that fails (port in
 * use) leaves no credential nobody saw, and the next start makes and shows it. With a chosen pair
 * (LANEWAY_API_TOKEN/KEY) on a folder that has credentials, makes sure that pair works (scripts
 * rely on it) and shows nothing.
 */
export async function ensureFirstCredentials(credentials: Credentials, chosen: { token?: string; key?: string } = {}): Promise<FirstCredentials | undefined> {
  if (!credentials.hasAny()) {
    const made = await credentials.create({
      name: 'First sandbox credential',
      ...(chosen.token ? { token: chosen.token } : {}),
      ...(chosen.key ? { key: chosen.key } : {}),
    });
    return { token: made.token, key: made.key };
  }
  if (chosen.token && chosen.key && !credentials.verifyBasic(chosen.token, chosen.key)) {
    const existing = (await credentials.list()).find((c) => c.token === chosen.token);
    if (!existing) await credentials.create({ name: 'From LANEWAY_API_TOKEN', token: chosen.token, key: chosen.key });
  }
  return undefined;
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
