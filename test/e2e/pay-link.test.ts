import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { openTestEngine, basicAuth, type TestEngine } from '../helpers/harness';
import { VISA, VISA_DECLINE } from '../helpers/cards';
import { startServer, type RunningServer } from '../../src/server/http';

/**
 * The click-to-pay page a customer's pay_url opens, in Debian's Chromium, in en-US and fr-CA: the
 * invoice with its amounts and dates in the payer's locale, a declined card said in words with the
 * tries left, then an approved one and its receipt, and the invoice paid in the back office's
 * exports. The card number never stays in the page. Needs `npm run build` (out/ecommerce).
 * Screenshots: test-output/screenshots/pay-link-{,discount-}{en-US,fr-CA}.png.
 */
let t: TestEngine;
let api: RunningServer;
let browser: Browser;

const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${api.url}${path}`, { method, headers: { Authorization: basicAuth(), 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return (await res.json()) as Record<string, unknown>;
};

beforeAll(async () => {
  t = await openTestEngine();
  api = await startServer(t.engine, { port: 0, rateLimit: 100_000, uiDir: join(process.cwd(), 'out', 'renderer') });
  browser = await launchBrowser();
  await call('POST', '/api/imports/customer', { identifier: 'PAGE1', name: 'Acme Hardware', contacts: [{ email: 'ap@acme.test', first_name: 'Ann' }] });
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await t?.close();
});

async function fillCard(page: Page, pan: string) {
  await page.getByLabel('Cardholder Name').fill('Ann Payer');
  await page.locator('#accountNo').fill(pan);
  await page.locator('#expMonth').selectOption('12');
  await page.locator('#expYear').selectOption(String(new Date().getFullYear() + 3));
  await page.getByLabel('Security Code').fill('123');
  await page.getByLabel('Billing Postal Code').fill('K1C 2N6');
}

const CASES = [
  { locale: 'en-US', owing: '$1,234.56', due: 'March 31, 2027' },
  { locale: 'fr-CA', owing: '1 234,56 $ US', due: '31 mars 2027' },
] as const;

describe('the click-to-pay page', { timeout: 120_000 }, () => {
  for (const c of CASES) {
    it(`shows the invoice and takes a card payment (${c.locale})`, async () => {
      const number = `PAGE-${c.locale}`;
      const created = await call('POST', '/api/imports/invoice', { number, customer_identifier: 'PAGE1', amount: 123_456, date: '2027-03-01', due_date: '2027-03-31', echo: 'pay_urls' });
      const context = await browser.newContext({ locale: c.locale });
      const page = await context.newPage();
      try {
        await page.goto(created.pay_url as string);
        await expect.poll(async () => spaces(await page.locator('#owing').innerText()), { timeout: 20_000 }).toBe(c.owing);
        const details = spaces(await page.locator('#details').innerText());
        expect(details).toContain(number);
        expect(details).toContain('Acme Hardware');
        expect(details).toContain(c.due);
        expect(spaces(await page.locator('#payButton').innerText())).toBe(`Pay ${c.owing}`);

        // A mistyped number is caught on the page, beside its field; nothing is sent.
        await fillCard(page, '4895281000000007');
        await page.locator('#payButton').click();
        await expect.poll(() => page.locator('#accountNo-error').innerText()).toMatch(/not a valid card number/);

        await fillCard(page, VISA_DECLINE);
        await page.locator('#payButton').click();
        await expect.poll(() => page.locator('#formError').innerText(), { timeout: 20_000 }).toMatch(/declined.*4 more tries/s);
        expect(await page.locator('#accountNo').inputValue()).toBe('');

        await fillCard(page, VISA);
        await page.locator('#payButton').click();
        await expect.poll(() => page.locator('#receiptTitle').innerText(), { timeout: 20_000 }).toBe('Payment approved');
        expect(spaces(await page.locator('#paidAmount').innerText())).toBe(c.owing);
        const receipt = await page.locator('#receipt').innerText();
        expect(receipt).toContain('Visa **0006');
        expect(await page.locator('#payment').isHidden()).toBe(true);
        // The number leaves the page's fields once sent (the sandbox hint above the form lists the test cards).
        expect(await page.locator('#accountNo').inputValue()).toBe('');
        expect(await page.locator('#cvv').inputValue()).toBe('');
        expect(receipt).not.toContain(VISA);
        await screenshot(page, `pay-link-${c.locale}`);

        const invoice = await call('GET', `/api/exports/invoice/${number}`);
        expect(invoice.owing_cents).toBe(0);

        // The same link opened again says it is paid, with no form.
        await page.reload();
        await expect.poll(() => page.locator('#notice').innerText(), { timeout: 20_000 }).toContain('is paid');
        expect(await page.locator('#payButton').count()).toBe(0);
      } finally {
        await context.close();
      }
    });
  }

  const DISCOUNTED = [
    { locale: 'en-US', discount: '−$20.00', pay: '$980.00', by: 'if paid by March 10, 2027' },
    { locale: 'fr-CA', discount: '−20,00 $ US', pay: '980,00 $ US', by: 'if paid by 10 mars 2027' },
  ] as const;
  for (const c of DISCOUNTED) {
    it(`offers the early-payment discount the ERP sent and charges the rest (${c.locale})`, async () => {
      await call('PATCH', '/api/account', { capabilities: { discounts: true } });
      const number = `DISC-${c.locale}`;
      const created = await call('POST', '/api/imports/invoice', { number, customer_identifier: 'PAGE1', amount: 100_000, date: '2027-03-01', due_date: '2027-03-31', discount_rate: 0.02, discount_expiry_date: '2027-03-10', echo: 'pay_urls' });
      const context = await browser.newContext({ locale: c.locale });
      const page = await context.newPage();
      try {
        await page.goto(created.pay_url as string);
        await expect.poll(async () => spaces(await page.locator('#owing').innerText()), { timeout: 20_000 }).toBe(c.pay);
        expect(spaces(await page.locator('#discount').innerText())).toBe(c.discount);
        expect(spaces(await page.locator('#details').innerText())).toContain(c.by);
        expect(spaces(await page.locator('#payButton').innerText())).toBe(`Pay ${c.pay}`);
        await screenshot(page, `pay-link-discount-${c.locale}`);
        await fillCard(page, VISA);
        await page.locator('#payButton').click();
        await expect.poll(() => page.locator('#receiptTitle').innerText(), { timeout: 20_000 }).toBe('Payment approved');
        expect(spaces(await page.locator('#paidAmount').innerText())).toBe(c.pay);
        expect(await page.locator('#receipt').innerText()).toContain('Early-payment discount taken');
        expect((await call('GET', `/api/exports/invoice/${number}`)).owing_cents).toBe(0);
      } finally {
        await context.close();
      }
    });
  }

  it('says a link that names no invoice is not valid', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    try {
      const res = await page.goto(`${api.url}/pay/99999-ABCDEFGHJKLMNPQR`);
      expect(res?.status()).toBe(404);
      await expect.poll(() => page.locator('#notice').innerText(), { timeout: 20_000 }).toContain('not valid');
      // A key of another shape reads the same: no pattern, no "Loading".
      expect((await page.goto(`${api.url}/pay/abc`))?.status()).toBe(404);
      await expect.poll(() => page.locator('#notice').innerText(), { timeout: 20_000 }).toBe('This payment link is not valid. Ask the sender for a new one.');
      expect(await page.locator('#details').isHidden()).toBe(true);
    } finally {
      await context.close();
    }
  });
});
