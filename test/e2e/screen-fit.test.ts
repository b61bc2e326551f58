import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { card, MASTERCARD, VISA } from '../helpers/cards';
import { SocatPair } from '../serial/helpers';
import { apiOf, start, until, type Proc } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * Small things a reader sees, measured in Debian's Chromium against `npm run serve` (boxes, not
 * pixels), in en-CA and es-MX, which both write "3:56 a.m.": a sentence that ends with a time
 * ends with one full stop, not "a.m.."; the register's top bar stays on one row at 1024×768, Menu F10
 * included, with a person and a cashier signed in; the Settlement screen at 1024×768 shows the
 * batch table's money whole or says that more columns are past the card's edge, and draws each
 * "Mix by" ring inside its card. Screenshots: test-output/screenshots/fit-*.png.
 */
const TOKEN = 'SCREENFIT01';
const KEY = 'screen-fit-key-0123456789';
const OWNER = { email: 'owner.of.the.shop@example.com', password: 'owner password 1' };
const LOCALES = ['en-CA', 'es-MX'] as const;

let bo: BackofficeInstall;
let url: string;
let cashierCode: string;
let pair: SocatPair;
let sim: Proc;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b, 'a box for the element').not.toBeNull();
  return { left: b!.x, right: b!.x + b!.width, top: b!.y, bottom: b!.y + b!.height };
}

