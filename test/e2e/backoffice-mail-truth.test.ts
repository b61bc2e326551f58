import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { startSmtp, type SmtpRig } from '../helpers/smtp';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office tells the truth about e-mail, in Debian's Chromium against `npm run serve`, in
 * en-US and fr-CA: a relay that does not answer (a loopback port nothing listens on) is saved with
 * a warning that says why, its badge says Failing (not Sending) with the error and the next try; an
 * invitation and a reminder then say "queued: it goes out when the mail relay answers", with the
 * way to the Outbox, never "sent". A relay that answers (a real SMTP server) is saved as working,
 * and an invitation says "sent" once the outbox has it delivered.
 * Screenshots: test-output/screenshots/backoffice-mail-truth-{failing,queued}-{locale}.png.
 */
const TOKEN = 'BACKOFFICEMAIL001';
const KEY = 'back-office-mail-truth-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const PASSWORD = 'relay-pass-0123';
const LOCALES = [
  { locale: 'en-US', p: 'EN' },
  { locale: 'fr-CA', p: 'FR' },
] as const;

let bo: BackofficeInstall;
let url: string;
let smtp: SmtpRig;
let closedPort: number;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
/** The relay's badge as written (the pill's style writes it in capitals). */
const badge = async (page: Page, text: string) => until(async () => (await page.getByLabel('Relay state').textContent()) === text, `the relay badge to say ${text}`, 20_000);
/** Today as the screen writes it with a time ("Mar 5, 2026", "5 mars 2026"). */
const today = (locale: string) => spaces(new Date().toLocaleDateString(locale, { dateStyle: 'medium' }));

/** A loopback port nothing listens on: the relay's connection is refused at once. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

beforeAll(async () => {
  smtp = await startSmtp('relay-user', PASSWORD);
  closedPort = await freePort();
  bo = await startBackoffice('bo-mail-truth', { token: TOKEN, key: KEY });
  url = bo.url;
  for (const { p } of LOCALES) {
    await api('POST', '/api/imports/customer', { identifier: `${p}-MAIL`, name: `${p} Mail Inc`, contacts: [{ email: `ap@${p.toLowerCase()}-mail.test`, bulk_activate: true }] });
    await api('POST', '/api/imports/invoice', { number: `${p}-MAIL-1`, customer_identifier: `${p}-MAIL`, amount: 4_200, date: '2026-01-05', due_date: '2099-02-04' });
  }
  const en = await bo.newPage('en-US');
  await bo.claimOwner(en, OWNER);
  pages.set('en-US', en);
  const fr = await bo.newPage('fr-CA');
  await bo.signIn(fr, OWNER);
  pages.set('fr-CA', fr);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(async () => {
  await bo?.close();
  await smtp?.close();
});

/** Saves the relay form with these values. */
async function saveRelay(page: Page, relay: { host: string; port: number; user?: string; password?: string }) {
  await page.goto(`${url}/app/developers/mail`);
  const form = page.getByRole('form', { name: 'SMTP relay' });
  await form.getByLabel('Host', { exact: true }).fill(relay.host);
  await form.getByLabel('Port', { exact: true }).fill(String(relay.port));
  await form.getByLabel('User', { exact: true }).fill(relay.user ?? '');
  if (relay.password !== undefined) await form.getByLabel('Password', { exact: true }).fill(relay.password);
  await form.getByLabel('From', { exact: true }).fill('Laneway Shop <shop@example.com>');
  await form.getByRole('button', { name: 'Save relay' }).click();
  const saved = page.getByRole('status', { name: 'Relay saved' }).filter({ hasText: /^Saved/ });
  await saved.waitFor({ timeout: 20_000 });
  return saved;
}

