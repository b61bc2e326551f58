import { beforeAll, describe, expect, it } from 'vitest';
import { useHarness, TEST_TOKEN, type TestEngine, basicAuth, startApi, type ApiClient } from '../helpers/harness';
import { allRoutes } from '../../src/server/routes';
import { defineRoute } from '../../src/server/route';
import { startServer } from '../../src/server/http';

const h = useHarness({ api: true });
let t: TestEngine;
let api: ApiClient;

beforeAll(() => {
  ({ t, api } = h);
});

type WhoamiBody = { whoami: Record<string, { token: string; jwt: string; jwt_exp: number; divisions: unknown[]; name: string }> };

describe('HTTP core', () => {
  it('answers 401 {"error": ...} on every protected operation without valid credentials', async () => {
    const protectedRoutes = allRoutes.filter((r) => r.auth !== false);
    expect(protectedRoutes.length).toBeGreaterThan(3);
    for (const route of protectedRoutes) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, 'X1');
      for (const auth of [null, basicAuth(TEST_TOKEN, 'wrong-key'), 'Bearer not.a.jwt', 'Digest abc']) {
        const res = await fetch(`${api.url}${path}`, { method: route.method.toUpperCase(), headers: auth ? { Authorization: auth } : {} });
        expect(res.status, `${route.method} ${route.path} with ${auth}`).toBe(401);
        const body = (await res.json()) as { error: string };
        expect(typeof body.error).toBe('string');
      }
    }
  });

  it('GET /api/whoami answers the reference shape keyed by the API token, with a working JWT', async () => {
    const res = await api.get<WhoamiBody>('/api/whoami');
    expect(res.status).toBe(200);
    const entry = res.body.whoami[TEST_TOKEN]!;
    expect(entry.token).toBe(t.engine.account.profile().token);
    expect(Array.isArray(entry.divisions)).toBe(true);
    expect(entry.jwt_exp).toBe(Math.floor(t.clock.now() / 1000) + 30 * 86400);
    const viaJwt = await api.get<WhoamiBody>('/api/whoami', `Bearer ${entry.jwt}`);
    expect(viaJwt.status).toBe(200);
    expect(Object.keys(viaJwt.body.whoami)).toEqual([TEST_TOKEN]);
  });

  it('honours options[jwt_expiry] 1..365 and refuses values outside it', async () => {
    const five = await api.get<WhoamiBody>('/api/whoami?options[jwt_expiry]=5');
    expect(five.body.whoami[TEST_TOKEN]!.jwt_exp).toBe(Math.floor(t.clock.now() / 1000) + 5 * 86400);
    for (const bad of ['0', '366', 'abc', '1.5']) {
      const res = await api.get<{ error: string; code: string }>(`/api/whoami?options[jwt_expiry]=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toContain('options[jwt_expiry]');
    }
  });

  it('a credential disabled through the API fails at once, with its JWT', async () => {
    const created = await api.post<{ token: string; key: string }>('/api/account/credentials', { name: 'ERP' });
    expect(created.status).toBe(201);
    const auth = basicAuth(created.body.token, created.body.key);
    const who = await api.get<WhoamiBody>('/api/whoami', auth);
    expect(who.status).toBe(200);
    const jwt = who.body.whoami[created.body.token]!.jwt;
    const listed = await api.get<{ credentials: Array<{ token: string }> }>('/api/account/credentials');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect((await api.post(`/api/account/credentials/${created.body.token}/disable`)).status).toBe(200);
    expect((await api.get('/api/whoami', auth)).status).toBe(401);
    expect((await api.get('/api/whoami', `Bearer ${jwt}`)).status).toBe(401);
  });

  it('unknown routes answer 404 JSON; malformed JSON is 400; errors carry no stack trace', async () => {
    const missing = await fetch(`${api.url}/api/no/such/thing`, { headers: { Authorization: basicAuth() } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('route_not_found');
    const bad = await api.request<{ error: string; code: string }>('PATCH', '/api/account', { raw: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_json');
    expect(bad.text).not.toMatch(/at .*\.ts:\d+/);
  });

  it('validates input before any write and says which field is wrong', async () => {
    const before = t.engine.core.currentWatermark();
    const res = await api.patch<{ error: string; code: string; details: Array<{ field: string }> }>('/api/account', {
      processing_cutoff: '25:00',
      capabilities: { orders: 'yes' },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d) => d.field).sort()).toEqual(['capabilities.orders', 'processing_cutoff']);
    const cutoff = await api.patch<{ details: Array<{ field: string; message: string }> }>('/api/account', { processing_cutoff: '11 PM' });
    expect(cutoff.body.details).toMatchObject([{ field: 'processing_cutoff', message: 'processing_cutoff must be a time of day on the 24-hour clock, HH:MM (23:00 for 11 pm)' }]);
    // A city that is no zone's name is told what is: beside the field, with the zones like it.
    const zone = await api.patch<{ code: string; details: Array<{ field: string; message: string }> }>('/api/account', { timezone: 'Toronto' });
    expect(zone.body.code).toBe('invalid_timezone');
    expect(zone.body.details).toMatchObject([{ field: 'timezone', message: expect.stringContaining('such as America/Toronto') }]);
    // A format or an address rule is said in words (the back office shows these beside its fields).
    const address = await api.request<{ details: Array<{ field: string; message: string }> }>('PUT', '/api/sync/upstream', { body: { url: 'ftp://files.example.com', token: 'T', key: 'K' } });
    expect(address.status).toBe(400);
    expect(address.body.details).toMatchObject([{ field: 'url', message: 'url must start with https:// (or http://)' }]);
    const noScheme = await api.request<{ details: Array<{ field: string; message: string }> }>('PUT', '/api/sync/upstream', { body: { url: 'api.example.com', token: 'T', key: 'K' } });
    expect(noScheme.body.details.map((d) => d.message)).toContain('url must start with https:// (or http://)');
    const spaces = await api.request<{ details: Array<{ field: string; message: string }> }>('PUT', '/api/sync/upstream', { body: { url: 'http://not an address', token: 'T', key: 'K' } });
    expect(spaces.body.details.map((d) => d.message)).toEqual(['url must be a full address, such as https://api.example.com']);
    expect(t.engine.core.currentWatermark()).toBe(before);
  });

  it('turns capabilities on and off through the account settings', async () => {
    const res = await api.patch<{ capabilities: Record<string, boolean> }>('/api/account', { capabilities: { divisions_required: true } });
    expect(res.status).toBe(200);
    expect(res.body.capabilities.divisions_required).toBe(true);
    expect(t.engine.account.can('divisions_required')).toBe(true);
    await api.patch('/api/account', { capabilities: { divisions_required: false } });
  });

  it('refuses a body over the limit with 413 JSON', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) });
    const res = await api.request<{ code: string }>('PATCH', '/api/account', { raw: huge });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });
});

describe('rate limit', () => {
  it('past the per-IP limit answers 429 with code 1015, the text and Retry-After', async () => {
    const limited = await startApi(t.engine, { rateLimit: 5 });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 7; i++) {
        last = await fetch(`${limited.url}/api/whoami`, { headers: { Authorization: basicAuth() } });
        statuses.push(last.status);
        if (last.status === 429) break;
        await last.text();
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(last!.status).toBe(429);
      const body = (await last!.json()) as { error: string; code: number };
      expect(body).toMatchObject({ error: 'you are being rate limited', code: 1015 });
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('route dispatch', () => {
  it('answers each path with the route express would pick, whatever the spelling; limits and auth still apply', async () => {
    const named = (name: string, path: string, method: 'get' | 'post' = 'get', auth = true) =>
      defineRoute({ method, path, auth, operationId: name, tags: ['Test'], summary: name, responses: { 200: { description: 'ok' } }, handler: ({ params }) => ({ body: { name, params } }) });
    const routes = [
      named('byId', '/api/dispatch/:id'),
      // Registered after a parameter route whose pattern matches it: express answers it with byId.
      named('shadowed', '/api/dispatch/special'),
      named('list', '/api/dispatch'),
      named('create', '/api/dispatch', 'post'),
      named('open', '/api/dispatch-open', 'get', false),
    ];
    const server = await startServer(t.engine, { port: 0, rateLimit: 5, anonymousRateLimit: 3, routes });
    try {
      const call = async (method: string, path: string, auth: string | null = basicAuth()) => {
        const res = await fetch(`${server.url}${path}`, { method, headers: auth ? { Authorization: auth } : {} });
        return { status: res.status, body: (await res.json()) as { name?: string; params?: Record<string, string> } };
      };
      expect(await call('GET', '/api/dispatch/special')).toEqual({ status: 200, body: { name: 'byId', params: { id: 'special' } } });
      expect((await call('GET', '/api/dispatch')).body.name).toBe('list');
      expect((await call('GET', '/API/Dispatch/')).body.name).toBe('list');
      expect((await call('POST', '/api/dispatch?x=1')).body.name).toBe('create');
      expect((await call('GET', '/api/dispatch-open', null)).body.name).toBe('open');
      expect((await call('GET', '/api/dispatch', null)).status).toBe(401);
      expect((await call('DELETE', '/api/dispatch')).status).toBe(404);
      // Five authenticated requests spent the credential's budget; the open route, the 401 and the 404 spent the IP's.
      expect((await call('GET', '/api/dispatch')).status).toBe(200);
      expect((await call('GET', '/api/dispatch')).status).toBe(429);
      expect((await call('GET', '/api/dispatch-open', null)).status).toBe(429);
    } finally {
      await server.close();
    }
  });
});
