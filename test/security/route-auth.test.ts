import { beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/server/routes';
import type { AnyRoute } from '../../src/server/route';
import { basicAuth, useHarness } from '../helpers/harness';

/**
 * Every operation of the API, over real HTTP: no credentials is 401, and each credential kind that
 * is not the operation's own is refused (403) before the handler runs. The roles' matrix is
 * test/server/roles.test.ts; this is the credential kinds' and the handlers' side.
 */
const h = useHarness({ api: true });

const op = (r: AnyRoute) => `${r.method.toUpperCase()} ${r.path}`;
const concrete = (path: string) => path.replace(/:([A-Za-z_]+)/g, 'X1');
const authed = allRoutes.filter((r) => r.auth !== false);

async function call(r: AnyRoute, auth: string | null): Promise<{ status: number; body: string }> {
  const hasBody = r.method !== 'get';
  const res = await fetch(`${h.api.url}${concrete(r.path)}`, {
    method: r.method.toUpperCase(),
    headers: { ...(auth ? { Authorization: auth } : {}), ...(hasBody ? { 'Content-Type': 'application/json' } : {}) },
    ...(hasBody ? { body: '{}' } : {}),
  });
  return { status: res.status, body: await res.text() };
}

const creds: Record<string, string> = {};

beforeAll(async () => {
  const { credentials } = h.t.engine.account;
  for (const kind of ['lane', 'partner'] as const) {
    const made = await credentials.create({ name: kind, kind });
    creds[kind] = basicAuth(made.token, made.key);
  }
  const merchant = await credentials.create({ name: 'merchant', kind: 'merchant', account: 'MERCHANT0001' });
  creds.merchant = basicAuth(merchant.token, merchant.key);
  const who = await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami');
  creds.apiJwt = `Bearer ${who.body.whoami.TESTTOKEN0001!.jwt}`;
});

describe('every operation checks credentials', () => {
  it('answers 401 without credentials, and with a wrong key', async () => {
    const open: string[] = [];
    for (const r of authed) {
      const none = await call(r, null);
      const wrong = await call(r, basicAuth('TESTTOKEN0001', 'not-the-key'));
      if (none.status !== 401 || wrong.status !== 401) open.push(`${op(r)} ${none.status}/${wrong.status}`);
    }
    expect(open).toEqual([]);
  });

  it('refuses a lane credential everywhere but sync replication', async () => {
    const admitted: string[] = [];
    for (const r of authed.filter((x) => x.scope !== 'sync')) {
      const res = await call(r, creds.lane!);
      if (res.status !== 403) admitted.push(`${op(r)} ${res.status}`);
    }
    expect(admitted).toEqual([]);
  });

  it('refuses a partner credential everywhere but onboarding', async () => {
    const admitted: string[] = [];
    for (const r of authed.filter((x) => x.scope !== 'onboarding')) {
      const res = await call(r, creds.partner!);
      if (res.status !== 403) admitted.push(`${op(r)} ${res.status}`);
    }
    expect(admitted).toEqual([]);
  });

  it("refuses a hosted merchant account's credential everywhere but whoami", async () => {
    const admitted: string[] = [];
    for (const r of authed.filter((x) => !x.anyAccount)) {
      const res = await call(r, creds.merchant!);
      if (res.status !== 403) admitted.push(`${op(r)} ${res.status}`);
    }
    expect(admitted).toEqual([]);
  });

  it('refuses the default api-scope JWT on credentials, users and settings', async () => {
    const admitted: string[] = [];
    for (const r of authed.filter((x) => x.scope === 'credentials' || x.scope === 'users' || x.scope === 'settings')) {
      const res = await call(r, creds.apiJwt!);
      if (res.status !== 403) admitted.push(`${op(r)} ${res.status}`);
    }
    expect(admitted).toEqual([]);
  });

  it('changes account settings only with the settings scope: the key, a JWT minted with it, an owner or a manager', async () => {
    const refused = await h.api.patch<{ code: string }>('/api/account', { capabilities: { gift_cards: false } }, creds.apiJwt!);
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
    expect(h.t.engine.account.profile().capabilities.gift_cards).toBe(true);
    const minted = await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami?options[jwt_scope]=api%20settings');
    expect(minted.status).toBe(200);
    const withSettings = `Bearer ${minted.body.whoami.TESTTOKEN0001!.jwt}`;
    expect((await h.api.patch('/api/account', { name: 'Renamed by a settings JWT' }, withSettings)).status).toBe(200);
    expect((await h.api.patch('/api/account', { name: 'Renamed by the key' })).status).toBe(200);
    // The default JWT cannot widen itself into one that holds settings.
    const widened = await h.api.get<{ code: string }>('/api/whoami?options[jwt_scope]=api%20settings', creds.apiJwt!);
    expect([widened.status, widened.body.code]).toEqual([403, 'insufficient_scope']);
  });

  it('sets the sync upstream only with a lasting credential, removes it with settings: no JWT can send the data elsewhere for good', async () => {
    const upstream = { url: 'http://127.0.0.1:9', token: 'UPSTREAM1', key: 'upstream-key-0123' };
    const refused = await h.api.put<{ code: string }>('/api/sync/upstream', upstream, creds.apiJwt!);
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
    expect((await h.api.get<{ upstream: unknown }>('/api/sync/upstream')).body.upstream).toBeNull();
    const minted = await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami?options[jwt_scope]=api%20settings');
    const withSettings = `Bearer ${minted.body.whoami.TESTTOKEN0001!.jwt}`;
    const minted403 = await h.api.put<{ code: string }>('/api/sync/upstream', upstream, withSettings);
    expect([minted403.status, minted403.body.code]).toEqual([403, 'insufficient_scope']);
    const full = `Bearer ${(await h.api.get<{ whoami: Record<string, { jwt: string }> }>('/api/whoami?options[jwt_scope]=api%20credentials%20settings')).body.whoami.TESTTOKEN0001!.jwt}`;
    const outlives = await h.api.put<{ code: string }>('/api/sync/upstream', upstream, full);
    expect([outlives.status, outlives.body.code]).toEqual([403, 'minted_jwt_cannot_create_credentials']);
    expect((await h.api.put('/api/sync/upstream', upstream)).status).toBe(200);
    expect((await h.api.delete<{ code: string }>('/api/sync/upstream', undefined, creds.apiJwt!)).status).toBe(403);
    expect((await h.api.get<{ upstream: { url: string } | null }>('/api/sync/upstream')).body.upstream?.url).toBe('http://127.0.0.1:9');
    // Stopping it is never what leaks data: a JWT holding settings may.
    expect((await h.api.delete('/api/sync/upstream', undefined, withSettings)).status).toBe(200);
  });
});

describe('the ecommerce API checks the shop credentials it is sent', () => {
  const session = (auth: { apiToken: string; apiKey: string } | undefined, header?: string) =>
    fetch(`${h.api.url}/api/v2/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(header ? { Authorization: header } : {}) },
      body: JSON.stringify({ ...(auth ? { gatewayAuthorization: auth } : {}), options: {} }),
    });

  it("refuses lane, partner and hosted merchant accounts' credentials, in the body or as HTTP Basic", async () => {
    const { credentials } = h.t.engine.account;
    for (const kind of ['lane', 'partner', 'merchant'] as const) {
      const made = await credentials.create({ name: `shop ${kind}`, kind, ...(kind === 'merchant' ? { account: 'MERCHANT0002' } : {}) });
      expect((await session({ apiToken: made.token, apiKey: made.key })).status, kind).toBe(403);
      expect((await session(undefined, basicAuth(made.token, made.key))).status, kind).toBe(403);
    }
    expect((await session({ apiToken: 'TESTTOKEN0001', apiKey: 'wrong' })).status).toBe(401);
    expect((await session(undefined)).status).toBe(401);
    expect((await session({ apiToken: 'TESTTOKEN0001', apiKey: 'test-key-0123456789abcdef' })).status).toBe(201);
  });

  it('accepts a key that holds a digit run shaped like a card number: a secret is compared as sent, never masked', async () => {
    // One random hex key in about 300 holds a Luhn-valid run like this one (4895281000000006).
    const made = await h.t.engine.account.credentials.create({ name: 'shop with an unlucky key', key: 'ab4895281000000006cd0123456789ef' });
    expect((await session({ apiToken: made.token, apiKey: made.key })).status).toBe(201);
    expect((await session(undefined, basicAuth(made.token, made.key))).status).toBe(201);
  });
});

