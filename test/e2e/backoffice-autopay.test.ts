import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { card, VISA } from '../helpers/cards';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatMoney } from '../../src/shared/money';

/**
 * A customer's autopay in Debian's Chromium against `npm run serve`, in en-US and fr-CA: turning
 * it on while invoices are overdue says first what is charged at once (the engine's preview: which
 * invoices and the total, in the reader's locale) and waits for a yes, the safe button focused;
 * with nothing due it asks nothing. Removing the card autopay charges says what becomes of autopay;
 * the panel then names the card, never its token, and says autopay cannot charge; the sandbox
 * clock's dialog says it runs autopay; the charge refused on the due date shows on the customer's
 * page. Screenshots: test-output/screenshots/backoffice-autopay-{charge-now,cannot-charge}-{locale}.png.
 */
const TOKEN = 'BACKOFFICEAUTOPAY1';
const KEY = 'back-office-autopay-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  { locale: 'en-US', p: 'EN' },
  { locale: 'fr-CA', p: 'FR' },
] as const;
const OVERDUE = [
  ['OD-1', '2025-06-15', 500_000],
  ['OD-2', '2025-08-01', 400_000],
  ['OD-3', '2025-09-30', 250_000],
] as const;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const shown = (cents: number, locale: string) => spaces(formatMoney(cents, 'USD', { locale }));
const dayOf = (iso: string, locale: string) => spaces(new Date(`${iso}T00:00:00Z`).toLocaleDateString(locale, { dateStyle: 'medium', timeZone: 'UTC' }));
/** The sandbox's day after today (its clock may have been moved), as YYYY-MM-DD. */
const serverTomorrow = async () => new Date(Date.parse((await api<{ now: string }>('GET', '/api/status')).now) + 86_400_000).toISOString().slice(0, 10);

async function seed(p: string) {
  await api('POST', '/api/imports/customer', { identifier: `${p}-LATE`, name: `${p} Late Payer Inc` });
  for (const [n, due, amount] of OVERDUE) await api('POST', '/api/imports/invoice', { number: `${p}-${n}`, customer_identifier: `${p}-LATE`, amount, date: '2025-05-01', due_date: due });
  await api('POST', '/api/gateway/v1/wallets', { customer: `${p}-LATE`, credit_card: card(VISA) });
  await api('POST', '/api/imports/customer', { identifier: `${p}-FRESH`, name: `${p} Fresh Inc` });
  await api('POST', '/api/imports/invoice', { number: `${p}-LATER`, customer_identifier: `${p}-FRESH`, amount: 9_900, date: '2026-01-05', due_date: '2099-02-04' });
  await api('POST', '/api/gateway/v1/wallets', { customer: `${p}-FRESH`, credit_card: card(VISA) });
}

