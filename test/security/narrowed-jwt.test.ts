import { describe, expect, it } from 'vitest';
import { authorizeLasting, KEY_SCOPES, type Principal } from '../../src/engine/account';
import { basicAuth, useHarness } from '../helpers/harness';

/**
 * A JWT narrowed with `options[jwt_scope]` (or any JWT GET /api/whoami mints) holds the scopes it
 * was given and no more, for as long as it lives: it cannot leave behind a credential that is
 * wider or lives longer. Before, a one-day JWT narrowed to `credentials` made a permanent API key
 * holding `api credentials users settings`, which then read the users.
 */
const h = useHarness({ api: true });

interface Whoami {
  whoami: Record<string, { jwt: string; jwt_exp: number }>;
}
interface Refusal {
  code: string;
  error: string;
}

const mint = async (auth: string, scope: string) => {
  const res = await h.api.get<Whoami>(`/api/whoami?options[jwt_expiry]=1&options[jwt_scope]=${encodeURIComponent(scope)}`, auth);
  expect(res.status).toBe(200);
  return `Bearer ${Object.values(res.body.whoami)[0]!.jwt}`;
};

const ownerSession = async () => {
  const users = h.t.engine.users;
  const existing = users.list().find((u) => u.email === 'boss@example.com');
  if (!existing) {
    const { link } = await users.create({ email: 'boss@example.com', role: 'owner' });
    await users.redeemLink(link, 'boss password 1');
  }
  const res = await h.api.post<{ jwt: string }>('/api/session', { email: 'boss@example.com', password: 'boss password 1' }, null);
  expect(res.status).toBe(200);
  return `Bearer ${res.body.jwt}`;
};

const credentialCount = async () => (await h.api.get<{ credentials: unknown[] }>('/api/account/credentials')).body.credentials.length;