beforeAll(async () => {
  bo = await startBackoffice('screen-fit', { token: TOKEN, key: KEY });
  url = bo.url;
  cashierCode = (await bo.serve.waitFor(/Sample cashier of this sandbox \(shown once\): Sam Rivera, code (\d{4})/, 'the sample cashier line'))[1]!;
  // A signing key (made with the first endpoint), and a settled batch of two large card sales.
  await api('POST', '/api/account/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['customer.created'] });
  for (const [i, pan] of [VISA, MASTERCARD].entries()) {
    await api('POST', '/api/gateway/v1/orders/sale', { amount_cents: 987654 + i, credit_card: card(pan), order: { identifier: `FIT-SETTLE-${i + 1}` } });
  }
  await api('POST', '/api/sandbox/v1/clock/advance', { by: 'P1D' });
  await until(async () => (await api<{ batches: unknown[] }>('GET', '/api/gateway/v1/settlement/batches?list=true')).batches.length > 0, 'the settlement batch');
  pair = new SocatPair(bo.dir, 'lane1');
  await pair.plug();
  sim = start(['terminal-sim', '--', '--port', pair.device, '--interactive', '--pace', 'fast']);
  await sim.waitFor(/terminal simulator/, 'the simulator to start');
  await api('POST', '/api/lanes', { laneid: '1', port_path: pair.host, name: 'Lane 1' });
  await until(async () => (await api<{ last_setup_at: string | null }>('GET', '/api/lanes/1')).last_setup_at !== null, 'lane 1 to connect and be set up');
  for (const locale of LOCALES) {
    // The shop's zone (serve runs in UTC): times are shown without a zone name, as most readers see them.
    const page = await bo.newPage(locale, { timezoneId: 'UTC', viewport: { width: 1024, height: 768 } });
    if (locale === 'en-CA') await bo.claimOwner(page, OWNER);
    else await bo.signIn(page, OWNER);
    pages.set(locale, page);
  }
  // A person's whole name, as a shop writes it: the register's top bar shows it beside the cashier's.
  const owner = (await api<{ users: Array<{ id: string; email: string }> }>('GET', '/api/users')).users.find((u) => u.email === OWNER.email)!;
  await api('PATCH', `/api/users/${owner.id}`, { name: 'María Fernanda Castillo' });
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(async () => {
  await sim?.stop();
  await bo?.close();
  await pair?.unplug();
});

for (const locale of LOCALES) {
  describe(`what fits and reads well in ${locale}`, { timeout: 90_000 }, () => {
    const page = () => pages.get(locale)!;

    it('a sentence ending with a time has one full stop (the signing key "made …")', async () => {
      await page().goto(`${url}/app/developers/webhook_responses`);
      const said = page().getByText(/^Deliveries are signed/);
      await said.waitFor();
      const text = await said.innerText();
      // The hour ends "a.m." or "p.m.": the sentence's own stop is not added after it.
      expect(text).toMatch(/ [ap]\.\s?m\.$/);
    });

    it('keeps the register\'s top bar on one row at 1024×768, Menu F10 included', async () => {
      await page().goto(`${url}/app/register`);
      await page().getByTestId('lane-1').waitFor();
      await page().keyboard.press('1');
      await page().getByLabel('Cashier code').waitFor();
      await page().keyboard.type(cashierCode);
      await page().keyboard.press('Enter');
      await page().getByTestId('scan').waitFor();
      await until(async () => (await page().getByTestId('live').innerText()) === 'Live', 'the live badge');
      const bar = page().locator('header.pos-top');
      const menu = await box(bar.getByRole('button', { name: /^Menu/ }));
      const keys = await box(bar.getByRole('button', { name: /^Keys/ }));
      const cashier = await box(bar.getByTestId('cashier'));
      const user = await box(bar.getByTestId('register-user'));
      for (const [what, b] of [['Keys', keys], ['the cashier', cashier], ['the user', user]] as const) {
        expect(Math.abs(b.top + b.bottom - menu.top - menu.bottom) / 2, `${what} on Menu's row`).toBeLessThan(4);
      }
      expect(menu.right).toBeLessThanOrEqual(1024);
      // Each button's key beside its word: "Menu F10", never "Menu" over "F10".
      for (const name of [/^Menu/, /^Keys/]) {
        const [word, key] = await bar.getByRole('button', { name }).evaluate((el) => {
          const range = el.ownerDocument.createRange();
          range.selectNodeContents(el.firstChild!);
          const w = range.getBoundingClientRect();
          const k = el.querySelector('kbd')!.getBoundingClientRect();
          return [{ right: w.right, middle: (w.top + w.bottom) / 2 }, { left: k.left, middle: (k.top + k.bottom) / 2 }];
        });
        expect(key!.left, `${String(name)}: its key after its word`).toBeGreaterThan(word!.right);
        expect(Math.abs(key!.middle - word!.middle), `${String(name)}: its key on its word's line`).toBeLessThan(6);
      }
      await screenshot(page(), `fit-register-top-${locale}`);
    });

    it('Settlement at 1024×768: the money in the batch table whole or a sign of more columns; each ring inside its card', async () => {
      await page().goto(`${url}/app/settlement`);
      const table = page().getByRole('table', { name: 'Batch deposits' });
      await table.getByRole('row').nth(1).waitFor();
      const frame = await box(table.locator('xpath=ancestor::div[contains(@class, "card")][1]'));
      // The Net deposit column: drawn whole inside the card, or named as past its edge.
      const net = await box(table.getByRole('columnheader', { name: 'Net deposit' }));
      const cell = await box(table.getByRole('row').nth(1).getByRole('cell').nth(6));
      if (net.right > frame.right + 0.5 || cell.right > frame.right + 0.5) {
        const more = page().getByRole('button', { name: /^More columns: .*Net deposit/ });
        await more.waitFor({ timeout: 5_000 });
        await more.click();
        await until(async () => (await box(table.getByRole('columnheader', { name: 'Net deposit' }))).right <= frame.right + 0.5, 'Net deposit in view');
      }
      for (const title of ['Mix by card brand', 'Mix by tender']) {
        const chart = page().getByLabel(title, { exact: true });
        const inside = await box(chart);
        await chart.locator('.recharts-pie-sector path').first().waitFor();
        for (const sector of await chart.locator('.recharts-pie-sector path').all()) {
          const ring = await box(sector);
          expect(ring.left, `${title}: left`).toBeGreaterThanOrEqual(inside.left);
          expect(ring.right, `${title}: right`).toBeLessThanOrEqual(inside.right);
          expect(ring.top, `${title}: top`).toBeGreaterThanOrEqual(inside.top);
          expect(ring.bottom, `${title}: bottom`).toBeLessThanOrEqual(inside.bottom);
        }
        // Nor cut by the chart's own drawing area.
        const svg = await box(chart.locator('.recharts-wrapper > svg'));
        const ring = await box(chart.locator('.recharts-pie').first());
        expect(ring.left, `${title}: inside its drawing`).toBeGreaterThanOrEqual(svg.left - 0.5);
        expect(ring.right, `${title}: inside its drawing`).toBeLessThanOrEqual(svg.right + 0.5);
        expect(ring.top, `${title}: inside its drawing`).toBeGreaterThanOrEqual(svg.top - 0.5);
        expect(ring.bottom, `${title}: inside its drawing`).toBeLessThanOrEqual(svg.bottom + 0.5);
      }
      await screenshot(page(), `fit-settlement-${locale}`);
    });
  });
}
