import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { until } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';
import { MAX_PRICE_CENTS, MAX_TENDER_CENTS } from '../../src/shared/schemas/register-common';
import { formatMoney } from '../../src/shared/money';

/**
 * The register's limits as a cashier meets them, in Debian's Chromium against `npm run serve`,
 * read in en-US and en-IN (whose grouping differs past 99,999.99): a price, a discount or cash past
 * the server's limits (the same constants) is refused on the screen before it is sent, in money as
 * the screen writes it; the server's own refusals (a discount past the line's amount, a line that
 * would take the sale past what one tender takes) read in money in the screen's locale, never in
 * cents or a field's path. Screenshots: test-output/screenshots/pos-limits-*.png.
 */
const TOKEN = 'POSLIMITSTOKEN01';
const KEY = 'pos-limits-key-0123456789';

let register: RegisterInstall | undefined;
let browser: Browser;
let url: string;
let cashierCode: string;

const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ').replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  register = await startRegisterInstall('pos-limits', { token: TOKEN, key: KEY });
  ({ url, cashierCode } = register);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await register?.close();
});

const CASES = [
  { locale: 'en-US', tooDear: '123,456.78', newPrice: '100,000', cash: '1,000,000,000' },
  { locale: 'en-IN', tooDear: '1,23,456.78', newPrice: '1,00,000', cash: '1,00,00,00,000' },
] as const;

for (const c of CASES) {
  describe(`the register's limits read in ${c.locale}`, { timeout: 90_000 }, () => {
    let page: Page;
    const price = formatMoney(MAX_PRICE_CENTS, 'USD', { locale: c.locale });
    const most = formatMoney(MAX_TENDER_CENTS, 'USD', { locale: c.locale });
    const text = async (testid: string) => spaces(await page.getByTestId(testid).innerText());
    const notice = () => text('notice').catch(() => '');

    beforeAll(async () => {
      page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: c.locale });
      await page.goto(`${url}/app/`);
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByLabel('API key').fill(KEY);
      await page.keyboard.press('Enter');
      await page.getByTestId('lane-1').waitFor({ timeout: 30_000 });
      await page.keyboard.press('1');
      await page.getByLabel('Cashier code').waitFor();
      await page.keyboard.type(cashierCode);
      await page.keyboard.press('Enter');
      await page.getByTestId('scan').waitFor({ timeout: 30_000 });
    }, 60_000);

    afterEach(async (ctx) => {
      if (ctx.task.result?.state === 'fail') await screenshot(page, `failed-pos-limits-${c.locale}-${ctx.task.name.slice(0, 30).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
    });

    afterAll(() => page?.context().close());

    it('refuses an open price past the limit on the screen, in money', async () => {
      await page.keyboard.press('F3');
      await page.getByLabel('Description').fill('Too dear');
      await page.getByLabel('Price before tax').fill(c.tooDear);
      await expect.poll(() => text('amount-error')).toBe(`A price is at most ${price}.`);
      expect(await page.getByRole('button', { name: /Add item/ }).isDisabled()).toBe(true);
      await screenshot(page, `pos-limits-${c.locale}-open-price`);
      await page.keyboard.press('Escape');
    });

    it('refuses a new price past the limit on the screen, and says a discount past the line in money (the server\'s words)', async () => {
      const cappuccinos = (await text('lines').catch(() => '')).split('Cappuccino').length;
      await page.keyboard.type('1002');
      await page.keyboard.press('Enter');
      await until(async () => (await text('lines')).split('Cappuccino').length > cappuccinos, 'the cappuccino line');
      await page.keyboard.press('F7');
      await page.getByLabel('New unit price').fill(c.newPrice);
      await page.getByLabel('Reason for the price change').fill('Price match');
      await page.getByRole('button', { name: /Save line/ }).click();
      await page.getByRole('alert').filter({ hasText: `A price is at most ${price}.` }).waitFor({ timeout: 10_000 });
      await page.getByLabel('New unit price').fill('');
      await page.getByLabel('Reason for the price change').fill('');
      await page.getByRole('radio', { name: 'Amount' }).check();
      await page.getByLabel('Discount amount').fill('1,000.00');
      await page.getByRole('button', { name: /Save line/ }).click();
      await expect.poll(notice, { timeout: 10_000 }).toMatch(/^The discount \(\$1,000\.00\) is more than the line's amount \(\$4\.25\)/);
      expect(await notice()).not.toMatch(/cents|discount\.amount|unit_price/);
      await screenshot(page, `pos-limits-${c.locale}-discount`);
      await page.keyboard.press('Escape').catch(() => undefined);
    });

    it('refuses the quantity that takes the sale past what one tender takes, naming the amounts in the screen\'s locale', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F3');
      await page.getByLabel('Description').fill('Dear item');
      const dear = (await text('lines')).split('Dear item').length;
      await page.getByLabel('Price before tax').fill('99,999.99');
      await page.keyboard.press('Enter');
      await until(async () => (await text('lines')).split('Dear item').length > dear, 'the dear line');
      await page.keyboard.press('F7');
      await page.getByLabel('Quantity').fill('999');
      await page.keyboard.press('Enter');
      await expect.poll(notice, { timeout: 10_000 }).toContain(`more than one payment takes (at most ${most})`);
      expect(await notice()).toMatch(c.locale === 'en-IN' ? /^This would bring the sale to \$\d{1,2},\d\d,\d\d,\d{3}\.\d\d,/ : /^This would bring the sale to \$\d{1,3},\d{3},\d{3}\.\d\d,/);
      await screenshot(page, `pos-limits-${c.locale}-sale-too-large`);
      await page.keyboard.press('Escape').catch(() => undefined);
    });

    it('refuses cash handed over past the most one tender takes, on the screen', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F4');
      await page.getByTestId('cash-given').fill(c.cash);
      // Past what the server takes (999,999,999 minor units): refused as typed, in the screen's money.
      await expect.poll(() => text('cash-error')).toMatch(new RegExp(`at most ${most.replace(/[$.]/g, '\\$&')}\\.$`));
      await page.keyboard.press('Escape');
    });
  });
}