beforeAll(async () => {
  // The charge made once autopay is on waits for the engine's tick: every second here, not 15.
  bo = await startBackoffice('bo-autopay', { token: TOKEN, key: KEY }, [], { LANEWAY_TICK_MS: '1000' });
  url = bo.url;
  for (const { p } of LOCALES) await seed(p);
  const en = await bo.newPage('en-US');
  await bo.claimOwner(en, OWNER);
  pages.set('en-US', en);
  const fr = await bo.newPage('fr-CA');
  await bo.signIn(fr, OWNER);
  pages.set('fr-CA', fr);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

for (const { locale, p } of LOCALES) {
  describe(`a customer's autopay in ${locale}`, { timeout: 150_000 }, () => {
    const page = () => pages.get(locale)!;
    const seen = (text: string | RegExp) => page().getByText(text).first().waitFor({ state: 'visible', timeout: 20_000 });
    const focused = async () => String(await page().evaluate('document.activeElement?.textContent ?? ""'));
    const agreements = async (customer: string) => (await api<{ autopays: unknown[] }>('GET', `/api/autopay?customer_identifier=${customer}`)).autopays.length;

    it('says what turning autopay on charges at once, and charges it only once confirmed; with nothing due it asks nothing', async () => {
      // Nothing due yet: no question, autopay is on.
      await page().goto(`${url}/app/customers/${p}-FRESH`);
      await seen(/Autopay is off/);
      await page().getByRole('button', { name: 'Turn autopay on' }).click();
      await seen('Autopay turned on.');
      expect(await page().getByRole('dialog').count()).toBe(0);
      expect(await agreements(`${p}-FRESH`)).toBe(1);

      // Three invoices long overdue: their total is asked about first, in the reader's locale.
      const total = shown(1_150_000, locale);
      await page().goto(`${url}/app/customers/${p}-LATE`);
      await seen(/Autopay is off/);
      await page().getByRole('button', { name: 'Turn autopay on' }).click();
      const dialog = page().getByRole('dialog', { name: /^Turn autopay on and charge/ });
      await dialog.waitFor();
      expect(spaces((await dialog.getAttribute('aria-label'))!)).toBe(`Turn autopay on and charge ${total} now?`);
      const text = spaces(await dialog.innerText());
      expect(text).toContain('3 invoices are already due. Autopay charges Visa **0006 for them at once');
      for (const [n, due, amount] of OVERDUE) {
        const row = spaces(await dialog.getByRole('row', { name: new RegExp(`${p}-${n}`) }).innerText());
        expect(row).toContain(dayOf(due, locale));
        expect(row).toContain(shown(amount, locale));
      }
      expect(spaces(await dialog.getByLabel('Total in USD').innerText())).toBe(total);
      // Charging a card is the risky answer: the safe one has the focus, and Tab stays in the dialog.
      expect(await focused()).toBe('Cancel');
      await page().keyboard.press('Tab');
      expect(spaces(await focused())).toBe(`Turn on and charge ${total}`);
      await page().keyboard.press('Tab');
      expect(await focused()).toBe('Cancel');
      await screenshot(page(), `backoffice-autopay-charge-now-${locale}`);
      // Enter on the focused Cancel: nothing is made, and the focus is back on the button that asked.
      await page().keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      expect(await focused()).toBe('Turn autopay on');
      expect(await agreements(`${p}-LATE`)).toBe(0);

      await page().getByRole('button', { name: 'Turn autopay on' }).click();
      await dialog.getByRole('button', { name: /^Turn on and charge/ }).click();
      await seen('Autopay turned on.');
      await seen(/Autopay is on: due invoices are charged to Visa \*\*0006 on their due date/);
      // The engine's next tick charges what the dialog said, to the cent.
      const paid = await until(async () => {
        const list = await api<{ payments: Array<{ customer_identifier: string; payment_amount: string }> }>('GET', '/api/exports/payments?list=true');
        return list.payments.find((x) => x.customer_identifier === `${p}-LATE`);
      }, 'the autopay charge', 45_000);
      expect(paid.payment_amount).toBe('11500.00');
    });

    it('removing the card autopay charges says so; the panel and the refused charge on the due date show it', async () => {
      const due = await serverTomorrow();
      await api('POST', '/api/imports/invoice', { number: `${p}-NEXT`, customer_identifier: `${p}-LATE`, amount: 42_000, date: '2026-01-05', due_date: due });
      const [wallet] = (await api<{ wallets: Array<{ credit_cards: Array<{ token: string }> }> }>('GET', `/api/gateway/v1/wallets/search?type=customer&locator=${p}-LATE`)).wallets;
      const fund = wallet!.credit_cards[0]!.token;
      await page().goto(`${url}/app/customers/${p}-LATE`);
      await seen(/Autopay is on/);
      const methods = page().getByRole('list', { name: 'Payment methods' });
      await methods.getByRole('button', { name: 'Remove' }).click();
      const dialog = page().getByRole('dialog', { name: 'Remove this payment method?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain('Autopay charges Visa **0006. Once it is removed autopay stays on but cannot charge: invoices that fall due stay unpaid');
      expect(await focused()).toBe('Cancel');
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await seen('No saved payment method.');
      const panel = page().getByLabel('Autopay', { exact: true });
      await until(async () => /Autopay is on but cannot charge: Visa \*\*0006 was removed from the wallet/.test(await panel.innerText()), 'the panel saying autopay cannot charge');
      expect(await page().getByLabel('Wallet', { exact: true }).innerText()).not.toContain(fund);

      // The sandbox clock's question says that autopay runs; moving it a day makes the invoice due.
      await page().goto(`${url}/app/settlement`);
      await page().getByRole('button', { name: 'Advance 1 day' }).click();
      const ask = page().getByRole('dialog', { name: 'Move the sandbox clock 1 day ahead?' });
      await ask.waitFor();
      expect(await ask.innerText()).toContain('Autopay runs too: customers with autopay on are charged, on their saved card or bank account, for the invoices that fall due in that time.');
      expect(await focused()).toBe('Cancel');
      await ask.getByRole('button', { name: 'Advance 1 day' }).click();
      await ask.waitFor({ state: 'detached', timeout: 60_000 });

      await page().goto(`${url}/app/customers/${p}-LATE`);
      const failed = page().getByLabel('Autopay charges not made');
      await failed.waitFor({ timeout: 20_000 });
      expect(spaces(await failed.innerText())).toBe(`Autopay could not charge ${shown(42_000, locale)} on ${dayOf(due, locale)} for ${p}-NEXT: its payment method was removed from the wallet. This invoice stays unpaid.`);
      expect(await page().getByLabel('Wallet', { exact: true }).innerText()).not.toContain(fund);
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${p}-NEXT`)).owing_cents).toBe(42_000);
      await screenshot(page(), `backoffice-autopay-cannot-charge-${locale}`);
    });
  });
}
