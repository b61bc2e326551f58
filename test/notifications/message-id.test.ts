import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { openHarness, type Harness } from '../helpers/harness';
import { uid } from '../helpers/receivables';
import { putRecord } from '../../src/engine/records';
import { MESSAGE, type MessageData } from '../../src/engine/notifications/outbox';

/**
 * A relay that takes a message and then answers 451 (or whose answer is lost) gets the message
 * again on the retry. Every attempt carries the one Message-ID the message was given when queued,
 * so the receiver can drop the duplicates. Over real HTTP, through a real SMTP server.
 */
let h: Harness;
let server: SMTPServer;
let port: number;
/** The Message-ID header of each DATA the relay received, in order. */
const received: string[] = [];
let refuseNext = 0;

beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: 2_000, retryBaseMs: 1_000 } });
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(/^Message-ID: *(.*)$/im.exec(Buffer.concat(chunks).toString('utf8'))?.[1]?.trim() ?? '');
        if (refuseNext > 0) {
          refuseNext -= 1;
          // The whole message arrived, but the relay's answer says "try later": the sender retries.
          cb(Object.assign(new Error('451 try again later'), { responseCode: 451 }));
        } else cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await h.close();
});

type Message = { id: string; state: string; attempts: number; message_id: string | null };
const outbox = async () => (await h.api.get<{ messages: Message[] }>('/api/notifications/outbox?limit=500')).body.messages;

describe('a retried message keeps its Message-ID', () => {
  it('sends the one Message-ID chosen when it was queued with every attempt until the relay accepts it', async () => {
    expect((await h.api.put('/api/account/mail', { host: '127.0.0.1', port, secure: false, from: 'Store <AR@Store.Test>' })).status).toBe(200);
    const customer = uid('C');
    const email = `${uid('ap')}@acme.test`;
    expect((await h.api.post('/api/imports/customer', { identifier: customer, name: 'Acme Inc.', contacts: [{ email, bulk_activate: true }] })).status).toBe(201);
    const number = uid('INV');
    expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customer, amount: 12_000 })).status).toBe(201);

    refuseNext = 3;
    const res = await h.api.post<{ sent: number }>(`/api/notifications/remind/${number}`, {});
    expect(res.body.sent).toBe(1);
    const id = res.headers.get('laneway-mail-messages')!;
    // Chosen when queued: shown before any attempt.
    const [queued] = (await outbox()).filter((m) => m.id === id);
    expect(queued).toMatchObject({ state: 'queued', attempts: 0 });
    // (soft: the old code, which had none until sent, also shows what the relay got below)
    expect.soft(queued!.message_id).toBe(`<${id}@store.test>`);

    await h.t.engine.notifications.drain();
    for (let attempt = 2; attempt <= 4; attempt++) {
      // Past the backoff (at most 1.2 s x 2^(n-1) with these options): the next attempt.
      h.t.clock.advance(10_000);
      await h.t.engine.tick();
      await h.t.engine.notifications.drain();
      await expect.poll(() => received.length, { timeout: 5_000, interval: 20 }).toBe(attempt);
    }
    await expect.poll(async () => (await outbox()).find((m) => m.id === id)?.state, { timeout: 5_000, interval: 20 }).toBe('sent');
    expect(received).toHaveLength(4);
    expect(new Set(received).size).toBe(1);
    expect(received[0]).toBe(`<${id}@store.test>`);
    expect((await outbox()).find((m) => m.id === id)).toMatchObject({ state: 'sent', attempts: 4, message_id: received[0] });
  });

  it('gives a message queued without one (by an older version) its Message-ID at the first attempt, and keeps it', async () => {
    expect((await h.api.put('/api/account/mail', { host: '127.0.0.1', port, secure: false, from: 'ar@store.test' })).status).toBe(200);
    const id = `M${uid('OLD')}`;
    const old: MessageData = { id, purpose: 'reminder', to: 'old@acme.test', subject: 'Reminder', text: 'Owing.', attach_invoice: null, attachment: null, state: 'queued', transport: null, attempts: 0, first_attempt_ms: 0, next_attempt_ms: 0, created_at: new Date(h.t.clock.now()).toISOString(), last_attempt_at: null, sent_at: null, message_id: null, error: null };
    await h.t.engine.core.mutate((tx) => putRecord(tx, MESSAGE, id, old, { type: 'mail_message.queued', entity: 'mail_message', key: id, data: {} }, 'queued'));
    const before = received.length;
    refuseNext = 1;
    await h.t.engine.notifications.drain();
    await expect.poll(() => received.length, { timeout: 5_000, interval: 20 }).toBe(before + 1);
    expect((await outbox()).find((m) => m.id === id)).toMatchObject({ state: 'queued', attempts: 1, message_id: `<${id}@store.test>` });
    h.t.clock.advance(10_000);
    await h.t.engine.tick();
    await h.t.engine.notifications.drain();
    await expect.poll(async () => (await outbox()).find((m) => m.id === id)?.state, { timeout: 5_000, interval: 20 }).toBe('sent');
    expect(received.slice(before)).toEqual([`<${id}@store.test>`, `<${id}@store.test>`]);
  });
});