for (const { locale, p } of LOCALES) {
  describe(`the back office says what became of e-mail, in ${locale}`, { timeout: 120_000 }, () => {
    const page = () => pages.get(locale)!;

    it('saves a relay that does not answer with a warning, says Failing, then an invitation and a reminder say queued', async () => {
      const saved = await saveRelay(page(), { host: '127.0.0.1', port: closedPort });
      expect(await saved.innerText()).toBe(
        `Saved, but the relay is not reachable: Nothing accepts connections at 127.0.0.1:${closedPort} (connection refused): check the host and the port. (connect ECONNREFUSED 127.0.0.1:${closedPort}) E-mail waits in the Outbox and is retried for three days; fix the settings and save again.`,
      );
      await badge(page(), 'Failing');
      expect(await page().getByText('Sending', { exact: true }).count()).toBe(0);
      // Saved all the same: the settings are the ones typed.
      expect(await api<{ relay: { host: string; port: number } }>('GET', '/api/account/mail')).toMatchObject({ relay: { host: '127.0.0.1', port: closedPort } });

      // An invitation: queued, not sent; the relay's trouble said; the way to the Outbox.
      const email = `c4@${p.toLowerCase()}-mail.test`;
      await page().goto(`${url}/app/customers/${p}-MAIL`);
      await page().getByLabel('Invite someone by e-mail', { exact: true }).fill(email);
      await page().getByRole('button', { name: 'Send invitation' }).click();
      const invited = page().getByRole('status', { name: 'Invitation result' });
      await invited.waitFor();
      await until(async () => /The mail relay is failing/.test(await invited.innerText()), 'the relay failing said beside the invitation', 20_000);
      const said = spaces(await invited.innerText());
      expect(said).toMatch(new RegExp(`^Invitation to ${email.replace(/\./g, '\\.')} queued: it goes out when the mail relay answers\\. The mail relay is failing \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${closedPort}\\); next try ${today(locale)}.+\\. Open the Outbox$`));
      expect(said).not.toMatch(/sent/i);
      await screenshot(page(), `backoffice-mail-truth-queued-${locale}`);

      // A reminder: queued for the invoice, not sent.
      await page().goto(`${url}/app/invoices/${p}-MAIL-1`);
      await page().getByRole('button', { name: 'Send a reminder' }).click();
      const reminded = page().getByRole('status', { name: 'Reminder result' });
      await reminded.waitFor();
      expect(spaces(await reminded.innerText())).toMatch(/^Reminder queued for 1 invoice of 1: it goes out when the mail relay answers\./);
      expect(await page().getByRole('button', { name: 'Reminder queued' }).isDisabled()).toBe(true);

      // The Outbox: both still queued, with the relay's error; the badge says Failing, why, and when it tries again.
      await reminded.getByRole('link', { name: 'Open the Outbox' }).click();
      await page().waitForURL(/\/app\/developers\/mail$/);
      const row = page().getByRole('table', { name: 'Messages' }).getByRole('row', { name: new RegExp(`${email.replace(/\./g, '\\.')}.*invites you`) });
      await row.waitFor();
      expect(await row.innerText()).toMatch(/queued[\s\S]*ECONNREFUSED/);
      await badge(page(), 'Failing');
      const status = spaces(await page().getByLabel('Relay status').innerText());
      expect(status).toMatch(new RegExp(`^Failing \\(last tried ${today(locale)}.+\\): connect ECONNREFUSED 127\\.0\\.0\\.1:${closedPort}\\. \\d+ messages wait in the Outbox; next try ${today(locale)}.+\\.$`));
      await screenshot(page(), `backoffice-mail-truth-failing-${locale}`);
    });

    it('saves a relay that answers as working, and an invitation says sent once it is delivered', async () => {
      const saved = await saveRelay(page(), { host: '127.0.0.1', port: smtp.port, user: 'relay-user', password: PASSWORD });
      expect(await saved.innerText()).toBe(`Saved and working: 127.0.0.1:${smtp.port} answered, and took the user name and password of relay-user.`);
      await badge(page(), 'Working');

      const email = `sent@${p.toLowerCase()}-mail.test`;
      const before = smtp.mails.length;
      await page().goto(`${url}/app/customers/${p}-MAIL`);
      await page().getByLabel('Invite someone by e-mail', { exact: true }).fill(email);
      await page().getByRole('button', { name: 'Send invitation' }).click();
      const invited = page().getByRole('status', { name: 'Invitation result' });
      await until(async () => (await invited.count()) > 0 && (await invited.innerText()) === `Invitation sent to ${email}. Open the Outbox`, 'the invitation said sent', 20_000);
      expect(smtp.mails.slice(before).some((m) => m.to.includes(email))).toBe(true);
    });
  });
}
