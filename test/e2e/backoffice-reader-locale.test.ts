import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatAmount, formatMoney } from '../../src/shared/money';

/**
 * What a newcomer reading the back office in another locale and time zone than the shop met, in
 * Debian's Chromium against `npm run serve` (shop in UTC): en-US in UTC, de-DE in Berlin. A payment
 * typed for part of an invoice is what is applied to it; an import's refused records and its
 * problems are both counted; the sandbox clock names the shop's zone; an invoice without a due date
 * shows the day it fell due. Screenshots: test-output/screenshots/reader-locale-*.png.
 */
const TOKEN = 'READERLOCALE0001';
const KEY = 'reader-locale-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  { locale: 'en-US', p: 'EN', zone: 'UTC' },
  { locale: 'de-DE', p: 'DE', zone: 'Europe/Berlin' },
] as const;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const shown = (cents: number, locale: string) => spaces(formatMoney(cents, 'USD', { locale }));
const typed = (cents: number, locale: string) => formatAmount(cents, 'USD', locale);
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

beforeAll(async () => {
  bo = await startBackoffice('reader-locale', { token: TOKEN, key: KEY });
  url = bo.url;
  for (const [i, { locale, zone }] of LOCALES.entries()) {
    const page = await bo.newPage(locale, { viewport: { width: 1024, height: 768 }, timezoneId: zone });
    if (i === 0) await bo.claimOwner(page, OWNER);
    else await bo.signIn(page, OWNER);
    pages.set(locale, page);
  }
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

for (const { locale, p } of LOCALES) {
  describe(`read in ${locale}`, { timeout: 90_000 }, () => {
    const page = () => pages.get(locale)!;

    it('applies the amount typed to the invoices ticked, oldest due first, until an amount is typed beside one; holds Record while more is applied than paid', async () => {
      const who = `${p}-PAY`;
      const [older, opened] = [`${who}-A`, `${who}-B`];
      await api('POST', '/api/imports/customer', { identifier: who, name: `Payer ${p}` });
      await api('POST', '/api/imports/invoice', { number: older, customer_identifier: who, amount: 30000, date: '2026-01-05', due_date: '2099-01-10' });
      await api('POST', '/api/imports/invoice', { number: opened, customer_identifier: who, amount: 123456, date: '2026-01-05', due_date: '2099-02-10' });
      // Opened from the invoice: it is the one paid, whole until an amount is typed.
      await page().goto(`${url}/app/payments/new?customer=${who}&invoice=${opened}`);
      await expect.poll(() => field(page(), `Apply to ${opened}`).inputValue()).toBe(typed(123456, locale));
      expect(await field(page(), `Apply to ${older}`).inputValue()).toBe('');
      await field(page(), 'Cheque number').fill(`${p}-1`);
      await field(page(), 'Amount received (USD)').fill(typed(50025, locale));
      await expect.poll(() => field(page(), `Apply to ${opened}`).inputValue()).toBe(typed(50025, locale));
      const summary = page().getByLabel('Payment summary');
      expect(spaces(await summary.innerText())).toBe(`Payment ${shown(50025, locale)} · applied ${shown(50025, locale)} · unapplied credit ${shown(0, locale)}`);
      // The older invoice ticked too: it is paid first, the rest goes on the one opened.
      await page().getByRole('checkbox', { name: `Pay ${older}` }).check();
      await expect.poll(() => field(page(), `Apply to ${older}`).inputValue()).toBe(typed(30000, locale));
      expect(await field(page(), `Apply to ${opened}`).inputValue()).toBe(typed(20025, locale));
      // More than both owe: each gets what it owes, the rest is credit.
      await field(page(), 'Amount received (USD)').fill(typed(200000, locale));
      await expect.poll(() => field(page(), `Apply to ${opened}`).inputValue()).toBe(typed(123456, locale));
      expect(spaces(await summary.innerText())).toContain(`unapplied credit ${shown(200000 - 153456, locale)}`);
      // Typed by hand: left alone from then on, whatever the amount received becomes.
      await field(page(), 'Amount received (USD)').fill(typed(50025, locale));
      await expect.poll(() => field(page(), `Apply to ${opened}`).inputValue()).toBe(typed(20025, locale));
      await field(page(), `Apply to ${opened}`).fill(typed(40000, locale));
      await field(page(), 'Amount received (USD)').fill(typed(60000, locale));
      const record = page().getByRole('button', { name: `Record ${shown(60000, locale)}` });
      // 700 applied of 600 paid: Record is held, the reason beside it before any click.
      await expect.poll(() => record.isDisabled()).toBe(true);
      expect(await field(page(), `Apply to ${opened}`).inputValue()).toBe(typed(40000, locale));
      expect(await field(page(), `Apply to ${older}`).inputValue()).toBe(typed(30000, locale));
      const reasonId = await record.getAttribute('aria-describedby');
      expect(reasonId).toBeTruthy();
      expect(spaces(await page().locator(`[id="${reasonId}"]`).innerText())).toBe(
        `The amounts applied (${shown(70000, locale)}) are ${shown(10000, locale)} more than the payment: lower an amount applied or raise the amount received`,
      );
      await screenshot(page(), `reader-locale-payment-over-${locale}`);
      await field(page(), 'Amount received (USD)').fill(typed(70000, locale));
      const fits = page().getByRole('button', { name: `Record ${shown(70000, locale)}` });
      await expect.poll(() => fits.isDisabled()).toBe(false);
      expect(await page().locator(`[id="${reasonId}"]`).count()).toBe(0);
      await fits.click();
      await page().waitForURL(new RegExp(`/app/payments/CHQ-${who}-${p}-1$`));
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${older}`)).owing_cents).toBe(0);
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${opened}`)).owing_cents).toBe(123456 - 40000);
    });

    it('says how many records an import refused and how many problems are listed below, and how a file writes numbers', async () => {
      const c = `${p}-IMP`;
      // Two invoices refused, five problems between them (two and three); one imported.
      const csv = ['number;customer_identifier;date;amount;due_date', `${c}-1;${c};2026-03-01;100;`, `${c}-2;${c};2026-02-30;12,50;`, `${c}-3;${c};2026-13-01;1,5;2026-02-31`].join('\r\n');
      const form = new FormData();
      form.append('file', new Blob([`${csv}\r\n`], { type: 'text/csv' }), `${c}.csv`);
      const res = await fetch(`${url}/api/imports?force=true`, { method: 'POST', headers: { Authorization: auth }, body: form });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: number };
      let errors = 0;
      await until(async () => {
        const b = await api<{ status: string }>('GET', `/api/imports/${id}`);
        if (b.status === 'processing') return false;
        errors = (await api<{ message: unknown[] }>('GET', `/api/imports/${id}/errors`)).message.length;
        return true;
      }, 'the batch done');
      expect(errors).toBe(5);
      await page().goto(`${url}/app/imports/${id}`);
      const summary = page().getByLabel('Errors summary');
      await until(async () => (await summary.count()) > 0 && (await summary.innerText()).includes('problems'), 'both counts said');
      expect(await summary.innerText()).toBe('2 invoices refused (5 problems)');
      expect(await page().getByRole('table', { name: 'Errors' }).getByRole('row').count()).toBe(1 + 5);
      // Where a file is chosen: how numbers are written in it, the example in the reader's own writing.
      await page().goto(`${url}/app/imports`);
      const numbers = page().getByLabel('How numbers are written');
      const example = new Intl.NumberFormat(locale, { minimumFractionDigits: 2 }).format(1234.5);
      expect(spaces(await numbers.innerText())).toContain(`amounts in whole cents with no separator, quantities with a point for decimals and no thousands separator. For example ${spaces(example)} is written 123450`);
      await screenshot(page(), `reader-locale-imports-${locale}`);
    });

    it('shows the day an invoice without a due date fell due (its date), beside OVERDUE', async () => {
      const who = `${p}-NODUE`;
      await api('POST', '/api/imports/customer', { identifier: who, name: `No terms ${p}` });
      await api('POST', '/api/imports/invoice', { number: `${who}-1`, customer_identifier: who, amount: 5000, date: '2025-01-05' });
      expect((await api<{ due_date: string | null }>('GET', `/api/exports/invoice/${who}-1`)).due_date).toBeNull();
      await page().goto(`${url}/app/invoices?customer=${who}`);
      const row = page().getByRole('table', { name: 'Invoices' }).getByRole('row', { name: new RegExp(`${who}-1`) });
      await row.waitFor();
      const cells = (await row.getByRole('cell').allInnerTexts()).map(spaces);
      const dated = spaces(new Date('2025-01-05T00:00:00Z').toLocaleDateString(locale, { dateStyle: 'medium', timeZone: 'UTC' }));
      expect(cells[3]).toBe(`${dated} (invoice date)`);
      expect(cells[4]).toBe('OVERDUE');
      // Its own page says the same day, not "due —".
      await row.click();
      const when = page().getByText(/^Dated /);
      await when.waitFor();
      expect(spaces(await when.innerText())).toBe(`Dated ${dated} · due ${dated} (invoice date)`);
    });
  });
}

describe('the sandbox clock moved on', { timeout: 90_000 }, () => {
  it("says the shop's time, naming its zone to a reader in another", async () => {
    await api('POST', '/api/sandbox/v1/clock/advance', { by: 'P1D' });
    for (const { locale, zone } of LOCALES) {
      const page = pages.get(locale)!;
      await page.goto(`${url}/app/settlement`);
      const banner = page.getByLabel('Sandbox clock', { exact: true });
      await banner.waitFor();
      // The shop's zone is read apart from the status the banner shows (state/shop-zone.ts): the
      // banner may first draw before it is known, and draws again once it is.
      if (zone !== 'UTC') await until(async () => /\d UTC\. Cut-offs/.test(spaces(await banner.innerText())), "the shop's zone named");
      const text = spaces(await banner.innerText());
      expect(text).toMatch(/moved 1 day ahead of the real time: in the shop it is now .+\. Cut-offs/);
      expect(text).not.toContain(' here');
      // Berlin reads the shop's UTC time with its zone; a reader in UTC needs no zone named.
      if (zone === 'UTC') expect(text).not.toContain('UTC');
      else expect(text).toMatch(/\d UTC\. Cut-offs/);
      await screenshot(page, `reader-locale-clock-${locale}`);
    }
  });
});
