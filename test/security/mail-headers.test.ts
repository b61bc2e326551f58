import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from '../helpers/harness';
import { startSmtp, type SmtpRig } from '../helpers/smtp';

/** Header injection through what goes into an e-mail's headers: the account's name, addresses, the sender. */
let h: Harness;
let smtp: SmtpRig;
beforeAll(async () => {
  h = await openHarness({ api: true });
  smtp = await startSmtp('relay-user', 'relay-pass-0123');
});
afterAll(async () => {
  await smtp.close();
  await h.close();
});

describe('e-mail headers', () => {
  it('a line break in the account name, an address or the sender adds no header and no recipient', async () => {
    const relay = { host: '127.0.0.1', port: smtp.port, secure: false, user: 'relay-user', password: 'relay-pass-0123' };
    const badFrom = await h.api.put<{ code: string }>('/api/account/mail', { ...relay, from: 'Store <ar@store.test>\r\nBcc: evil@x.test' });
    expect([badFrom.status, badFrom.body.code]).toEqual([400, 'invalid_from']);
    // A line break in the display name, the address still last: refused too, not kept to be cleaned when sent.
    // Several mailboxes (the first would be the envelope sender), a Unicode line separator.
    for (const from of ['Shop\r\nBcc: evil@x.test <shop@x.test>', 'Shop\nX-Evil: 1 <shop@x.test>', 'Shop\u001b <shop@x.test>', 'attacker@evil.test, <shop@x.test>', 'a@evil.test, shop@x.test', 'Shop\u2028 <shop@x.test>', 'Shop <victim.test>x<bob@evil.test>']) {
      const refused = await h.api.put<{ code: string }>('/api/account/mail', { ...relay, from });
      expect([refused.status, refused.body.code], JSON.stringify(from)).toEqual([400, 'invalid_from']);
    }
    expect((await h.api.put('/api/account/mail', { ...relay, from: 'Store <ar@store.test>' })).status).toBe(200);
    expect((await h.api.patch('/api/account', { name: 'Shop\r\nBcc: evil@x.test\r\nX-Evil: 1' })).status).toBe(200);
    expect((await h.api.post('/api/imports/customer', { identifier: 'C-MAIL', name: 'Acme', contacts: [{ email: 'ap@acme.test', bulk_activate: true }] })).status).toBe(201);
    expect((await h.api.post('/api/imports/customer', { identifier: 'C-MAIL2', name: 'Acme', contacts: [{ email: 'x@y.test\r\nBcc: evil@x.test' }] })).status).toBe(412);
    expect((await h.api.post('/api/imports/invoice', { number: 'INV-MAIL', customer_identifier: 'C-MAIL', amount: 12_000 })).status).toBe(201);
    expect((await h.api.post('/api/notifications/direct_message', { email: 'ap@acme.test\r\nBcc: evil@x.test', object_type: 'invoice', object_identifier: 'INV-MAIL' })).status).toBe(400);
    expect((await h.api.post('/api/invitations', { identifier: 'C-MAIL', email: 'new@acme.test\nBcc: evil@x.test' })).status).toBe(400);
    expect((await h.api.post<{ sent: number }>('/api/notifications/remind/INV-MAIL', {})).body.sent).toBe(1);
    await h.t.engine.notifications.drain();
    await smtp.waitFor(1);
    expect(smtp.mails.map((m) => m.to)).toEqual([['ap@acme.test']]);
    const [head, ...body] = smtp.mails[0]!.raw.split('\r\n\r\n');
    expect(head).not.toMatch(/^(Bcc|X-Evil):/im);
    // Nor a line of the message's own: the name is one line there (quoted-printable's soft breaks joined).
    const text = body.join('\n').replace(/=\r?\n/g, '');
    expect(text).not.toMatch(/^(Bcc|X-Evil):/im);
    expect(text).toContain('Shop Bcc: evil@x.test X-Evil: 1');
  });
});
