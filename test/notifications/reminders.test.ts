import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { openHarness, type Harness } from '../helpers/harness';
import { attachmentOf, startSmtp, type SmtpRig } from '../helpers/smtp';
import { PDF, uid } from '../helpers/receivables';
import { pdfLayoutText } from '../helpers/pdf';

let h: Harness;
let smtp: SmtpRig;
const PASSWORD = 'relay-pass-0123';

beforeAll(async () => {
  h = await openHarness({ api: true, webhookDelivery: { timeoutMs: 2_000, retryBaseMs: 1_000 } });
  smtp = await startSmtp('relay-user', PASSWORD);
});
afterAll(async () => {
  await smtp.close();
  await h.close();
});

type Counts = Record<string, number>;
type Message = { to: string; state: string; transport: string | null; attempts: number; attachment: { file_name: string } | null; error: string | null; subject: string };
const drain = () => h.t.engine.notifications.drain();
const outbox = async () => (await h.api.get<{ messages: Message[] }>('/api/notifications/outbox?limit=500')).body.messages;

async function customer(extra: Record<string, unknown> = {}, contacts = [{ email: `${uid('ap')}@acme.test`, bulk_activate: true }]) {
  const identifier = uid('C');
  expect((await h.api.post('/api/imports/customer', { identifier, name: 'Acme Inc.', contacts, ...extra })).status).toBe(201);
  return { identifier, emails: contacts.map((c) => c.email) };
}
async function invoice(customerId: string, extra: Record<string, unknown> = {}) {
  const number = uid('INV');
  expect((await h.api.post('/api/imports/invoice', { number, customer_identifier: customerId, amount: 12_000, ...extra })).status).toBe(201);
  return number;
}

