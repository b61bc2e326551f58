import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, roleAllows, type Role } from '../../src/engine/account/roles';
import { allRoutes } from '../../src/server/routes';
import { basicAuth, useHarness } from '../helpers/harness';
import { admits } from '../helpers/roles';
import { grantsOf } from '../../src/server/role-grants';
import { card as gatewayCard, VISA } from '../helpers/cards';
import { uid } from '../helpers/receivables';
import { readEvents } from '../helpers/sse';
import { putRecord } from '../../src/engine/records';

/**
 * Roles are scopes: every operation of the API, for every role, admitted or refused by the one
 * `authorize` the server runs; then the same rules over HTTP with real sessions.
 */
const h = useHarness({ api: true });

const op = (r: (typeof allRoutes)[number]) => `${r.method.toUpperCase()} ${r.path}`;
// Onboarding and sync belong to partner and lane credentials (credential kinds), never to a user.
const kindOnly = (r: (typeof allRoutes)[number]) => r.scope === 'onboarding' || r.scope === 'sync';
const authed = allRoutes.filter((r) => r.auth !== false);
const writes = authed.filter((r) => r.method !== 'get');

describe('role rules over every operation', () => {
  it('the owner may do everything', () => {
    expect(authed.filter((r) => !admits('owner', r) && !kindOnly(r)).map(op)).toEqual([]);
    expect(authed.filter((r) => kindOnly(r) && admits('owner', r)).map(op)).toEqual([]);
  });

  it('managers move money, refund and change settings, but never manage users or API credentials', () => {
    const refused = authed.filter((r) => !admits('manager', r)).map(op);
    expect(refused.sort()).toEqual(authed.filter((r) => r.scope === 'users' || r.scope === 'credentials' || kindOnly(r)).map(op).sort());
    for (const path of ['/api/gateway/v1/orders/refund', '/api/gateway/v1/orders/capture', '/api/gateway/v1/orders/void', '/api/account', '/api/lanes', '/api/pos/products']) {
      expect(writes.filter((r) => r.path === path).every((r) => admits('manager', r)), path).toBe(true);
    }
  });

  it('clerks read and collect (payments, invitations, reminders, disputes and comments), nothing else', () => {
    const allowed = writes.filter((r) => admits('clerk', r)).map(op).sort();
    expect(allowed).toEqual([
      'DELETE /api/invitations',
      // Signing out (every role may end its own sessions).
      'DELETE /api/session',
      'POST /api/customers/:identifier/comments',
      'POST /api/imports/payment',
      'POST /api/invitations',
      'POST /api/invoices/:invoice_number/comments',
      'POST /api/invoices/:invoice_number/disputes',
      'POST /api/invoices/:invoice_number/disputes/close',
      'POST /api/notifications/direct_message',
      'POST /api/notifications/remind',
      'POST /api/notifications/remind/:number_or_id',
      'POST /api/receivables/payments/:reference/applications',
    ]);
    // Reads: every read but users, credentials, a card file's tokens (what charges those cards), and
    // webhook endpoints with their delivery log (URLs that often carry a receiver's token), and the
    // sync upstream (another service's API token).
    const reads = authed.filter((r) => r.method === 'get' && !kindOnly(r));
    expect(reads.filter((r) => !admits('clerk', r)).map(op).sort()).toEqual([
      'GET /api/account/credentials',
      'GET /api/account/webhooks',
      'GET /api/developers/webhook_responses',
      'GET /api/exports/wallets',
      'GET /api/exports/wallets/recent',
      'GET /api/imports/:id/echo',
      'GET /api/sync/upstream',
      'GET /api/users',
    ]);
  });

  it('cashiers work the register only: its sales, shifts and terminal, and read the register', () => {
    const allowed = authed.filter((r) => admits('cashier', r));
    for (const r of allowed) expect(op(r)).toMatch(/^(GET \/api\/(pos|lanes|events|whoami|session|sync\/status)|DELETE \/api\/session$|POST \/api\/pos\/(shifts|sales|registers)|PATCH \/api\/pos\/sales|POST \/api\/gateway\/v1\/terminal$)/);
    expect(allowed.map(op)).toContain('POST /api/pos/sales/:sale/refunds');
    expect(allowed.map(op)).not.toContain('GET /api/exports/customers');
    expect(allowed.map(op)).not.toContain('PATCH /api/pos/products/:code');
  });

  it('the screens ask the same question (roleAllows) and get the same answer', () => {
    for (const role of ROLES) for (const r of authed.filter((x) => (x.scope ?? 'api') === 'api')) expect(roleAllows(role, grantsOf(r)), `${role} ${op(r)}`).toBe(admits(role, r));
  });
});

