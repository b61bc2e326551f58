import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine } from '../helpers/harness';
import { VISA, VISA_DECLINE } from '../helpers/cards';
import { startServer, type RunningServer } from '../../src/server/http';
import { recordsOfKind } from '../../src/engine/records';

/**
 * The sample shop (examples/shop, a real Node process) against a real server, paid in Debian's
 * Chromium through client.js and the hosted frame: by card (approved, declined, refused by the
 * session's AVS rule), by ACH, by gift card, and in two partial payments. The card number never
 * reaches the shop's server (its log) or its page (the DOM outside the frame). A page on another
 * origin gets no frame and no token. Needs `npm run build` (out/ecommerce).
 */
const GIFT_SMALL = '6035710000000001';
const GIFT_BIG = '6035710000000002';
const PANS = [VISA, VISA_DECLINE, GIFT_SMALL, GIFT_BIG, '0000000016'];

let t: TestEngine;
let api: RunningServer;
let shop: ChildProcess;
let shopUrl: string;
let logs = '';
let browser: Browser;
let evil: Server;
let evilPort: number;

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

beforeAll(async () => {
  t = await openTestEngine();
  api = await startServer(t.engine, { port: 0, rateLimit: 100_000, uiDir: join(process.cwd(), 'out', 'renderer') });
  await t.engine.giftCards.load({ card_number: GIFT_SMALL, pin: '1234', activated: true, load_amount_cents: 1000 });
  await t.engine.giftCards.load({ card_number: GIFT_BIG, pin: '4321', activated: true, load_amount_cents: 10000 });
  shopUrl = await startShop();
  evil = createServer((req, res) => {
    const session = new URL(req.url ?? '/', 'http://x').searchParams.get('session') ?? '';
    const claimed = new URL(req.url ?? '/', 'http://x').searchParams.get('claim') ?? `http://127.0.0.1:${evilPort}`;
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>evil</title>
<iframe id="f" src="${api.url}/ecommerce/frame?session=${session}&origin=${encodeURIComponent(claimed)}"></iframe>
<script>
window.token = fetch(${JSON.stringify(`${api.url}/api/v2/sessions/`)} + ${JSON.stringify(session)} + '/tokens', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'creditCard', accountHolder: 'X', accountNumber: '${VISA}', expirationMonth: 12, expirationYear: 2030, cardVerificationValue: '123' }) })
  .then((r) => 'read ' + r.status, (e) => 'failed ' + e.message);
</script>`);
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', () => resolve()));
  evilPort = (evil.address() as AddressInfo).port;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  shop?.kill();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  await api?.close();
  await t?.close();
});

async function openCheckout(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(shopUrl);
  await page.locator('#submit:not([disabled])').waitFor({ timeout: 20_000 });
  return page;
}

const frameOf = (page: Page) => page.frameLocator('#container iframe');

async function fillCard(page: Page, pan: string, cvv = '123') {
  const f = frameOf(page);
  await f.getByLabel('Cardholder Name').fill('Jane Buyer');
  await f.locator('#accountNo').fill(pan);
  await f.getByLabel('Expiration Date').selectOption('12');
  await f.getByLabel('Expiration Year').selectOption('2030');
  await f.getByLabel('Security Code').fill(cvv);
}

async function fillGift(page: Page, number: string, pin: string) {
  const f = frameOf(page);
  await f.locator('#type-giftCard').check();
  await f.locator('#gcAccountNo').fill(number);
  await f.locator('#pin').fill(pin);
}

/** Submits and waits for the shop's answer; the DOM outside the frame never holds a number. */
async function pay(page: Page, expected: RegExp): Promise<string> {
  expect(PANS.some((p) => pageText.includes(p))).toBe(false);
  await page.click('#submit');
  await expect.poll(() => page.locator('#result').innerText(), { timeout: 20_000 }).toMatch(expected);
  const html = await page.content();
  for (const pan of PANS) expect(html).not.toContain(pan);
  return page.locator('#result').innerText();
}
let pageText = '';

const orderOf = async (text: string) => (await t.engine.orders.view(/order (\S+)/.exec(text)![1]!))!;

describe('the sample shop pays through the hosted frame', { timeout: 120_000 }, () => {
  it('by card, approved: a finalized order with one gateway sale', async () => {
    const page = await openCheckout();
    // The reference's stylable ids: the expiry's month and year inside #expDate inside #expDateDiv.
    expect(await frameOf(page).locator('#expDateDiv > #expDate > #expMonthDiv > #expMonth').count()).toBe(1);
    expect(await frameOf(page).locator('#expDateDiv > #expDate > #expYearDiv > #expYear').count()).toBe(1);
    await fillCard(page, VISA);
    pageText = await page.content();
    const text = await pay(page, /Paid: order \S+ \(finalized\)/);
    await screenshot(page, 'ecommerce-card-approved');
    const order = await orderOf(text);
    expect(order).toMatchObject({ draft: false, amount_cents: 3050 });
    expect(order.transactions.map((x) => [x.action, x.state, x.amount_in_cents])).toEqual([['sale', 'completed', 3050]]);
    await page.close();
  });

  it('by card, refused by the issuer at tokenization; and by the session AVS rule', async () => {
    let page = await openCheckout();
    await fillCard(page, VISA_DECLINE);
    // The issuer refuses the card before a token is made (the reference's 412): the frame says so
    // and the shop's page hears it as a rejection, with no order.
    await page.click('#submit');
    await expect.poll(() => page.locator('#submitError').innerText(), { timeout: 20_000 }).toMatch(/verification failed/i);
    expect(await frameOf(page).locator('#formError').innerText()).toMatch(/verification failed/i);
    expect(await page.locator('#result').innerText()).toBe('');
    for (const pan of PANS) expect(await page.content()).not.toContain(pan);
    await page.close();
    // The AVS rule reads the sale's billing address: a new checkout, on the sandbox's test street.
    page = await openCheckout();
    await page.fill('#street', '234 Elm Street');
    await page.fill('#postCode', '80803');
    await fillCard(page, VISA);
    await pay(page, /Not paid: .*AVS N/);
    await screenshot(page, 'ecommerce-avs-refused');
    await page.close();
  });

  it('shows field errors beside the fields, and tells the page', async () => {
    const page = await openCheckout();
    await fillCard(page, '4895281000000007', '12');
    await page.click('#submit');
    const f = frameOf(page);
    await expect.poll(() => f.locator('#accountNo-error').innerText()).toMatch(/Credit card number is not a valid card number/);
    expect(await f.locator('#cvv-error').innerText()).toMatch(/Security code must be 3 digits/);
    expect(await f.locator('#accountNo').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#submitError').innerText()).toMatch(/Credit card number/);
    await f.locator('#type-ach').check();
    await f.getByLabel('Routing Number').fill('122105279');
    await page.click('#submit');
    await expect.poll(() => f.locator('#routingNo-error').innerText()).toMatch(/routing number/);
    await page.close();
  });

  it('by ACH', async () => {
    const page = await openCheckout();
    const f = frameOf(page);
    await f.locator('#type-ach').check();
    await f.getByLabel('Account Holder').fill('Jane Buyer');
    await f.getByLabel('Routing Number').fill('122105278');
    await f.locator('#achAccountNo').fill('0000000016');
    const text = await pay(page, /Paid: order/);
    const order = await orderOf(text);
    expect(order.transactions.map((x) => [x.payment_method, x.amount_in_cents])).toEqual([['bank_account', 3050]]);
    await page.close();
  });

  it('by gift card, and in two partial payments (gift card, then card)', async () => {
    const whole = await openCheckout();
    await fillGift(whole, GIFT_BIG, '4321');
    const paid = await pay(whole, /Paid: order \S+ \(finalized\)/);
    expect((await orderOf(paid)).transactions.map((x) => [x.payment_method, x.amount_in_cents])).toEqual([['gift_card', 3050]]);
    await whole.close();

    const page = await openCheckout();
    await fillGift(page, GIFT_SMALL, '1234');
    await page.click('#submit');
    await expect.poll(() => page.locator('#payments').innerText()).toMatch(/Gift card: 10\.00 \(partial; 20\.50 left\)/);
    await frameOf(page).locator('#type-creditCard').check();
    await fillCard(page, VISA);
    const text = await pay(page, /Paid: order \S+ \(finalized\)/);
    await screenshot(page, 'ecommerce-partial');
    const order = await orderOf(text);
    expect(order.draft).toBe(false);
    expect(order.transactions.map((x) => [x.payment_method, x.amount_in_cents])).toEqual([
      ['gift_card', 1000],
      ['credit_card', 2050],
    ]);
    await page.close();
  });

  it("saves a signed-in customer's card in the wallet, and pays with it next time without typing it", async () => {
    const first = await browser.newPage();
    await first.goto(`${shopUrl}/?customer=C77`);
    await first.locator('#submit:not([disabled])').waitFor({ timeout: 20_000 });
    expect(await frameOf(first).locator('#save-creditCard').isChecked()).toBe(true);
    await fillCard(first, VISA);
    await pay(first, /Paid: order/);
    await first.close();

    const page = await browser.newPage();
    await page.goto(`${shopUrl}/?customer=C77`);
    await page.locator('#submit:not([disabled])').waitFor({ timeout: 20_000 });
    const f = frameOf(page);
    await expect.poll(() => f.getByLabel('Visa ending 0006 (12/2030)').isChecked()).toBe(true);
    expect(await f.locator('#accountNo').isVisible()).toBe(false);
    const text = await pay(page, /Paid: order \S+ \(finalized\)/);
    const order = await orderOf(text);
    expect(order.transactions.map((x) => [x.payment_method, x.amount_in_cents])).toEqual([['credit_card', 3050]]);
    await page.close();
  });

  it("never lets a number reach the shop's server", () => {
    expect(logs).toMatch(/POST \/checkout\/pay/);
    for (const pan of PANS) expect(logs).not.toContain(pan);
  });
});

describe('a page on another origin', { timeout: 60_000 }, () => {
  it('gets no frame, cannot read one, and cannot get a token', async () => {
    const session = (await (await fetch(`${api.url}/api/v2/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ gatewayAuthorization: { apiToken: TEST_TOKEN, apiKey: TEST_KEY }, options: {} }) })).json()) as { id: string };
    const tokensBefore = (await recordsOfKind(t.engine.core, 'ecommerce_token')).length;
    for (const claim of [`http://127.0.0.1:${evilPort}`, shopUrl]) {
      const page = await browser.newPage();
      const frameAnswer = page.waitForResponse((r) => r.url().includes('/ecommerce/frame?'));
      await page.goto(`http://127.0.0.1:${evilPort}/?session=${session.id}&claim=${encodeURIComponent(claim)}`);
      const res = await frameAnswer;
      if (claim === shopUrl) {
        // Claiming an allowed origin gets the page, but its frame-ancestors keeps it out of this one.
        expect(res.headers()['content-security-policy']).toMatch(/frame-ancestors http:\/\/localhost:\* https:\/\/localhost:\*/);
      } else {
        expect(res.status()).toBe(403);
      }
      const readable = await page.evaluate(`(() => {
        try {
          return document.getElementById('f').contentDocument?.body?.innerHTML ?? null;
        } catch {
          return null;
        }
      })()`);
      expect(readable).toBeNull();
      expect(await page.evaluate('window.token')).toMatch(/^failed /);
      await page.close();
    }
    expect((await recordsOfKind(t.engine.core, 'ecommerce_token')).length).toBe(tokensBefore);
  });
});