describe('a narrowed JWT leaves nothing wider or longer-lived than itself', () => {
  it('a JWT the key narrows to credentials cannot create an API key (or any credential)', async () => {
    const before = await credentialCount();
    const narrowed = await mint(basicAuth(), 'credentials');
    const made = await h.api.post<Refusal>('/api/account/credentials', {}, narrowed);
    expect([made.status, made.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    expect(made.body.error).toContain('would outlive it');
    expect((await h.api.post<Refusal>('/api/account/credentials', { kind: 'partner' }, narrowed)).status).toBe(403);
    // Even a JWT holding every scope of the key: it expires, a key it made would not.
    const full = await mint(basicAuth(), 'api credentials users settings');
    expect((await h.api.post<Refusal>('/api/account/credentials', { name: 'from a JWT' }, full)).body.code).toBe('minted_jwt_cannot_create_credentials');
    expect(await credentialCount()).toBe(before);
    // It still lists and disables credentials, as its scope says; the key still creates them.
    expect((await h.api.get('/api/account/credentials', narrowed)).status).toBe(200);
    const byKey = await h.api.post<{ token: string }>('/api/account/credentials', { name: 'by the key' });
    expect(byKey.status).toBe(201);
    expect((await h.api.post(`/api/account/credentials/${byKey.body.token}/disable`, undefined, narrowed)).status).toBe(200);
  });

  it("an owner's JWT narrowed to credentials cannot create a key, and its refusals say it was narrowed", async () => {
    const session = await ownerSession();
    const narrowed = await mint(session, 'credentials');
    const before = await credentialCount();
    const made = await h.api.post<Refusal>('/api/account/credentials', {}, narrowed);
    expect([made.status, made.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    expect(await credentialCount()).toBe(before);
    const users = await h.api.get<Refusal>('/api/users', narrowed);
    expect([users.status, users.body.code]).toEqual([403, 'insufficient_scope']);
    expect(users.body.error).toContain('narrowed to the scopes credentials and lacks users');
    expect(users.body.error).not.toContain('Your role (owner) may not');
    // The owner's own session makes keys, as the Account screen does.
    expect((await h.api.post('/api/account/credentials', { name: 'by the owner' }, session)).status).toBe(201);
  });

  it('nor a lane pairing code, a user, a sign-in link or a wider role', async () => {
    const session = await ownerSession();
    const narrowed = await mint(session, 'api credentials users settings');
    const pairing = await h.api.post<Refusal>('/api/sync/pairing-codes', { laneid: '41' }, narrowed);
    expect([pairing.status, pairing.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    const invite = await h.api.post<Refusal>('/api/users', { email: 'mallory@example.com', role: 'owner' }, narrowed);
    expect([invite.status, invite.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    expect(h.t.engine.users.list().some((u) => u.email === 'mallory@example.com')).toBe(false);
    const { user } = await h.t.engine.users.create({ email: 'helper@example.com', role: 'cashier' });
    expect((await h.api.patch<Refusal>(`/api/users/${user.id}`, { role: 'owner' }, narrowed)).body.code).toBe('minted_jwt_cannot_create_credentials');
    expect((await h.api.post<Refusal>(`/api/users/${user.id}/link`, undefined, narrowed)).body.code).toBe('minted_jwt_cannot_create_credentials');
    expect(h.t.engine.users.get(user.id).role).toBe('cashier');
    // Renaming or disabling hands nothing out: still allowed to it.
    expect((await h.api.patch(`/api/users/${user.id}`, { name: 'Helper', enabled: false }, narrowed)).status).toBe(200);
    // The owner's session and the key do all of these.
    expect((await h.api.post('/api/sync/pairing-codes', { laneid: '41' }, session)).status).toBe(201);
    expect((await h.api.post(`/api/users/${user.id}/link`, undefined, session)).status).toBe(200);
    expect((await h.api.patch(`/api/users/${user.id}`, { role: 'clerk' })).status).toBe(200);
  });

  it('nor a webhook endpoint, which would go on receiving the records after it expires', async () => {
    const hooks = async () => (await h.api.get<{ endpoints: Array<{ id: string; url: string; enabled: boolean }> }>('/api/account/webhooks')).body.endpoints;
    const before = (await hooks()).length;
    const narrowed = await mint(basicAuth(), 'api credentials');
    const added = await h.api.post<Refusal>('/api/account/webhooks', { url: 'https://collector.example/hook' }, narrowed);
    expect([added.status, added.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    expect((await hooks()).length).toBe(before);
    // The key adds one; the JWT may not point it elsewhere, widen it or turn it on, but may turn it off.
    const made = await h.api.post<{ endpoint: { id: string } }>('/api/account/webhooks', { url: 'https://erp.example/hook', events: ['invoice.created'] });
    expect(made.status).toBe(201);
    const id = made.body.endpoint.id;
    expect((await h.api.patch<Refusal>(`/api/account/webhooks/${id}`, { url: 'https://collector.example/hook' }, narrowed)).body.code).toBe('minted_jwt_cannot_create_credentials');
    expect((await h.api.patch<Refusal>(`/api/account/webhooks/${id}`, { events: ['invoice.created', 'customer.created'] }, narrowed)).body.code).toBe('minted_jwt_cannot_create_credentials');
    expect((await h.api.patch(`/api/account/webhooks/${id}`, { enabled: false, description: 'paused' }, narrowed)).status).toBe(200);
    expect((await h.api.patch<Refusal>(`/api/account/webhooks/${id}`, { enabled: true }, narrowed)).body.code).toBe('minted_jwt_cannot_create_credentials');
    expect((await hooks()).find((e) => e.id === id)).toMatchObject({ url: 'https://erp.example/hook', enabled: false });
    // An owner's own session does all of it.
    const session = await ownerSession();
    expect((await h.api.patch(`/api/account/webhooks/${id}`, { enabled: true }, session)).status).toBe(200);
    expect((await h.api.delete(`/api/account/webhooks/${id}`, narrowed)).status).toBeLessThan(300);
  });

  it('nor a sync upstream, which would go on receiving the records (and sending its own) after it expires; nor a manager', async () => {
    const upstream = async () => (await h.api.get<{ upstream: { url: string } | null }>('/api/sync/upstream')).body.upstream;
    const target = { url: 'https://collector.example.test', token: 'T', key: 'K' };
    const narrowed = await mint(basicAuth(), 'api credentials settings');
    const set = await h.api.put<Refusal>('/api/sync/upstream', target, narrowed);
    expect([set.status, set.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    // A manager holds settings, not credentials: it reads the upstream, never points it anywhere.
    const users = h.t.engine.users;
    const { link } = await users.create({ email: 'desk@example.com', role: 'manager' });
    await users.redeemLink(link, 'desk password 1');
    const manager = `Bearer ${(await h.api.post<{ jwt: string }>('/api/session', { email: 'desk@example.com', password: 'desk password 1' }, null)).body.jwt}`;
    expect((await h.api.put('/api/sync/upstream', target, manager)).status).toBe(403);
    expect(await upstream()).toBeNull();
    // The owner's own session sets it; a manager may read it and stop it.
    expect((await h.api.put('/api/sync/upstream', { ...target, url: 'https://erp.example.test' }, await ownerSession())).status).toBe(200);
    expect((await h.api.get<{ upstream: { url: string } }>('/api/sync/upstream', manager)).body.upstream.url).toBe('https://erp.example.test');
    // A clerk does not read it: its token is another service's credential.
    const clerkLink = (await users.create({ email: 'clerk@example.com', role: 'clerk' })).link;
    await users.redeemLink(clerkLink, 'clerk password 1');
    const clerk = `Bearer ${(await h.api.post<{ jwt: string }>('/api/session', { email: 'clerk@example.com', password: 'clerk password 1' }, null)).body.jwt}`;
    expect((await h.api.get('/api/sync/upstream', clerk)).status).toBe(403);
    expect((await h.api.delete('/api/sync/upstream', undefined, manager)).status).toBe(200);
    expect(await upstream()).toBeNull();
  });

  it('no API key or session makes a partner credential: it holds onboarding, which they lack (support makes them)', async () => {
    const before = await credentialCount();
    for (const [who, auth] of [['the key', basicAuth()], ["the owner's session", await ownerSession()]] as const) {
      const made = await h.api.post<Refusal>('/api/account/credentials', { name: 'Self-made partner', kind: 'partner' }, auth);
      expect([made.status, made.body.code], who).toEqual([403, 'insufficient_scope']);
      expect(made.body.error, who).toContain('lacks onboarding');
      expect(made.body.error, who).toContain('new-credentials --kind partner');
    }
    expect(await credentialCount()).toBe(before);
    // The install's own command (no caller) still makes one, and the key still makes API keys.
    expect(() => authorizeLasting(undefined, 'a partner credential', ['onboarding'])).not.toThrow();
    expect((await h.api.post('/api/account/credentials', { name: 'another key' })).status).toBe(201);
  });

  it('no credential makes one holding a scope it lacks', () => {
    const partial: Principal = { credential: 'T', via: 'basic', scopes: ['api', 'credentials'] };
    expect(() => authorizeLasting(partial, 'an API key', KEY_SCOPES)).toThrow(expect.objectContaining({ code: 'insufficient_scope', message: expect.stringContaining('lacks users, settings') }));
    // A lane's `sync` needs everything the key holds; a partner's `onboarding`, held by no caller, is beyond even the key.
    expect(() => authorizeLasting(partial, 'a pairing code', ['sync'])).toThrow(expect.objectContaining({ code: 'insufficient_scope' }));
    const key: Principal = { credential: 'T', via: 'basic', scopes: KEY_SCOPES };
    expect(() => authorizeLasting(key, 'a pairing code', ['sync'])).not.toThrow();
    expect(() => authorizeLasting(key, 'a partner credential', ['onboarding'])).toThrow(expect.objectContaining({ code: 'insufficient_scope' }));
    expect(() => authorizeLasting(key, 'a sign-in link for a new owner', ['api', 'credentials', 'users', 'read', 'collect', 'manage', 'money', 'settings', 'register'])).not.toThrow();
    const manager: Principal = { credential: 'user:M', via: 'jwt', scopes: ['read', 'collect', 'manage', 'money', 'settings', 'register'], user: { id: 'M', email: 'm@example.com', name: 'M', role: 'manager' } };
    expect(() => authorizeLasting(manager, 'a sign-in link for a new owner', ['api', 'credentials', 'users'])).toThrow(expect.objectContaining({ code: 'insufficient_scope' }));
    expect(() => authorizeLasting(manager, 'a sign-in link for a new clerk', ['read', 'collect'])).not.toThrow();
  });
});