describe('reminders', () => {
  it('without a relay (sandbox) a reminder stays in the local outbox as sent', async () => {
    const c = await customer();
    const n = await invoice(c.identifier);
    const res = await h.api.post<Counts>(`/api/notifications/remind/${n}`, {});
    expect(res.body).toMatchObject({ requested: 1, sent: 1 });
    await drain();
    const [m] = await outbox();
    expect(m).toMatchObject({ to: c.emails[0], state: 'sent', transport: 'sandbox', attachment: null });
    expect((await h.api.get<{ mode: string }>('/api/account/mail')).body.mode).toBe('sandbox');
  });

  it('sends one reminder an invoice however many times the list names it, by number or by id', async () => {
    const c = await customer();
    const n = await invoice(c.identifier);
    const id = (await h.api.get<{ id: number }>(`/api/exports/invoice/${n}`)).body.id;
    const before = (await outbox()).length;
    const res = await h.api.post<Counts>('/api/notifications/remind', { ids: [n, 'NO-SUCH', id, n] });
    expect(res.body).toMatchObject({ requested: 4, sent: 1, not_found: 1 });
    await drain();
    expect((await outbox()).length - before).toBe(1);
  });

  it('the relay password is kept encrypted and never shown', async () => {
    const res = await h.api.put<{ password_set: boolean }>('/api/account/mail', { host: '127.0.0.1', port: smtp.port, secure: false, user: 'relay-user', password: PASSWORD, from: 'Store <ar@store.test>' });
    expect(res.status).toBe(200);
    expect(res.body.password_set).toBe(true);
    const shown = await h.api.get('/api/account/mail');
    expect(JSON.stringify(shown.body)).not.toContain(PASSWORD);
    await drain();
    expect(readFileSync(`${h.t.dir}/laneway.sqlite`).includes(Buffer.from(PASSWORD))).toBe(false);
  });

  it('counts each invoice once by what stops its reminder, and emails the rest through the SMTP relay with the PDF to opted-in customers', async () => {
    const ok = await customer({ pdf_attachment_opt_in: true }, [
      { email: `${uid('a')}@acme.test`, bulk_activate: true },
      { email: `${uid('b')}@acme.test`, bulk_activate: true },
    ]);
    const sent = await invoice(ok.identifier);
    const withStored = await invoice(ok.identifier);
    expect((await h.api.post(`/api/imports/invoice/${withStored}/attachment`, { find_by: 'number', file_name: 'stored-invoice.pdf', content: PDF })).status).toBe(200);
    const paid = await invoice(ok.identifier, { amount: 0 });
    const credit = await invoice(ok.identifier, { amount: -500 });
    const invoiceSuppressed = await invoice(ok.identifier, { suppress_notifications: true });
    const suppressed = await invoice((await customer({ notification_suppressed: true })).identifier);
    const notInvited = await invoice((await customer({}, [])).identifier);
    const before = smtp.mails.length;

    const res = await h.api.post<Counts>('/api/notifications/remind', { ids: [sent, withStored, paid, credit, invoiceSuppressed, suppressed, notInvited, 'NO-SUCH'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ requested: 8, sent: 2, not_found: 1, suppressed: 1, invoice_suppressed: 1, not_invited: 1, paid: 1, draft: 0, credit: 1, scheduled: 0, on_plan: 0 });

    await drain();
    await smtp.waitFor(before + 4);
    const mails = smtp.mails.slice(before);
    expect(mails.map((m) => m.to[0]).sort()).toEqual([...ok.emails, ...ok.emails].sort());
    const rendered = mails.find((m) => m.raw.includes(`Subject: Reminder: invoice ${sent} `))!;
    const pdf = attachmentOf(rendered.raw, `invoice-${sent}.pdf`);
    expect(pdf?.subarray(0, 5).toString()).toBe('%PDF-');
    // The invoice itself, not a summary of it: the customer by name, its sums down to the balance.
    const attached = pdfLayoutText(pdf!).text;
    expect(attached).toContain('Acme Inc.');
    expect(attached).toContain(`Customer ID: ${ok.identifier}`);
    expect(attached).toMatch(/Total \(USD\)\s+\$120\.00/);
    expect(attached).toMatch(/Balance owing\s+\$120\.00/);
    const stored = mails.find((m) => m.raw.includes(`Subject: Reminder: invoice ${withStored} `))!;
    expect(attachmentOf(stored.raw, 'stored-invoice.pdf')?.equals(Buffer.from(PDF, 'base64'))).toBe(true);
    expect(mails[0]!.from).toBe('ar@store.test');
    // Each contact's own click-to-pay link, and it opens the invoice's payment page.
    const to = rendered.to[0]!;
    const body = rendered.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const link = /Pay it online: (\S+)/.exec(body)?.[1];
    const { pay_urls: urls } = (await h.api.get<{ pay_urls: Record<string, string> }>(`/api/exports/invoice/${sent}`)).body;
    expect(link).toBe(urls[to]);
    expect(link).toMatch(new RegExp(`^${h.api.url}/pay/[0-9]+-[A-Z0-9]+\\?contact=`));
    expect((await fetch(link!)).status).toBe(200);
  });

  it('an invitation is emailed; not when the customer suppresses notifications', async () => {
    const c = await customer({}, []);
    const quiet = await customer({ notification_suppressed: true }, []);
    const before = smtp.mails.length;
    expect((await h.api.post('/api/invitations', { identifier: c.identifier, email: 'new.user@acme.test' })).status).toBe(200);
    expect((await h.api.post('/api/invitations', { identifier: quiet.identifier, email: 'quiet@acme.test' })).status).toBe(200);
    await drain();
    await smtp.waitFor(before + 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(smtp.mails.slice(before).map((m) => m.to[0])).toEqual(['new.user@acme.test']);
  });

  it("an invitation lists the account's open invoices with what each owes and its own click-to-pay link", async () => {
    const c = await customer({}, []);
    const n = await invoice(c.identifier, { due_date: '2026-04-01' });
    const before = smtp.mails.length;
    expect((await h.api.post('/api/invitations', { identifier: c.identifier, email: 'payer@acme.test' })).status).toBe(200);
    await drain();
    await smtp.waitFor(before + 1);
    const raw = smtp.mails.slice(before).find((m) => m.to[0] === 'payer@acme.test')!.raw;
    const body = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    expect(body).toContain(`Invoice ${n}: $120.00 owing, due 2026-04-01`);
    const link = /Pay it online: (\S+)/.exec(body)?.[1];
    const { pay_urls: urls } = (await h.api.get<{ pay_urls: Record<string, string> }>(`/api/exports/invoice/${n}`)).body;
    expect(link).toBe(urls['payer@acme.test']);
    expect((await fetch(link!)).status).toBe(200);
  });

  it('a relay that refuses is retried with backoff until it answers; nothing is lost', async () => {
    await h.api.put('/api/account/mail', { host: '127.0.0.1', port: 1, from: 'ar@store.test' });
    const c = await customer();
    const n = await invoice(c.identifier);
    await h.api.post(`/api/notifications/remind/${n}`, {});
    await drain();
    const [queued] = await outbox();
    expect(queued).toMatchObject({ to: c.emails[0], state: 'queued', attempts: 1 });
    expect(queued!.error).toBeTruthy();
    // The relay is fixed (the stored password kept), the clock passes the backoff: sent.
    await h.api.put('/api/account/mail', { host: '127.0.0.1', port: smtp.port, user: 'relay-user', from: 'ar@store.test' });
    const before = smtp.mails.length;
    h.t.clock.advance(5_000);
    await h.t.engine.tick();
    await drain();
    await smtp.waitFor(before + 1);
    expect((await outbox())[0]).toMatchObject({ state: 'sent', transport: 'smtp', attempts: 2 });
  });
});
