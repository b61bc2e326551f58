import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { apiOf, until, type Proc } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';
import { formatAmount, formatMoney } from '../../src/shared/money';
import type { Sale } from '../../src/shared/schemas/register';

/**
 * The register typed in the locale's own writing of numbers, in Debian's Chromium against `npm run
 * serve` with the terminal simulator: in ar-EG a cashier code, a quantity*code scan and a line's
 * quantity in Arabic-Indic digits, the card amount the register fills in ("٨٤٫٨٢"-like, with
 * cents) taken on Enter, and cash with cents; in fr-CH cash typed with "." as money is shown there.
 * Screenshots: test-output/screenshots/pos-typed-*.png.
 */
const TOKEN = 'POSTYPEDLOCALE01';
const KEY = 'pos-typed-locale-key-0123456789';
const VISA = '4895281000000006';

let register: RegisterInstall | undefined;
let sim: Proc;
let browser: Browser;
let url: string;
let cashierCode: string;
const contexts: BrowserContext[] = [];
let page: Page | undefined;
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ').replace(/\s+/g, ' ').trim();
/** ASCII digits as Arabic-Indic ones, "." and "," as the Arabic decimal and group separators. */
const arabic = (s: string) => s.replace(/[0-9.,]/g, (c) => (c === '.' ? '\u066b' : c === ',' ? '\u066c' : String.fromCharCode(0x0660 + Number(c))));

const openSale = async () => (await api<{ open_sale: Sale | null }>('GET', '/api/pos/registers/1')).open_sale;
const recent = async () => (await api<{ sales: Sale[] }>('GET', '/api/pos/sales?laneid=1')).sales;

async function newPage(locale: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  contexts.push(ctx);
  return ctx.newPage();
}

/** The register signed in with the API key, lane 1 chosen, the cashier's code typed as `code` writes it. */
async function atTheRegister(p: Page, code: (s: string) => string): Promise<void> {
  await p.goto(`${url}/app/`);
  await p.getByLabel('API token').fill(TOKEN);
  await p.getByLabel('API key').fill(KEY);
  await p.keyboard.press('Enter');
  await p.getByTestId('lane-1').waitFor();
  await p.keyboard.press('1');
  await p.getByLabel('Cashier code').waitFor();
  await p.keyboard.type(code(cashierCode));
  expect(await p.getByLabel('Cashier code').inputValue()).toBe(cashierCode);
  await p.keyboard.press('Enter');
  await p.getByTestId('scan').waitFor();
}

beforeAll(async () => {
  register = await startRegisterInstall('pos-typed', { token: TOKEN, key: KEY });
  ({ sim, url, cashierCode } = register);
  browser = await launchBrowser();
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-pos-typed-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await register?.close();
});

describe('the register reads numbers as the locale writes them', { timeout: 90_000 }, () => {
  it('ar-EG: code "٩٤٣٩"-like, "٣*١٠٠١", quantity "٤", the card amount filled in with cents taken on Enter', async () => {
    page = await newPage('ar-EG');
    await atTheRegister(page, arabic);
    await page.keyboard.type(arabic('3*1001'));
    await page.keyboard.press('Enter');
    await until(async () => (await openSale())?.lines[0]?.quantity === 3, 'three of 1001');
    expect((await openSale())!.lines.map((l) => l.product_code)).toEqual(['1001']);
    await until(async () => (await page!.getByTestId('lines').innerText()).includes(arabic('3')), 'the line on the screen');
    await page.keyboard.press('F7');
    await page.getByLabel('Quantity').waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(arabic('4'));
    await page.keyboard.press('Enter');
    await until(async () => (await openSale())?.lines[0]?.quantity === 4, 'four of 1001');
    const due = (await openSale())!.totals.balance_cents;
    expect(due % 100).not.toBe(0);
    await until(async () => spaces(await page!.getByTestId('total').innerText()) === spaces(formatMoney(due, 'USD', { locale: 'ar-EG' })), 'the new total');
    // F5: the amount on the card is filled in the locale's writing, cents and all, and taken as it is.
    await page.keyboard.press('F5');
    const amount = page.getByTestId('card-amount');
    await amount.waitFor();
    expect(await amount.inputValue()).toBe(formatAmount(due, 'USD', 'ar-EG'));
    expect(await page.getByTestId('card-amount-error').count()).toBe(0);
    const asked = () => sim.output().split('waiting for a card').length;
    const before = asked();
    await page.keyboard.press('Enter');
    await until(async () => asked() > before, 'the terminal to ask for the card');
    sim.send(`card ${VISA}`);
    await page.getByTestId('receipt').waitFor({ timeout: 30_000 });
    await screenshot(page, 'pos-typed-ar-EG-card');
    const [paid] = await recent();
    expect(paid!.totals).toMatchObject({ total_cents: due, paid_cents: due, balance_cents: 0 });
  });

  for (const [locale, given] of [
    ['ar-EG', arabic('20.00')],
    ['fr-CH', '20.00'],
  ] as const) {
    it(`${locale}: cash "${given}" typed with cents gives the change`, async () => {
      page = await newPage(locale);
      await atTheRegister(page, locale === 'ar-EG' ? arabic : (s) => s);
      await page.keyboard.type('2*1002');
      await page.keyboard.press('Enter');
      await until(async () => (await openSale())?.lines[0]?.quantity === 2, 'two of 1002');
      const due = (await openSale())!.totals.balance_cents;
      await until(async () => spaces(await page!.getByTestId('total').innerText()) === spaces(formatMoney(due, 'USD', { locale })), 'the total');
      await page.keyboard.press('F4');
      await page.getByTestId('cash-given').waitFor();
      await page.keyboard.type(given);
      await page.keyboard.press('Enter');
      await page.getByTestId('change').waitFor();
      expect(spaces(await page.getByTestId('change').innerText())).toBe(spaces(`Change due ${formatMoney(2000 - due, 'USD', { locale })}`));
      await screenshot(page, `pos-typed-${locale}-change`);
    });
  }
});
