import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { openHarness, type Harness } from '../helpers/harness';
import { startSmtp, type SmtpRig } from '../helpers/smtp';
import { uid } from '../helpers/receivables';
import { buildOpenApi } from '../../src/server/openapi';
import { allRoutes } from '../../src/server/routes';

/**
 * Saving the relay tries it (connect, EHLO, AUTH; no message), and says what it found; the relay's
 * status is the outbox's truth, not its settings' hope; what queues mail names the messages queued.
 */
const PASSWORD = 'relay-pass-0123';
let h: Harness;
let smtp: SmtpRig;
let closedPort: number;

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function freePort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: 2_000, retryBaseMs: 1_000 } });
  smtp = await startSmtp('relay-user', PASSWORD);
  closedPort = await freePort();
});
afterAll(async () => {
  await smtp.close();
  await h.close();
});

type Check = { ok: boolean; reason: string | null; message: string; error: string | null; checked_at: string };
type Relay = { host: string; port: number; password_set: boolean; check: Check | null };
type Status = { state: string; last_attempt_at: string | null; last_error: string | null; next_retry_at: string | null; queued: number };
type Settings = { mode: string; relay: Relay | null; status: Status };
type Message = { id: string; to: string; state: string; attempts: number; error: string | null; last_attempt_at: string | null };

const save = (relay: Record<string, unknown>) => h.api.put<Relay>('/api/account/mail', { secure: false, from: 'ar@store.test', ...relay });
const settings = async () => (await h.api.get<Settings>('/api/account/mail')).body;
const HEADER = 'laneway-mail-messages';

async function invite(): Promise<{ email: string; ids: string[] }> {
  const identifier = uid('C');
  expect((await h.api.post('/api/imports/customer', { identifier, name: 'Acme Inc.' })).status).toBe(201);
  const email = `${uid('u').toLowerCase()}@acme.test`;
  const res = await h.api.post('/api/invitations', { identifier, email });
  expect([res.status, res.body]).toEqual([200, {}]);
  return { email, ids: (res.headers.get(HEADER) ?? '').split(',').filter(Boolean) };
}
const messages = async (ids: string[]) => (await h.api.get<{ messages: Message[] }>(`/api/notifications/outbox?limit=50&ids=${ids.join(',')}`)).body.messages;

describe('saving the relay tries it', () => {
  it('a working relay: connected, EHLO and AUTH accepted, no message sent; the status says working', async () => {
    const mails = smtp.mails.length;
    const res = await save({ host: '127.0.0.1', port: smtp.port, user: 'relay-user', password: PASSWORD });
    expect(res.status).toBe(200);
    // The fields the answer had before are as they were; `check` is added.
    expect(res.body).toMatchObject({ host: '127.0.0.1', port: smtp.port, password_set: true, check: { ok: true, reason: null, error: null } });
    expect(res.body.check!.message).toMatch(/answered.*relay-user/);
    expect(smtp.logins.at(-1)).toBe('relay-user');
    expect(smtp.mails.length).toBe(mails);
    expect((await settings()).status).toMatchObject({ state: 'working', last_error: null });
    // An invalid sender is refused before anything is tried: no connection, no AUTH.
    const logins = smtp.logins.length;
    expect((await save({ host: '127.0.0.1', port: smtp.port, user: 'relay-user', password: PASSWORD, from: 'not-an-address' })).status).toBe(400);
    expect(smtp.logins.length).toBe(logins);
  });

  it('a wrong password: saved, the check says auth', async () => {
    const res = await save({ host: '127.0.0.1', port: smtp.port, user: 'relay-user', password: 'not the password' });
    expect(res.status).toBe(200);
    expect(res.body.check).toMatchObject({ ok: false, reason: 'auth' });
    expect(res.body.check!.error).toMatch(/Invalid username or password/);
  });

  it('a closed port: saved anyway, the check says refused, fast; the status says failing', async () => {
    const started = performance.now();
    const res = await save({ host: '127.0.0.1', port: closedPort });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(res.status).toBe(200);
    expect(res.body.check).toMatchObject({ ok: false, reason: 'refused' });
    expect(res.body.check!.message).toMatch(new RegExp(`127\\.0\\.0\\.1:${closedPort}.*refused`));
    expect(res.body.check!.error).toMatch(/ECONNREFUSED/);
    const s = await settings();
    expect(s.mode).toBe('smtp');
    expect(s.relay).toMatchObject({ host: '127.0.0.1', port: closedPort, check: { ok: false, reason: 'refused' } });
    expect(s.status).toMatchObject({ state: 'failing' });
    expect(s.status.last_error).toMatch(/ECONNREFUSED/);
  });

  it('a host name that does not resolve: the check says dns', async () => {
    const res = await save({ host: 'relay.invalid', port: 587 });
    expect(res.status).toBe(200);
    expect(res.body.check).toMatchObject({ ok: false, reason: 'dns' });
    expect(res.body.check!.message).toMatch(/relay\.invalid does not resolve/);
  });

  it('a relay that accepts the connection but never greets: timeout, within the check\'s limit', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const started = performance.now();
      const res = await save({ host: '127.0.0.1', port: (silent.address() as AddressInfo).port });
      expect(performance.now() - started).toBeLessThan(4_500);
      expect(res.body.check).toMatchObject({ ok: false, reason: 'timeout' });
    } finally {
      silent.close();
    }
  });
});

