import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { startSmtp, type SmtpRig } from '../helpers/smtp';
import { uid } from '../helpers/receivables';

/**
 * Spec (Customer): "notification_suppressed … When true all notifications to the customer are
 * suppressed." A direct message follows the rule reminders count by: to a suppressed customer, or
 * about a suppressed invoice, it is refused (the reference's 200 is an empty object, with no place
 * to say nothing went) and nothing reaches the relay. Over real HTTP, through a real SMTP server.
 */
let h: Harness;
let smtp: SmtpRig;

beforeAll(async () => {
  h = await openHarness({ api: true });
  smtp = await startSmtp('relay-user', 'relay-pass-0123');
  expect((await h.api.put('/api/account/mail', { host: '127.0.0.1', port: smtp.port, secure: false, user: 'relay-user', password: 'relay-pass-0123', from: 'ar@store.test' })).status).toBe(200);
});
afterAll(async () => {
  await smtp.close();
  await h.close();
});

type Refusal = { error: string; code: string; errors: { base: string[] } };
const dm = (body: Record<string, unknown>) => h.api.post<Refusal>('/api/notifications/direct_message', body);
const outboxSize = async () => (await h.api.get<{ messages: unknown[] }>('/api/notifications/outbox?limit=500')).body.messages.length;
/** Lets the sender send whatever is queued, then waits a moment for the relay to receive it. */
const settle = async () => {
  await h.t.engine.notifications.drain();
  await new Promise((r) => setTimeout(r, 150));
};

async function customer(extra: Record<string, unknown>, email: string) {
  const identifier = uid('C');
  expect((await h.api.post('/api/imports/customer', { identifier, name: 'Acme Inc.', contacts: [{ email, bulk_activate: true }], ...extra })).status).toBe(201);
  return identifier;
}
async function invoice(customerId: string, extra: Record<string, unknown> = {}) {
  const number = uid('INV');
  expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customerId, amount: 5_000, ...extra })).status).toBe(201);
  return number;
}

describe('direct messages honour notification suppression', () => {
  it('sends one to a customer whose notifications are not suppressed (the relay works)', async () => {
    const c = await customer({}, 'open@acme.test');
    const n = await invoice(c);
    const before = smtp.mails.length;
    const res = await dm({ email: 'open@acme.test', object_type: 'invoice', object_identifier: n, customer_identifier: c });
    expect([res.status, res.body]).toEqual([200, {}]);
    await h.t.engine.notifications.drain();
    await smtp.waitFor(before + 1);
    expect(smtp.mails.slice(before).map((m) => m.to[0])).toEqual(['open@acme.test']);
  });

  it("refuses a message about an invoice of a customer whose notifications are suppressed, as the customer's reminders are counted: nothing is sent", async () => {
    const c = await customer({ notification_suppressed: true }, 'sup@acme.test');
    const n = await invoice(c);
    // The rule reminders count by.
    expect((await h.api.post<Record<string, number>>(`/api/notifications/remind/${n}`, {})).body).toMatchObject({ requested: 1, sent: 0, suppressed: 1 });
    const [mailsBefore, queuedBefore] = [smtp.mails.length, await outboxSize()];
    const res = await dm({ email: 'sup@acme.test', object_type: 'invoice', object_identifier: n, customer_identifier: c });
    expect([res.status, res.body.code]).toEqual([400, 'customer_notifications_suppressed']);
    expect(res.body.errors.base).toEqual([res.body.error]);
    expect(res.body.error).toMatch(/customer's notifications are suppressed/);
    expect(res.headers.get('laneway-mail-messages') ?? '').toBe('');
    await settle();
    expect(await outboxSize()).toBe(queuedBefore);
    expect(smtp.mails.length).toBe(mailsBefore);
  });

  it('refuses a message about an invoice whose own notifications are suppressed', async () => {
    const c = await customer({}, 'ap@acme.test');
    const n = await invoice(c, { suppress_notifications: true });
    expect((await h.api.post<Record<string, number>>(`/api/notifications/remind/${n}`, {})).body).toMatchObject({ sent: 0, invoice_suppressed: 1 });
    const [mailsBefore, queuedBefore] = [smtp.mails.length, await outboxSize()];
    const res = await dm({ email: 'ap@acme.test', object_type: 'invoice', object_identifier: n });
    expect([res.status, res.body.code]).toEqual([400, 'invoice_notifications_suppressed']);
    await settle();
    expect(await outboxSize()).toBe(queuedBefore);
    expect(smtp.mails.length).toBe(mailsBefore);
  });

  it('refuses a payment-card request and a deposit request to a suppressed customer, creating no contact', async () => {
    const c = await customer({ notification_suppressed: true }, 'known@acme.test');
    const [mailsBefore, queuedBefore] = [smtp.mails.length, await outboxSize()];
    const card = await dm({ email: 'new.person@acme.test', object_type: 'payment_method', customer_identifier: c, create_contact: true });
    expect([card.status, card.body.code]).toEqual([400, 'customer_notifications_suppressed']);
    const contacts = (await h.api.get<{ contacts: Array<{ email: string }> }>(`/api/exports/customer/${c}`)).body.contacts;
    expect(contacts.map((x) => x.email)).toEqual(['known@acme.test']);
    const order = uid('ORD');
    expect((await h.api.post('/api/imports/order', { identifier: order, amount_cents: 10_000, customer_identifier: c, deposit_amount_cents: 2_500 })).status).toBe(201);
    const deposit = await dm({ email: 'known@acme.test', object_type: 'order', object_identifier: order });
    expect([deposit.status, deposit.body.code]).toEqual([400, 'customer_notifications_suppressed']);
    await settle();
    expect(await outboxSize()).toBe(queuedBefore);
    expect(smtp.mails.length).toBe(mailsBefore);
  });
});
