import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatMoney } from '../../src/shared/money';

/**
 * A big figure in a card (the customer's Balance) with an amount of 10+ digits, at 1024×768 in
 * en-GB ("US$9,999,999,999.99") and de-DE ("9.999.999.999,99 $"), in Debian's Chromium against
 * `npm run serve`: the whole amount is drawn inside its card, shrunk or wrapped, never cut at the
 * card's edge; a short amount keeps the figure's size. Screenshots: test-output/screenshots/big-figure-*.png.
 */
const TOKEN = 'BIGFIGURE0001';
const KEY = 'big-figure-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = ['en-GB', 'de-DE'] as const;
const HUGE = 'LONGNAME-CUSTOMER-IDENTIFIER-0001';

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b, 'a box for the element').not.toBeNull();
  return { left: b!.x, right: b!.x + b!.width };
}

beforeAll(async () => {
  bo = await startBackoffice('big-figure', { token: TOKEN, key: KEY });
  url = bo.url;
  await api('POST', '/api/imports/customer', { identifier: HUGE, name: 'Long Name Customer' });
  await api('POST', '/api/imports/invoice', { number: 'INV-HUGE-000000000000000001', customer_identifier: HUGE, amount: 999999999999, date: '2026-06-01', due_date: '2026-07-01' });
  await api('POST', '/api/imports/customer', { identifier: 'SMALL', name: 'Small Customer' });
  await api('POST', '/api/imports/invoice', { number: 'INV-SMALL-1', customer_identifier: 'SMALL', amount: 14825, date: '2026-06-01', due_date: '2026-07-01' });
  for (const locale of LOCALES) {
    const page = await bo.newPage(locale, { viewport: { width: 1024, height: 768 } });
    if (pages.size === 0) await bo.claimOwner(page, OWNER);
    else await bo.signIn(page, OWNER);
    pages.set(locale, page);
  }
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

for (const locale of LOCALES) {
  describe(`the customer's Balance at 1024×768 in ${locale}`, { timeout: 90_000 }, () => {
    const page = () => pages.get(locale)!;

    it('draws a 10-digit balance whole inside its card, never cut at the edge', async () => {
      await page().goto(`${url}/app/customers/${HUGE}`);
      const figure = page().getByLabel('Balance', { exact: true });
      const amount = figure.locator('.num');
      await amount.waitFor();
      const whole = spaces(formatMoney(999999999999, 'USD', { locale }));
      expect(spaces(await amount.innerText()).replace(/\s*\n\s*/g, '')).toBe(whole);
      const card = await box(figure.locator('xpath=ancestor::div[contains(@class, "card")][1]'));
      const drawn = await box(amount);
      expect(drawn.left, 'left inside the card').toBeGreaterThanOrEqual(card.left);
      expect(drawn.right, 'right inside the card').toBeLessThanOrEqual(card.right);
      // Nor past the figure's own box (the card's padding): nothing overflows it.
      expect(await figure.evaluate((p) => p.scrollWidth <= p.clientWidth)).toBe(true);
      await screenshot(page(), `big-figure-balance-${locale}`);
    });

    it('keeps a short balance at the figure’s size', async () => {
      await page().goto(`${url}/app/customers/SMALL`);
      const figure = page().getByLabel('Balance', { exact: true });
      const amount = figure.locator('.num');
      await amount.waitFor();
      expect(spaces(await amount.innerText())).toBe(spaces(formatMoney(14825, 'USD', { locale })));
      const [own, around] = await amount.evaluate((s) => {
        const view = s.ownerDocument.defaultView!;
        return [view.getComputedStyle(s).fontSize, view.getComputedStyle(s.parentElement!).fontSize];
      });
      expect(own).toBe(around);
    });
  });
}