type Session = { jwt: string; user: { id: string; role: string }; scopes: string[] };

describe('roles over HTTP', () => {
  const sessions: Partial<Record<Role, string>> = {};
  const ownerAuth = () => `Bearer ${sessions.owner}`;

  beforeAll(async () => {
    const owner = h.t.engine.users.owner()!;
    const { link } = await h.t.engine.users.newLink(owner.id);
    const s = await h.api.post<Session>('/api/session/link', { link, password: 'owner password', email: 'owner@example.com' }, null);
    expect(s.status).toBe(200);
    sessions.owner = s.body.jwt;
    for (const role of ['manager', 'clerk', 'cashier'] as const) {
      const made = await h.api.post<{ link: string; user: { id: string } }>('/api/users', { email: `${role}@example.com`, role }, ownerAuth());
      expect(made.status).toBe(201);
      const signed = await h.api.post<Session>('/api/session/link', { link: made.body.link, password: `${role} password` }, null);
      sessions[role] = signed.body.jwt;
    }
  });

  it('signs in by e-mail and password; the session names the role and its grants', async () => {
    const res = await h.api.post<Session>('/api/session', { email: 'clerk@example.com', password: 'clerk password' }, null);
    expect(res.status).toBe(200);
    expect(res.body.user.role).toBe('clerk');
    expect(res.body.scopes).toEqual(['read', 'collect']);
    const me = await h.api.get<Session>('/api/session', `Bearer ${res.body.jwt}`);
    expect(me.body.user.role).toBe('clerk');
    expect((await h.api.post('/api/session', { email: 'clerk@example.com', password: 'nope' }, null)).status).toBe(401);
    // The API key is no user.
    expect((await h.api.get('/api/session', basicAuth())).status).toBe(403);
  });

  it('a clerk records new payments but may not rewrite a recorded one (which would reopen its invoice)', async () => {
    const clerk = `Bearer ${sessions.clerk}`;
    const c = uid('C');
    const number = uid('INV');
    const cheque = uid('CHQ');
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: c, amount: 10000 }, basicAuth())).status).toBe(201);
    expect((await h.api.post('/api/imports/payment', { identifier: cheque, invoice_number: number, amount_cents: 10000, customer_identifier: c }, clerk)).status).toBe(201);
    const paid = await h.api.get<{ status: string; owing_cents: number }>(`/api/exports/invoice/${number}`);
    expect([paid.body.status, paid.body.owing_cents]).toEqual(['PAID', 0]);
    for (const rewrite of [
      { identifier: cheque, amount_cents: 1, customer_identifier: c, payment_amounts_attributes: [] },
      { identifier: cheque, amount_cents: 10000, customer_identifier: c, invoice_number: number },
    ]) {
      const res = await h.api.post<{ code: string; error: string }>('/api/imports/payment', rewrite, clerk);
      expect([res.status, res.body.code]).toEqual([403, 'role_forbidden']);
      expect(res.body.error).toContain('already recorded');
    }
    const after = await h.api.get<{ status: string; owing_cents: number }>(`/api/exports/invoice/${number}`);
    expect([after.body.status, after.body.owing_cents]).toEqual(['PAID', 0]);
    const payment = await h.api.get<{ payment_amount: string }>(`/api/exports/payment/${cheque}`);
    expect(payment.body.payment_amount).toBe('100.00');
    // A manager may change it.
    expect((await h.api.post('/api/imports/payment', { identifier: cheque, amount_cents: 9000, customer_identifier: c, invoice_number: number }, `Bearer ${sessions.manager}`)).status).toBe(201);
    expect((await h.api.get<{ owing_cents: number }>(`/api/exports/invoice/${number}`)).body.owing_cents).toBe(1000);
  });

  it('a clerk records a payment but may not void, change settings or add users', async () => {
    const clerk = `Bearer ${sessions.clerk}`;
    const c = uid('C');
    const number = uid('INV');
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: c, amount: 5000 }, basicAuth())).status).toBeLessThan(300);
    expect((await h.api.post('/api/imports/payment', { identifier: uid('CHQ'), invoice_number: number, amount_cents: 1200, customer_identifier: c }, clerk)).status).toBe(201);
    expect((await h.api.get(`/api/exports/invoice/${number}`, clerk)).status).toBe(200);
    const sale = await h.api.post<{ transaction: string }>('/api/gateway/v1/orders/sale', { amount_cents: 1300, credit_card: gatewayCard(VISA) }, basicAuth());
    const voided = await h.api.post<{ code: string }>('/api/gateway/v1/orders/void', { transaction: sale.body.transaction }, clerk);
    expect([voided.status, voided.body.code]).toEqual([403, 'role_forbidden']);
    expect((await h.api.patch('/api/account', { name: 'Nope' }, clerk)).status).toBe(403);
    expect((await h.api.post('/api/users', { email: 'x@example.com', role: 'owner' }, clerk)).status).toBe(403);
    expect((await h.api.post('/api/imports/customer', { identifier: uid('C') }, clerk)).status).toBe(403);
    // Nor by way of a payment naming a customer not on file (the payment would create it).
    const stranger = uid('C');
    const made = await h.api.post<{ code: string; error: string }>('/api/imports/payment', { identifier: uid('CHQ'), amount_cents: 100, customer_identifier: stranger, customer_name: 'Made by a clerk' }, clerk);
    expect([made.status, made.body.code]).toEqual([403, 'customer_not_on_file']);
    expect(made.body.error).toContain('owner or a manager');
    expect((await h.api.get(`/api/exports/customer/${stranger}`)).status).toBe(404);
    // A manager may.
    expect((await h.api.post('/api/imports/payment', { identifier: uid('CHQ'), amount_cents: 100, customer_identifier: stranger }, `Bearer ${sessions.manager}`)).status).toBe(201);
    expect((await h.api.get('/api/imports/1/echo', clerk)).status).toBe(403);
    expect((await h.api.get('/api/imports/1/echo', `Bearer ${sessions.manager}`)).status).toBe(404);
    // A manager voids it.
    const byManager = await h.api.post<{ success: boolean }>('/api/gateway/v1/orders/void', { transaction: sale.body.transaction }, `Bearer ${sessions.manager}`);
    expect(byManager.status).toBe(200);
    expect(byManager.body.success).toBe(true);
  });

  it('a cashier reaches the register and nothing of the back office', async () => {
    const cashier = `Bearer ${sessions.cashier}`;
    expect((await h.api.get('/api/pos/products', cashier)).status).toBe(200);
    expect((await h.api.get<Session>('/api/session', cashier)).body.scopes).toEqual(['register']);
    expect((await h.api.get('/api/lanes', cashier)).status).toBe(200);
    expect((await h.api.get('/api/exports/customers', cashier)).status).toBe(403);
    expect((await h.api.post('/api/gateway/v1/orders/sale', { amount_cents: 100, credit_card: gatewayCard(VISA) }, cashier)).status).toBe(403);
  });

  it("a cashier's event stream carries the register's events only; a clerk's every event but the vault's; a clerk may not export every wallet's tokens", async () => {
    const from = h.t.engine.core.currentWatermark();
    const change = (entity: string, key: string) => h.t.engine.core.mutate((tx) => putRecord(tx, 'note', key, { key }, { type: `${entity}.updated`, entity, key }));
    const stream = async (auth: string, count: number) => {
      const controller = new AbortController();
      const res = await fetch(`${h.api.url}/api/events?watermark=${from}`, { headers: { Authorization: auth }, signal: controller.signal });
      expect(res.status).toBe(200);
      const got = await readEvents(res, count);
      controller.abort();
      return got.map((e) => e.key);
    };
    await change('customer', 'ev-customer');
    await change('pos_sale', 'ev-sale');
    await change('fund', 'ev-fund');
    await change('lane', 'ev-lane');
    await change('user', 'ev-user');
    await change('pos_shift', 'ev-shift');
    expect(await stream(`Bearer ${sessions.cashier}`, 3)).toEqual(['ev-sale', 'ev-lane', 'ev-shift']);
    // A clerk: every event but those whose keys are tokens that charge (a fund's).
    expect(await stream(`Bearer ${sessions.clerk}`, 5)).toEqual(['ev-customer', 'ev-sale', 'ev-lane', 'ev-user', 'ev-shift']);
    expect(await stream(`Bearer ${sessions.manager}`, 6)).toEqual(['ev-customer', 'ev-sale', 'ev-fund', 'ev-lane', 'ev-user', 'ev-shift']);
    // A manager refused the users list is told what it needs: the users grant, not read (which they hold).
    const users = await h.api.get<{ error: string }>('/api/users', `Bearer ${sessions.manager}`);
    expect(users.status).toBe(403);
    expect(users.body.error).toBe('Your role (manager) may not do this: the owner may. Ask the owner.');
    for (const path of ['/api/exports/wallets', '/api/exports/wallets/recent']) {
      expect((await h.api.get(path, `Bearer ${sessions.clerk}`)).status, path).toBe(403);
      expect((await h.api.get(path, `Bearer ${sessions.manager}`)).status, path).toBe(200);
    }
  });

  it('a password set again by a new link ends the sessions made before it; the new one works', async () => {
    const before = `Bearer ${sessions.cashier}`;
    expect((await h.api.get('/api/session', before)).status).toBe(200);
    const id = (await h.api.get<{ users: Array<{ id: string; email: string }> }>('/api/users', ownerAuth())).body.users.find((u) => u.email === 'cashier@example.com')!.id;
    const { link } = (await h.api.post<{ link: string }>(`/api/users/${id}/link`, {}, ownerAuth())).body;
    // Issued, not used yet: nothing ends.
    expect((await h.api.get('/api/session', before)).status).toBe(200);
    // JWTs carry whole seconds: the reset comes seconds after the session it ends.
    h.t.clock.advance(2000);
    const again = await h.api.post<Session>('/api/session/link', { link, password: 'a new cashier password' }, null);
    expect(again.status).toBe(200);
    expect((await h.api.get('/api/session', before)).status).toBe(401);
    expect((await h.api.get('/api/session', `Bearer ${again.body.jwt}`)).status).toBe(200);
    sessions.cashier = again.body.jwt;
  });

  it("changing a user's role changes what their live session may do; disabling ends it; the last owner stays", async () => {
    const manager = `Bearer ${sessions.manager}`;
    const id = (await h.api.get<{ users: Array<{ id: string; email: string }> }>('/api/users', ownerAuth())).body.users.find((u) => u.email === 'manager@example.com')!.id;
    expect((await h.api.patch('/api/account', { name: 'Mgr shop' }, manager)).status).toBe(200);
    expect((await h.api.patch(`/api/users/${id}`, { role: 'clerk' }, ownerAuth())).status).toBe(200);
    expect((await h.api.patch('/api/account', { name: 'Mgr shop 2' }, manager)).status).toBe(403);
    expect((await h.api.patch(`/api/users/${id}`, { enabled: false }, ownerAuth())).status).toBe(200);
    expect((await h.api.get('/api/lanes', manager)).status).toBe(401);
    const ownerId = h.t.engine.users.owner()!.id;
    const last = await h.api.patch<{ code: string }>(`/api/users/${ownerId}`, { role: 'clerk' }, ownerAuth());
    expect([last.status, last.body.code]).toEqual([409, 'last_owner']);
  });

  it('API credentials keep working as before, users API included', async () => {
    expect((await h.api.get('/api/users', basicAuth())).status).toBe(200);
    expect((await h.api.get('/api/exports/customers', basicAuth())).status).toBe(200);
  });

  it('signing out (DELETE /api/session) ends the session, every copy of it and the JWTs refreshed from it, not the user\'s other sessions; a key is told to disable its credential', async () => {
    const cashier = `Bearer ${sessions.cashier}`;
    const other = await h.api.post<Session>('/api/session', { email: 'cashier@example.com', password: 'a new cashier password' }, null);
    const refreshed = await h.api.get<Session>('/api/session', cashier);
    expect(refreshed.status).toBe(200);
    const again = `Bearer ${refreshed.body.jwt}`;
    expect(again).not.toBe(cashier);
    expect((await h.api.get('/api/lanes', again)).status).toBe(200);
    expect((await h.api.delete('/api/session', undefined, cashier)).status).toBe(200);
    expect((await h.api.get('/api/session', cashier)).status).toBe(401);
    expect((await h.api.get('/api/lanes', cashier)).status).toBe(401);
    // A JWT refreshed from the session is the same session: whoever took one cannot go on after sign-out.
    expect((await h.api.get('/api/lanes', again)).status).toBe(401);
    expect((await h.api.get('/api/session', again)).status).toBe(401);
    expect((await h.api.get('/api/session', `Bearer ${other.body.jwt}`)).status).toBe(200);
    const key = await h.api.delete<{ code: string }>('/api/session', undefined, basicAuth());
    expect([key.status, key.body.code]).toEqual([403, 'not_a_user']);
    const back = await h.api.post<Session>('/api/session', { email: 'cashier@example.com', password: 'a new cashier password' }, null);
    expect((await h.api.get('/api/session', `Bearer ${back.body.jwt}`)).status).toBe(200);
  });

  it("a JWT a user's session mints with jwt_scope holds only what it was given, does not renew into a session, and ends with the session's sign-out", async () => {
    const session = (await h.api.post<Session>('/api/session', { email: 'owner@example.com', password: 'owner password' }, null)).body.jwt;
    expect(session).toBeTruthy();
    const mint = async (scope: string) => (await h.api.get<{ whoami: Record<string, { jwt: string }> }>(`/api/whoami?options[jwt_scope]=${encodeURIComponent(scope)}`, `Bearer ${session}`)).body.whoami;
    const readOnly = `Bearer ${Object.values(await mint('read'))[0]!.jwt}`;
    expect((await h.api.get('/api/exports/customers', readOnly)).status).toBe(200);
    // The owner's role makes API keys and users; a read-only JWT of theirs does not.
    expect((await h.api.get('/api/users', readOnly)).status).toBe(403);
    expect((await h.api.post('/api/account/credentials', { name: 'from a read-only JWT' }, readOnly)).status).toBe(403);
    expect((await h.api.patch('/api/account', { name: 'read-only' }, readOnly)).status).toBe(403);
    const renew = await h.api.get<{ code: string }>('/api/session', readOnly);
    expect([renew.status, renew.body.code]).toEqual([403, 'not_a_session']);
    // Minted with every grant of the role: it still ends when the session it came from signs out.
    const wide = `Bearer ${Object.values(await mint('api credentials users'))[0]!.jwt}`;
    expect((await h.api.get('/api/users', wide)).status).toBe(200);
    expect((await h.api.delete('/api/session', undefined, `Bearer ${session}`)).status).toBe(200);
    expect((await h.api.get('/api/users', wide)).status).toBe(401);
    expect((await h.api.post('/api/account/credentials', { name: 'after sign-out' }, wide)).status).toBe(401);
    expect((await h.api.get('/api/exports/customers', readOnly)).status).toBe(401);
  });
});
