import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { transportOptions } from '../../src/engine/notifications/transport';
import type { RelayConfig } from '../../src/engine/notifications/relay';
import { openHarness, type Harness } from '../helpers/harness';
import { startSmtp, type SmtpRig } from '../helpers/smtp';
import { uid } from '../helpers/receivables';

/**
 * The SMTP relay's password never crosses the network in clear: over plain TCP it is sent only
 * after STARTTLS, unless the relay is on this machine (a local relay, where nothing leaves it).
 */
const PASSWORD = 'relay-pass-0123';
let h: Harness;
let smtp: SmtpRig;
beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: 2_000, retryBaseMs: 1_000 } });
  smtp = await startSmtp('relay-user', PASSWORD, '0.0.0.0');
});
afterAll(async () => {
  await smtp.close();
  await h.close();
});

type Message = { to: string; state: string; transport: string | null; attempts: number; error: string | null };
const outbox = async () => (await h.api.get<{ messages: Message[] }>('/api/notifications/outbox?limit=50')).body.messages;

/** Queues one invitation e-mail and lets the sender try it; answers the outbox entry. */
async function sendOne(): Promise<Message> {
  const identifier = uid('C');
  expect((await h.api.post('/api/imports/customer', { identifier, name: 'Acme Inc.' })).status).toBe(201);
  const email = `${uid('u').toLowerCase()}@acme.test`;
  expect((await h.api.post('/api/invitations', { identifier, email })).status).toBe(200);
  await h.t.engine.notifications.drain();
  return (await outbox()).find((m) => m.to === email)!;
}

const relay = (host: string, extra: Partial<RelayConfig> = {}): RelayConfig => ({ host, port: 587, secure: false, user: 'relay-user', password: PASSWORD, from: 'ar@store.test', ...extra });

describe('the SMTP transport the relay gets', () => {
  it('requires TLS before AUTH when a password goes over plain TCP to a relay not on this machine', () => {
    for (const host of ['smtp.example.com', '10.0.0.25', '128.0.0.1', '::2', '::ffff:10.0.0.1', 'localhost.example.com', '127.0.0.1.example.com']) {
      const o = transportOptions(relay(host), 5_000);
      expect([o.requireTLS, o.auth], host).toEqual([true, { user: 'relay-user', pass: PASSWORD }]);
    }
  });

  it('leaves a local relay plaintext, TLS from the first byte alone, and a relay without credentials alone', () => {
    for (const host of ['127.0.0.1', '127.9.9.9', 'localhost', 'LOCALHOST.', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
      expect(transportOptions(relay(host), 5_000).requireTLS, host).toBeUndefined();
    }
    expect(transportOptions(relay('smtp.example.com', { port: 465, secure: true }), 5_000)).toMatchObject({ secure: true, auth: { user: 'relay-user' } });
    expect(transportOptions(relay('smtp.example.com', { port: 465, secure: true }), 5_000).requireTLS).toBeUndefined();
    const anonymous = transportOptions(relay('smtp.example.com', { user: '', password: '' }), 5_000);
    expect([anonymous.requireTLS, anonymous.auth]).toEqual([undefined, undefined]);
  });
});

describe('sending through the relay', () => {
  it('a loopback relay without STARTTLS still takes the password and the message', async () => {
    expect((await h.api.put('/api/account/mail', { host: '127.0.0.1', port: smtp.port, secure: false, user: 'relay-user', password: PASSWORD, from: 'ar@store.test' })).status).toBe(200);
    const before = smtp.mails.length;
    const m = await sendOne();
    expect(m).toMatchObject({ state: 'sent', transport: 'smtp', error: null });
    expect(smtp.mails.length).toBe(before + 1);
    expect(smtp.logins.at(-1)).toBe('relay-user');
  });

  // The same server reached by this machine's own network address is, to the rule, a relay elsewhere.
  const external = Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .find((i) => !i.internal && i.family === 'IPv4' && !i.address.startsWith('169.254.'))?.address;
  it.skipIf(!external)(`a relay elsewhere (${external}) that offers no STARTTLS never gets the password: the message stays queued, saying why`, async () => {
    expect((await h.api.put('/api/account/mail', { host: external, port: smtp.port, secure: false, user: 'relay-user', password: PASSWORD, from: 'ar@store.test' })).status).toBe(200);
    const logins = smtp.logins.length;
    const mails = smtp.mails.length;
    const m = await sendOne();
    expect(m).toMatchObject({ state: 'queued', transport: 'smtp', attempts: 1 });
    expect(m.error).toMatch(/did not set up TLS.*STARTTLS.*secure: true \(port 465\)/);
    expect(smtp.logins.length).toBe(logins);
    expect(smtp.mails.length).toBe(mails);
  });
});
