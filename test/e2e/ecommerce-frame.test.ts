import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine } from '../helpers/harness';
import { VISA } from '../helpers/cards';
import { startServer, type RunningServer } from '../../src/server/http';

/**
 * The hosted frame's own rules, in Debian's Chromium: a gift card is counted once (typed again, it
 * is refused, and the order collects the whole total); an empty gift card is refused before anything
 * reaches the shop; amounts read in the buyer's locale and the session's currency (en-US and de-DE);
 * a page whose origin is not allowed hears why from initFrame; a session with no type the frame can
 * show refuses Pay; a validation error takes focus to the field, and the expiry starts empty.
 * Through the sample shop (examples/shop, total 30.50 USD) and a bare page like the reference's
 * example. Needs `npm run build` (out/ecommerce).
 */
/** 10.00 each, one per locale. */
const GIFT_SMALL: Record<string, string> = { 'en-US': '6035710000000101', 'de-DE': '6035710000000103' };
const GIFT_EMPTY = '6035710000000102'; // 0.00
const GIFT_EURO = '6035710000000104'; // 10.00, read in de-DE

let t: TestEngine;
let api: RunningServer;
let shop: ChildProcess;
let shopUrl: string;
let logs = '';
let browser: Browser;
/** Pages like the reference's example: `localhost` (allowed in the sandbox) and `127.0.0.1` (not). */
let pages: Server;
let refused: Server;
let pagesUrl: string;
let refusedUrl: string;

