import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office read by a newcomer, in Debian's Chromium against `npm run serve`: the Products
 * table comes a page at a time with "Load more", as Customers and Invoices do (en-US and de-DE);
 * read in ar-EG (digits written right to left) the English, left-to-right aging heading keeps its
 * sentence order: the date where the sentence says it, then the amount, its minus sign at its
 * start. Screenshots: test-output/screenshots/lists-bidi-*.png.
 */
const TOKEN = 'LISTSBIDITOKEN01';
const KEY = 'lists-bidi-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const PRODUCTS = 130;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);

beforeAll(async () => {
  bo = await startBackoffice('lists-bidi', { token: TOKEN, key: KEY });
  url = bo.url;
  for (const [i, locale] of ['en-US', 'de-DE', 'ar-EG'].entries()) {
    const page = await bo.newPage(locale, { viewport: { width: 1280, height: 900 } });
    if (i === 0) await bo.claimOwner(page, OWNER);
    else await bo.signIn(page, OWNER);
    pages.set(locale, page);
  }
  for (let n = 0; n < PRODUCTS; n++) {
    await api('POST', '/api/pos/products', { code: `P${String(n).padStart(4, '0')}`, description: `Paged product ${String(n).padStart(4, '0')}`, price_cents: 100 + n, tax_rate: 0, category: 'Paging' });
  }
  await api('POST', '/api/imports/customer', { identifier: 'BIDI-1', name: 'Bidi reader' });
  await api('POST', '/api/imports/invoice', { number: 'BIDI-INV-1', customer_identifier: 'BIDI-1', amount: 25246433, date: '2026-01-05', due_date: '2026-02-10' });
}, 180_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

describe('the Products table', { timeout: 90_000 }, () => {
  for (const locale of ['en-US', 'de-DE']) {
    it(`comes a page at a time with Load more (${locale})`, async () => {
      const page = pages.get(locale)!;
      await page.goto(`${url}/app/pos/products`);
      const rows = page.getByRole('table', { name: 'Products' }).locator('tbody tr');
      await page.getByRole('button', { name: 'Load more' }).waitFor({ timeout: 30_000 });
      const first = await rows.count();
      expect(first).toBe(100);
      expect(await page.getByText('100 shown').count()).toBe(1);
      // Searching pages too: only what matches, still a page at a time.
      const total = ((await api<{ products: unknown[] }>('GET', '/api/pos/products?include_inactive=true&limit=500')).products).length;
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(Math.min(total, 200));
      // Prices still read in the screen's locale, and the rows are each product once.
      const codes = await page.getByRole('table', { name: 'Products' }).locator('tbody tr td:first-child').allInnerTexts();
      expect(new Set(codes).size).toBe(codes.length);
      await screenshot(page, `lists-bidi-products-${locale}`);
    });
  }
});

/** Where each text node's first character is drawn, left to right on the page, with its text. */
async function drawn(page: Page, selector: string): Promise<Array<{ text: string; left: number }>> {
  return page.locator(selector).evaluate((root) => {
    const out: Array<{ text: string; left: number }> = [];
    const walk = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const text = n.textContent ?? '';
      const digit = [...text].findIndex((c) => /[\u0660-\u0669]/.test(c));
      if (digit < 0) continue;
      // The leftmost edge of the node's digits: where the value starts on the page.
      let left = Infinity;
      for (let i = 0; i < text.length; i++) {
        if (!/[\u0660-\u0669]/.test(text[i]!)) continue;
        const r = root.ownerDocument.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        left = Math.min(left, r.getBoundingClientRect().left);
      }
      out.push({ text, left });
    }
    return out;
  });
}

describe('read in ar-EG', { timeout: 90_000 }, () => {
  it('the aging heading keeps its sentence order: the date, then the amount owed', async () => {
    const page = pages.get('ar-EG')!;
    await page.goto(`${url}/app/invoices`);
    const heading = page.getByLabel('Aging summary').locator('h2');
    await heading.waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await heading.innerText()).includes('US$')).toBe(true);
    const parts = await drawn(page, '[aria-label="Aging summary"] h2');
    const date = parts.find((p) => !p.text.includes('US$'))!;
    const amount = parts.find((p) => p.text.includes('US$'))!;
    expect(date, JSON.stringify(parts)).toBeDefined();
    expect(amount, JSON.stringify(parts)).toBeDefined();
    // "Aging on <date>: <amount> owed by ...": the date is drawn left of the amount on this left-to-right page.
    expect(date.left, JSON.stringify(parts)).toBeLessThan(amount.left);
    // And the sentence's words stay around them: "Aging on" left of the date, "owed" right of the amount.
    const box = (text: string) =>
      heading.evaluate((root, wanted) => {
        const walk = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
          const at = (n.textContent ?? '').indexOf(wanted);
          if (at < 0) continue;
          const r = root.ownerDocument.createRange();
          r.setStart(n, at);
          r.setEnd(n, at + wanted.length);
          return r.getBoundingClientRect().left;
        }
        return NaN;
      }, text);
    expect(await box('Aging on')).toBeLessThan(date.left);
    expect(await box('owed')).toBeGreaterThan(amount.left);
    await screenshot(page, 'lists-bidi-ar-EG-aging');
  });
});