describe('the status follows the deliveries, and what queues mail names its messages', () => {
  it('failing deliveries: failing, with the last error and the next try; then working once one is delivered', async () => {
    await save({ host: '127.0.0.1', port: closedPort });
    const { email, ids } = await invite();
    expect(ids).toHaveLength(1);
    // Named in the answer: queued, not yet delivered (the sender has not answered yet, or failed).
    await h.t.engine.notifications.drain();
    const [m] = await messages(ids);
    expect(m).toMatchObject({ id: ids[0], to: email, state: 'queued', attempts: 1 });
    expect(m!.last_attempt_at).toBeTruthy();
    const failing = (await settings()).status;
    expect(failing).toMatchObject({ state: 'failing', last_attempt_at: m!.last_attempt_at });
    expect(failing.last_error).toMatch(/ECONNREFUSED/);
    expect(failing.queued).toBeGreaterThanOrEqual(1);
    expect(Date.parse(failing.next_retry_at!)).toBeGreaterThan(Date.parse(m!.last_attempt_at!));

    // The relay fixed: the check worked, then the retry delivers; the status says working.
    const fixed = await save({ host: '127.0.0.1', port: smtp.port, user: 'relay-user', password: PASSWORD });
    expect(fixed.body.check!.ok).toBe(true);
    h.t.clock.advance(5_000);
    await h.t.engine.tick();
    await h.t.engine.notifications.drain();
    expect((await messages(ids))[0]).toMatchObject({ state: 'sent', attempts: 2 });
    expect((await settings()).status).toMatchObject({ state: 'working', last_error: null, queued: 0, next_retry_at: null });
  });

  it('a reminder and a direct message name their messages in a header; the counts are the reference\'s, unchanged', async () => {
    const identifier = uid('C');
    expect((await h.api.post('/api/imports/customer', { identifier, name: 'Acme Inc.', contacts: [{ email: 'a@acme.test', bulk_activate: true }, { email: 'b@acme.test', bulk_activate: true }] })).status).toBe(201);
    const number = uid('INV');
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: identifier, amount: 5_000 })).status).toBe(201);
    const one = await h.api.post<Record<string, number>>(`/api/notifications/remind/${number}`, {});
    expect(one.body).toEqual({ requested: 1, sent: 1, not_found: 0, suppressed: 0, invoice_suppressed: 0, not_invited: 0, paid: 0, draft: 0, credit: 0, scheduled: 0, on_plan: 0 });
    const ids = one.headers.get(HEADER)!.split(',');
    expect(ids).toHaveLength(2);
    expect((await messages(ids)).map((m) => m.to).sort()).toEqual(['a@acme.test', 'b@acme.test']);
    const none = await h.api.post<Record<string, number>>('/api/notifications/remind', { ids: ['NO-SUCH'] });
    expect([none.body.not_found, none.headers.get(HEADER)]).toEqual([1, '']);
    const dm = await h.api.post('/api/notifications/direct_message', { email: 'a@acme.test', object_type: 'invoice', object_identifier: number });
    expect([dm.status, dm.body]).toEqual([200, {}]);
    expect((await messages([dm.headers.get(HEADER)!]))[0]).toMatchObject({ to: 'a@acme.test' });
    // A suppressed customer's invitation is recorded, not e-mailed: no message named.
    const quiet = uid('C');
    await h.api.post('/api/imports/customer', { identifier: quiet, name: 'Quiet', notification_suppressed: true });
    expect((await h.api.post('/api/invitations', { identifier: quiet, email: 'q@acme.test' })).headers.get(HEADER)).toBe('');
  });

  it('the OpenAPI document describes the check, the status and the header', () => {
    const doc = buildOpenApi(allRoutes, { version: 'test', description: '' }) as { paths: Record<string, Record<string, { description?: string; responses: Record<string, { headers?: Record<string, unknown> }> }>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    expect(doc.paths['/api/account/mail']!.put!.description).toMatch(/Saving tries the relay.*`check`/s);
    expect(doc.components.schemas.MailRelay!.properties).toHaveProperty('check');
    expect(Object.keys(doc.components.schemas.MailRelayCheck!.properties!)).toEqual(['ok', 'reason', 'message', 'error', 'checked_at']);
    for (const [path, method] of [['/api/notifications/remind/{number_or_id}', 'post'], ['/api/notifications/remind', 'post'], ['/api/notifications/direct_message', 'post'], ['/api/invitations', 'post']] as const) {
      expect(doc.paths[path]![method]!.responses['200']!.headers, path).toHaveProperty('Laneway-Mail-Messages');
    }
  });
});