function startShop(): Promise<string> {
  return new Promise((resolve, reject) => {
    shop = spawn(process.execPath, ['examples/shop/server.mjs'], {
      env: { ...process.env, LANEWAY_URL: api.url, LANEWAY_API_TOKEN: TEST_TOKEN, LANEWAY_API_KEY: TEST_KEY, PORT: '0', HOST: 'localhost' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (chunk: Buffer) => {
      logs += chunk.toString();
      const m = /Sample shop on (http:\/\/localhost:\d+)/.exec(logs);
      if (m) resolve(m[1]!);
    };
    shop.stdout!.on('data', take);
    shop.stderr!.on('data', take);
    shop.once('exit', (code) => reject(new Error(`the shop exited (${code}): ${logs}`)));
  });
}

/** The reference's example page: results of onApproval and of initFrame land on `window`. */
function examplePage(req: { url?: string }, res: ServerResponse): void {
  const session = new URL(req.url ?? '/', 'http://x').searchParams.get('session') ?? '';
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end(`<!doctype html><title>shop</title>
<form id="form"><div id="container"></div><button id="submit" disabled>Pay</button><span id="submitError"></span></form>
<script src="${api.url}/client.js"></script>
<script>
window.results = [];
const client = versapay.initClient(${JSON.stringify(session)});
client.onApproval((r) => window.results.push({ ok: r }), (e) => { window.results.push({ err: e }); document.querySelector('#submitError').textContent = e.error; });
window.init = client.initFrame(document.querySelector('#container'), '400px', '480px').then(
  () => {
    document.querySelector('#submit').disabled = false;
    document.querySelector('#form').addEventListener('submit', (e) => { e.preventDefault(); client.submitEvents(); });
    return 'ready';
  },
  (err) => 'rejected: ' + err.message,
);
</script>`);
}

const listen = (server: Server, host: string) => new Promise<void>((resolve) => server.listen(0, host, () => resolve()));

beforeAll(async () => {
  t = await openTestEngine();
  api = await startServer(t.engine, { port: 0, rateLimit: 100_000, uiDir: join(process.cwd(), 'out', 'renderer') });
  for (const card of Object.values(GIFT_SMALL)) await t.engine.giftCards.load({ card_number: card, pin: '1234', activated: true, load_amount_cents: 1000 });
  await t.engine.giftCards.load({ card_number: GIFT_EURO, pin: '1234', activated: true, load_amount_cents: 1000 });
  await t.engine.giftCards.load({ card_number: GIFT_EMPTY, pin: '1234', activated: true, load_amount_cents: 0 });
  shopUrl = await startShop();
  pages = createServer(examplePage);
  await listen(pages, 'localhost');
  pagesUrl = `http://localhost:${(pages.address() as AddressInfo).port}`;
  refused = createServer(examplePage);
  await listen(refused, '127.0.0.1');
  refusedUrl = `http://127.0.0.1:${(refused.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  shop?.kill();
  for (const s of [pages, refused]) await new Promise<void>((resolve) => (s ? s.close(() => resolve()) : resolve()));
  await api?.close();
  await t?.close();
});

async function session(options: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${api.url}/api/v2/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ gatewayAuthorization: { apiToken: TEST_TOKEN, apiKey: TEST_KEY }, options }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function openCheckout(locale: string): Promise<Page> {
  const page = await browser.newPage({ locale });
  await page.goto(shopUrl);
  await page.locator('#submit:not([disabled])').waitFor({ timeout: 20_000 });
  return page;
}

const frameOf = (page: Page) => page.frameLocator('#container iframe');

async function fillCard(page: Page, pan: string) {
  const f = frameOf(page);
  await f.locator('#type-creditCard').check();
  await f.getByLabel('Cardholder Name').fill('Jane Buyer');
  await f.locator('#accountNo').fill(pan);
  await f.getByLabel('Expiration Date').selectOption('12');
  await f.getByLabel('Expiration Year').selectOption('2030');
  await f.getByLabel('Security Code').fill('123');
}

async function fillGift(page: Page, number: string, pin: string) {
  const f = frameOf(page);
  await f.locator('#type-giftCard').check();
  await f.locator('#gcAccountNo').fill(number);
  await f.locator('#pin').fill(pin);
}

const orderOf = async (text: string) => (await t.engine.orders.view(/order (\S+)/.exec(text)![1]!))!;
const usd = (locale: string, amount: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' }).format(amount);

describe('gift cards in the frame', { timeout: 120_000 }, () => {
  for (const locale of ['en-US', 'de-DE']) {
    it(`counts a gift card once: typed again it is refused, and the order collects the whole total (${locale})`, async () => {
      const page = await openCheckout(locale);
      const f = frameOf(page);
      await fillGift(page, GIFT_SMALL[locale]!, '1234');
      await page.click('#submit');
      await expect.poll(() => page.locator('#payments').innerText(), { timeout: 20_000 }).toMatch(/Gift card: 10\.00 \(partial; 20\.50 left\)/);
      // The buyer's locale, the session's currency (USD: the sample shop's sessions give none).
      expect(await f.locator('#status').innerText()).toBe(`Gift card applied (${usd(locale, 10)}). ${usd(locale, 20.5)} is left to pay: choose another payment method.`);

      // The same card again: refused beside its field and in onApproval's reject; the page gets no second partial.
      await fillGift(page, GIFT_SMALL[locale]!, '1234');
      await page.click('#submit');
      await expect.poll(() => page.locator('#submitError').innerText(), { timeout: 20_000 }).toMatch(/already applied/);
      expect(await f.locator('#gcAccountNo-error').innerText()).toBe(`This gift card is already applied. Choose another payment method for the ${usd(locale, 20.5)} left to pay.`);
      expect(await page.locator('#payments li').count()).toBe(1);

      await fillCard(page, VISA);
      await page.click('#submit');
      await expect.poll(() => page.locator('#result').innerText(), { timeout: 20_000 }).toMatch(/Paid: order \S+ \(finalized\)/);
      await screenshot(page, `ecommerce-frame-gift-once-${locale}`);
      const order = await orderOf(await page.locator('#result').innerText());
      expect(order.amount_cents).toBe(3050);
      expect(order.transactions.map((x) => [x.payment_method, x.amount_in_cents])).toEqual([
        ['gift_card', 1000],
        ['credit_card', 2050],
      ]);
      await page.close();
    });
  }

  it('refuses an empty gift card in the frame (nothing reaches the shop), and another method then pays', async () => {
    const page = await openCheckout('en-US');
    const f = frameOf(page);
    const shopPays = () => logs.match(/POST \/checkout\/pay/g)?.length ?? 0;
    const before = shopPays();
    await fillGift(page, GIFT_EMPTY, '1234');
    await page.click('#submit');
    await expect.poll(() => page.locator('#submitError').innerText(), { timeout: 20_000 }).toMatch(/no balance/);
    expect(await f.locator('#gcAccountNo-error').innerText()).toBe('This gift card has no balance left: choose another payment method.');
    expect(await f.locator('#status').innerText()).toBe('');
    expect(await page.locator('#payments li').count()).toBe(0);
    expect(shopPays()).toBe(before);

    await page.locator('#submitError').evaluate((e) => (e.textContent = ''));
    await fillCard(page, VISA);
    await page.click('#submit');
    await expect.poll(() => page.locator('#result').innerText(), { timeout: 20_000 }).toMatch(/Paid: order \S+ \(finalized\)/);
    const order = await orderOf(await page.locator('#result').innerText());
    expect(order.transactions.map((x) => [x.payment_method, x.amount_in_cents])).toEqual([['credit_card', 3050]]);
    await page.close();
  });
});

describe('the frame on a bare page', { timeout: 60_000 }, () => {
  it("initFrame rejects, saying where to allow the origin, when the page's origin is not allowed", async () => {
    const id = await session({});
    const page = await browser.newPage();
    await page.goto(`${refusedUrl}/?session=${id}`);
    const outcome = await page.evaluate('window.init');
    expect(outcome).toMatch(/^rejected: versapay: the payment frame was refused on this page: pages on http:\/\/127\.0\.0\.1:\d+ may not show it\. Add http:\/\/127\.0\.0\.1:\d+ .*back office, under Payment frame/);
    await page.close();
    // On an allowed origin the same page is ready.
    const ok = await browser.newPage();
    await ok.goto(`${pagesUrl}/?session=${id}`);
    expect(await ok.evaluate('window.init')).toBe('ready');
    await ok.close();
  });

  it("shows amounts in the account's currency (the session's), in the buyer's locale (de-DE)", async () => {
    // The shop names no currency: the session takes the account's (USD), the one the sale is charged in.
    const id = await session({ amount: 1234.5, paymentTypes: [{ name: 'giftCard', label: 'Gutschein' }] });
    const page = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${pagesUrl}/?session=${id}`);
    expect(await page.evaluate('window.init')).toBe('ready');
    const f = frameOf(page);
    await f.locator('#gcAccountNo').fill(GIFT_EURO);
    await f.locator('#pin').fill('1234');
    await page.click('#submit');
    await expect.poll(() => f.locator('#status').innerText(), { timeout: 10_000 }).toBe(`Gift card applied (${usd('de-DE', 10)}). ${usd('de-DE', 1224.5)} is left to pay: choose another payment method.`);
    expect(usd('de-DE', 1224.5)).toMatch(/^1\.224,50\s\$$/);
    await page.close();
  });

  it('a session with no type the frame can show (Apple Pay alone) says so and rejects Pay', async () => {
    const id = await session({ paymentTypes: [{ name: 'applePay', label: 'Apple Pay' }] });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${pagesUrl}/?session=${id}`);
    expect(await page.evaluate('window.init')).toBe('ready');
    const f = frameOf(page);
    expect(await f.locator('#status').innerText()).toBe('No payment method is available in this payment form.');
    await page.click('#submit');
    await expect.poll(() => page.evaluate('window.results'), { timeout: 10_000 }).toEqual([{ err: { paymentType: 'applePay', error: 'No payment method is available in this payment form.' } }]);
    expect(await page.locator('#submitError').innerText()).toBe('No payment method is available in this payment form.');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a validation error takes focus to the first invalid field; the expiry starts empty, not already passed', async () => {
    const id = await session({ paymentTypes: [{ name: 'creditCard', label: 'Card' }] });
    const page = await browser.newPage();
    await page.goto(`${pagesUrl}/?session=${id}`);
    expect(await page.evaluate('window.init')).toBe('ready');
    const f = frameOf(page);
    expect(await f.locator('#expMonth').inputValue()).toBe('');
    expect(await f.locator('#expYear').inputValue()).toBe('');
    // Everything but the expiry: it is missing (not "passed"), and focus goes to it from the page's Pay.
    await f.getByLabel('Cardholder Name').fill('Jane Buyer');
    await f.locator('#accountNo').fill(VISA);
    await f.getByLabel('Security Code').fill('123');
    await page.click('#submit');
    await expect.poll(() => f.locator('#expMonth-error').innerText(), { timeout: 10_000 }).toBe('Expiration date is required');
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('IFRAME');
    await expect.poll(() => f.locator('#expMonth').evaluate((e) => e === e.ownerDocument.activeElement && e.ownerDocument.hasFocus())).toBe(true);
    // Typing now goes into the frame's field, not the page.
    await page.keyboard.press('ArrowDown');
    expect(await f.locator('#expMonth').inputValue()).not.toBe('');

    // The first of several invalid fields gets it.
    await f.getByLabel('Cardholder Name').fill('');
    await page.click('#submit');
    await expect.poll(() => f.locator('#cardholderName').evaluate((e) => e === e.ownerDocument.activeElement && e.ownerDocument.hasFocus()), { timeout: 10_000 }).toBe(true);
    await page.close();
  });
});
