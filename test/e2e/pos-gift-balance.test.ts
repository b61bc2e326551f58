import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';

/**
 * The register tells the cashier what is left on a gift card once its tender is approved (F6),
 * keyboard only, in Debian's Chromium against `npm run serve`: the balance the engine's debit left,
 * in the screen's locale (en-US, then fr-CA), on the sale's notice after a part payment and on the
 * receipt screen when the card pays the rest. Screenshot: test-output/screenshots/pos-gift-balance.png.
 */
const TOKEN = 'POSGIFTBAL01';
const KEY = 'pos-gift-balance-key-0123456789';
const CARD = '6277000024681357';

let register: RegisterInstall | undefined;
let browser: Browser;
let page: Page;
let fr: BrowserContext | undefined;
let url: string;
let cashierCode: string;
const api = apiOf(() => url, TOKEN, KEY);

const text = async (testid: string, p: Page) => (await p.getByTestId(testid).innerText()).replace(/\s+/g, ' ').trim();
const seen = (testid: string, p: Page) => p.getByTestId(testid).waitFor({ state: 'visible', timeout: 30_000 });

async function signIn(p: Page): Promise<void> {
  await p.goto(`${url}/app/`);
  await p.getByLabel('API token').fill(TOKEN);
  await p.getByLabel('API key').fill(KEY);
  await p.keyboard.press('Enter');
  await seen('lane-1', p);
  await p.keyboard.press('1');
  await p.getByLabel('Cashier code').waitFor();
  await p.keyboard.type(cashierCode);
  await p.keyboard.press('Enter');
  await seen('scan', p);
}

async function scan(p: Page, code: string, total: string): Promise<void> {
  await p.keyboard.type(code);
  await p.keyboard.press('Enter');
  await until(async () => (await text('total', p).catch(() => '')) === total, `the total ${total}`);
}

/** F6, 1 (gift card): the number, no PIN, the amount as typed (empty: what is due, at most the card's balance). */
async function payByGiftCard(p: Page, amount: string): Promise<void> {
  await p.keyboard.press('F6');
  await p.keyboard.press('1');
  await seen('other-number', p);
  await p.keyboard.type(CARD);
  await p.keyboard.press('Tab');
  await p.keyboard.press('Tab');
  if (amount) await p.keyboard.type(amount);
  await p.keyboard.press('Enter');
}

async function payRestInCash(p: Page, given: string): Promise<void> {
  await p.keyboard.press('F4');
  await seen('cash-given', p);
  await p.keyboard.type(given);
  await p.keyboard.press('Enter');
  await seen('change', p);
  await p.keyboard.press('Enter');
  await seen('scan', p);
}

const cardBalance = async () => (await api<{ balance: number }>('POST', '/api/gateway/v1/gift_card/read', { card_number: CARD })).balance;

beforeAll(async () => {
  register = await startRegisterInstall('pos-gift-balance', { token: TOKEN, key: KEY });
  ({ url, cashierCode } = register);
  await api('POST', '/api/gateway/v1/gift_card', { card_number: CARD, activated: 'true', load_amount_cents: 5000 });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-gift-balance-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
});

afterAll(async () => {
  await fr?.close();
  await browser?.close();
  await register?.close();
});

describe('the register: a gift card tender says what is left on the card', { timeout: 90_000 }, () => {
  it('after a $10.00 spend of a $50.00 card: approved, and $40.00 left', async () => {
    await signIn(page);
    await scan(page, '4002', '$50.84');
    await payByGiftCard(page, '10.00');
    await until(async () => (await text('balance', page).catch(() => '')) === '$40.84', 'the balance due after the gift card');
    expect(await text('notice', page)).toBe('Gift card •••• 1357: approved. Left on the card: $40.00.');
    expect(await cardBalance()).toBe(4000);
    await screenshot(page, 'pos-gift-balance');
    await payRestInCash(page, '50');
  });

  it('in fr-CA: the amount typed the fr-CA way, what is left written so, on the sale and on the receipt screen', async () => {
    fr = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'fr-CA' });
    const p = await fr.newPage();
    await signIn(p);
    await scan(p, '4002', '50,84 $ US');
    await payByGiftCard(p, '10,00');
    await until(async () => (await text('balance', p).catch(() => '')) === '40,84 $ US', 'the balance due after the gift card');
    expect(await text('notice', p)).toBe('Gift card •••• 1357: approved. Left on the card: 30,00 $ US.');
    await payRestInCash(p, '50');

    // The card pays a whole sale: the receipt screen says what is left on it.
    await scan(p, '2001', '3,25 $ US');
    await payByGiftCard(p, '');
    await seen('done-message', p);
    expect(await text('done-message', p)).toBe('Gift card •••• 1357: approved. Left on the card: 26,75 $ US.');
    expect(await cardBalance()).toBe(2675);
  });
});
