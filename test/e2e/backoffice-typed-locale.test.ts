import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatAmount, formatMoney } from '../../src/shared/money';

/**
 * Amounts typed the way the back office writes them, in Debian's Chromium against `npm run serve`:
 * ar-EG writes Arabic-Indic digits with its own decimal separator ("١٢٣٤٫٥٦"); fr-CH shows money
 * with "." for cents ("1 234.56 $US") and plain numbers with ",", and groups with the Swiss
 * apostrophe too. What the screen writes in a locale is read back in it: a payment typed so is
 * recorded for that amount, a product saved as its form filled it in keeps its price and tax rate,
 * and an invoice list's amount filter survives a reload and a second Apply. Screenshots: test-output/screenshots/typed-locale-*.png.
 */
const TOKEN = 'TYPEDLOCALE00001';
const KEY = 'typed-locale-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  // What a newcomer typed: the amount with cents in the locale's own digits and separators.
  { locale: 'ar-EG', p: 'AR', received: '١٢٣٤٫٥٦', filter: '١٥٩٠٫٠٧' },
  { locale: 'fr-CH', p: 'CH', received: '1’234.56', filter: '1590,07' },
] as const;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const shown = (cents: number, locale: string) => spaces(formatMoney(cents, 'USD', { locale }));
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

beforeAll(async () => {
  bo = await startBackoffice('typed-locale', { token: TOKEN, key: KEY });
  url = bo.url;
  for (const [i, { locale }] of LOCALES.entries()) {
    const page = await bo.newPage(locale, { viewport: { width: 1280, height: 800 } });
    if (i === 0) await bo.claimOwner(page, OWNER);
    else await bo.signIn(page, OWNER);
    pages.set(locale, page);
  }
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

for (const { locale, p, received, filter } of LOCALES) {
  describe(`typed in ${locale}`, { timeout: 90_000 }, () => {
    const page = () => pages.get(locale)!;

    it(`records a payment of ${received} typed as the locale writes it, applied as filled in: 1234.56 over the API`, async () => {
      const who = `${p}-PAY`;
      const invoice = `${who}-1`;
      await api('POST', '/api/imports/customer', { identifier: who, name: `Payer ${p}` });
      await api('POST', '/api/imports/invoice', { number: invoice, customer_identifier: who, amount: 500000, date: '2026-01-05', due_date: '2099-01-10' });
      await page().goto(`${url}/app/payments/new?customer=${who}&invoice=${invoice}`);
      await expect.poll(() => field(page(), `Apply to ${invoice}`).inputValue()).toBe(formatAmount(500000, 'USD', locale));
      await field(page(), 'Cheque number').fill(`${p}-1`);
      await field(page(), 'Amount received (USD)').fill(received);
      // What the form fills in beside the invoice is the amount written the locale's way, and reads back.
      await expect.poll(() => field(page(), `Apply to ${invoice}`).inputValue()).toBe(formatAmount(123456, 'USD', locale));
      const record = page().getByRole('button', { name: `Record ${shown(123456, locale)}` });
      await expect.poll(() => record.isDisabled()).toBe(false);
      await screenshot(page(), `typed-locale-payment-${locale}`);
      await record.click();
      await page().waitForURL(new RegExp(`/app/payments/CHQ-${who}-${p}-1$`));
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${invoice}`)).owing_cents).toBe(500000 - 123456);
    });

    it('saves a product opened for editing and left as filled in: its price 2.75 and tax rate 5 read back unchanged', async () => {
      const code = `${p}275`;
      await api('POST', '/api/pos/products', { code, description: `Filled in ${p}`, price_cents: 275, tax_rate: 5, category: 'Typed' });
      await page().goto(`${url}/app/pos`);
      await page().getByRole('button', { name: `Edit ${code}` }).click();
      const form = page().getByRole('form', { name: `Edit ${code}` });
      await expect.poll(() => form.getByLabel(/^Price/).inputValue()).toBe(formatAmount(275, 'USD', locale));
      await form.getByRole('button', { name: 'Save product' }).click();
      await page().getByText(`Saved Filled in ${p}.`).waitFor();
      expect(await api<{ price_cents: number; tax_rate: number }>('GET', `/api/pos/products/${code}`)).toMatchObject({ price_cents: 275, tax_rate: 5 });
    });

    it(`keeps the invoice list's amount filter ${filter} through a reload, shown as the fields write it, and applies it again with a maximum`, async () => {
      await page().goto(`${url}/app/invoices`);
      const from = field(page(), 'Amount from (USD)');
      await from.fill(filter);
      await page().getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => new URL(page().url()).searchParams.get('amount_min')).toBe('159007');
      await page().reload();
      await expect.poll(() => from.inputValue()).toBe(formatAmount(159007, 'USD', locale));
      // Applied again with a maximum added: both kept, the one restored read as the same amount.
      await field(page(), 'Amount to (USD)').fill(formatAmount(200000, 'USD', locale));
      await page().getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => new URL(page().url()).searchParams.get('amount_max')).toBe('200000');
      expect(new URL(page().url()).searchParams.get('amount_min')).toBe('159007');
      expect(await page().getByText('Correct the filter above').count()).toBe(0);
      await screenshot(page(), `typed-locale-filter-${locale}`);
    });
  });
}
