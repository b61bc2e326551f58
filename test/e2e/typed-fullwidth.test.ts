import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';
import type { Sale } from '../../src/shared/schemas/register';

/**
 * Numbers, codes and amounts typed with full-width digits and signs, as a Japanese input method
 * types them ("６１６０", "３＊２００１", "１２．５０"), in Debian's Chromium against `npm run serve`
 * with the terminal simulator: the register reads a cashier code, a quantity*code scan and a cash
 * amount so typed in ja-JP, and a scan, a line's quantity and cash ("２０，００") in fr-CA; the
 * back office adds a product with a full-width code, price and tax rate in both locales.
 * Screenshots: test-output/screenshots/fullwidth-*.png.
 */
const TOKEN = 'FULLWIDTHTOKEN01';
const KEY = 'full-width-key-0123456789';
const MANAGER = { email: 'manager@example.com', password: 'manager password 1' };

let register: RegisterInstall | undefined;
let browser: Browser;
let url: string;
let cashierCode: string;
const contexts: BrowserContext[] = [];
let page: Page | undefined;
const api = apiOf(() => url, TOKEN, KEY);

/** ASCII digits and number signs as their full-width forms (U+FF0A…U+FF19). */
const fullWidth = (s: string) => s.replace(/[0-9.,*+-]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

async function newPage(locale: string): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
  contexts.push(ctx);
  return ctx.newPage();
}

const openSale = async () => (await api<{ open_sale: Sale | null }>('GET', '/api/pos/registers/1')).open_sale;

/** The register signed in with the API key, lane 1 chosen, the sample cashier's code typed full-width. */
async function atTheRegister(p: Page): Promise<void> {
  await p.goto(`${url}/app/`);
  await p.getByLabel('API token').fill(TOKEN);
  await p.getByLabel('API key').fill(KEY);
  await p.keyboard.press('Enter');
  await p.getByTestId('lane-1').waitFor();
  await p.keyboard.press('1');
  await p.getByLabel('Cashier code').waitFor();
  await p.keyboard.type(fullWidth(cashierCode));
  expect(await p.getByLabel('Cashier code').inputValue()).toBe(cashierCode);
  await p.keyboard.press('Enter');
  await p.getByTestId('scan').waitFor();
}

beforeAll(async () => {
  register = await startRegisterInstall('fullwidth', { token: TOKEN, key: KEY });
  ({ url, cashierCode } = register);
  const { link } = await api<{ link: string }>('POST', '/api/users', { email: MANAGER.email, role: 'manager' });
  const res = await fetch(`${url}/api/session/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link, password: MANAGER.password }) });
  expect(res.status).toBe(200);
  browser = await launchBrowser();
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-fullwidth-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await register?.close();
});

describe('full-width digits and signs read as ASCII', { timeout: 90_000 }, () => {
  it('ja-JP register: a full-width cashier code, "３＊１００１" and cash "１０．００"', async () => {
    page = await newPage('ja-JP');
    await atTheRegister(page);
    await page.keyboard.type(fullWidth('3*1001'));
    await page.keyboard.press('Enter');
    await until(async () => (await openSale())?.lines[0], 'the line');
    expect((await openSale())!.lines.map((l) => [l.product_code, l.quantity])).toEqual([['1001', 3]]);
    // 3 × 2.45 with 5% tax.
    await until(async () => (await page!.getByTestId('total').innerText().catch(() => '')) === '$7.72', 'the total');
    await page.keyboard.press('F4');
    await page.getByTestId('cash-given').waitFor();
    await page.keyboard.type(fullWidth('10.00'));
    await page.keyboard.press('Enter');
    await page.getByTestId('change').waitFor();
    expect((await page.getByTestId('change').innerText()).replace(/\s+/g, ' ')).toBe('Change due $2.28');
    await screenshot(page, 'fullwidth-ja-JP-change');
    await page.keyboard.press('Enter');
    await page.getByTestId('scan').waitFor();
  });

  it('fr-CA register: "２＊１００２", a line\'s quantity "４" and cash "２０，００"', async () => {
    page = await newPage('fr-CA');
    await atTheRegister(page);
    await page.keyboard.type(fullWidth('2*1002'));
    await page.keyboard.press('Enter');
    await until(async () => (await openSale())?.lines[0]?.quantity === 2, 'two cappuccinos');
    await until(async () => (await page!.getByTestId('lines').innerText()).includes('Cappuccino'), 'the line on the screen');
    await page.keyboard.press('F7');
    await page.getByLabel('Quantity').waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(fullWidth('4'));
    expect(await page.getByLabel('Quantity').inputValue()).toBe('4');
    await page.keyboard.press('Enter');
    await until(async () => (await openSale())?.lines[0]?.quantity === 4, 'four cappuccinos');
    // The screen has the change too (the register takes no key while a change is in flight).
    await until(async () => (await page!.getByTestId('lines').innerText()).includes('4 ×'), 'four on the screen');
    // 4 × 4.25 with 5% tax: 17.85.
    await page.keyboard.press('F4');
    await page.getByTestId('cash-given').waitFor();
    await page.keyboard.type(fullWidth('20,00'));
    await page.keyboard.press('Enter');
    await page.getByTestId('change').waitFor();
    expect((await page.getByTestId('change').innerText()).replace(/\s+/g, ' ')).toBe('Change due 2,15 $ US');
    await screenshot(page, 'fullwidth-fr-CA-change');
  });

  for (const [locale, code, price, tax] of [
    ['ja-JP', 'ＦＷ１', '１２．５０', '８．８７５'],
    ['fr-CA', 'ＦＷ２', '１２，５０', '９，９７５'],
  ] as const) {
    it(`${locale} back office: a product added with code ${code}, price ${price} and tax ${tax}`, async () => {
      page = await newPage(locale);
      await page.goto(`${url}/app/pos`);
      await page.getByLabel('E-mail').fill(MANAGER.email);
      await page.getByLabel('Password').fill(MANAGER.password);
      await page.keyboard.press('Enter');
      const form = page.getByRole('form', { name: 'Add a product' });
      await form.waitFor();
      await form.getByLabel('Code', { exact: true }).fill(code);
      await form.getByLabel('Name').fill(`Typed in ${locale}`);
      await form.getByLabel(/^Price/).fill(price);
      await form.getByLabel('Tax rate (%)').fill(tax);
      await form.getByRole('button', { name: 'Add product' }).click();
      await page.getByText(`Saved Typed in ${locale}.`).waitFor();
      const ascii = code.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
      const product = await api<{ code: string; price_cents: number; tax_rate: number }>('GET', `/api/pos/products/${ascii}`);
      expect(product).toMatchObject({ code: ascii, price_cents: 1250, tax_rate: locale === 'ja-JP' ? 8.875 : 9.975 });
    });
  }
});
