import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { SocatPair } from '../serial/helpers';
import { apiOf, start, until, type Proc } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatMoney } from '../../src/shared/money';
import { upload } from '../imports/upload';
import { card, MASTERCARD, VISA } from '../helpers/cards';

/**
 * The screens' layout measured in Debian's Chromium (boxes, not pixels), in en-US and in fr-CA
 * ("12 345,67 $ US"), at 1024 and 1280 wide, with long names and large amounts: the back office's
 * customer list keeps who the customer is readable (the table scrolls inside its card instead),
 * its top bar keeps the store's and the user's names whole; a customer's open invoices and
 * payments and the orders keep their dates, identifiers and headers whole (never "20 nov. 2…"); the
 * Products table scrolls in its card; the register's X report parts never overlap nor widen the page,
 * and a sale's totals stand in its Amount column, inside the card, beside names not squeezed to a
 * word a line. The Imports and Settlement batch tables scroll inside their cards, not the page; the
 * Users rows' cells (buttons included) share one top and bottom. The register with a long sale fits
 * the window: its lines scroll in their pane, the newest in view, the totals and every tender and
 * line button visible. Screenshots: test-output/screenshots/layout-*.png.
 */
const TOKEN = 'SCREENLAYOUT01';
const KEY = 'screen-layout-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  { locale: 'en-US', p: 'EN' },
  { locale: 'fr-CA', p: 'FR' },
] as const;
const SIZES = [
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
] as const;
const LONG_NAMES = ['Northwind Traders Wholesale Distribution', 'Boulangerie Pâtisserie du Vieux-Montréal', 'Contoso Hospitality Group International'];

let bo: BackofficeInstall;
let url: string;
let cashierCode: string;
let pair: SocatPair;
let sim: Proc;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const plain = (s: string) => s.replace(/[\s\u00a0\u202f]+/g, ' ').trim();
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function box(l: Locator) {
  const b = await l.boundingBox();
  expect(b, 'a box for the element').not.toBeNull();
  return { left: b!.x, right: b!.x + b!.width, top: b!.y, bottom: b!.y + b!.height, width: b!.width, height: b!.height };
}

/** The page is no wider than the window: nothing to scroll sideways. */
async function noSidewaysScroll(page: Page) {
  const [scroll, width] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  expect(scroll, 'the page width').toBeLessThanOrEqual(width);
}

/** The page is no taller than the window: nothing below the fold. */
async function noDownwardScroll(page: Page) {
  const [scroll, height] = (await page.evaluate('[document.documentElement.scrollHeight, window.innerHeight]')) as [number, number];
  expect(scroll, 'the page height').toBeLessThanOrEqual(height);
}

/** Wholly within the window, as the page first shows it. */
async function inView(page: Page, l: Locator, what: string) {
  const b = await box(l);
  const size = page.viewportSize()!;
  expect(b.top, `${what}: top`).toBeGreaterThanOrEqual(0);
  expect(b.bottom, `${what}: bottom`).toBeLessThanOrEqual(size.height);
  expect(b.right, `${what}: right`).toBeLessThanOrEqual(size.width);
}

/** The box of an element's text itself (not its cell), and on how many lines it is drawn. */
async function textBox(l: Locator) {
  return l.evaluate((el) => {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    const b = range.getBoundingClientRect();
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top / 4)));
    return { left: b.left, right: b.right, lines: tops.size };
  });
}

/** On how many lines `text` (a run of `el`'s text, across its inner elements) is drawn. */
async function linesOfText(el: Locator, text: string) {
  return el.evaluate((root, wanted) => {
    const doc = root.ownerDocument;
    // 4: NodeFilter.SHOW_TEXT (the page's global, not this file's).
    const walk = doc.createTreeWalker(root, 4);
    const nodes: Array<NonNullable<ReturnType<typeof walk.nextNode>>> = [];
    for (let n = walk.nextNode(); n; n = walk.nextNode()) nodes.push(n);
    const text = (n: (typeof nodes)[number]) => n.textContent ?? '';
    const whole = nodes.map(text).join('').replace(/[\u00a0\u202f]/g, ' ');
    const start = whole.indexOf(wanted);
    if (start < 0) return 0;
    const end = start + wanted.length;
    const range = doc.createRange();
    let at = 0;
    for (const n of nodes) {
      const length = text(n).length;
      if (start >= at && start <= at + length) range.setStart(n, start - at);
      if (end >= at && end <= at + length) {
        range.setEnd(n, end - at);
        break;
      }
      at += length;
    }
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top / 4))).size;
  }, text);
}

/** Every header and cell of a list as drawn (the rows in view): none cut, its text within its box. */
async function noCutCells(table: Locator, what: string) {
  const cut = await table.evaluate((el) =>
    [...el.querySelectorAll('[role="columnheader"], [role="cell"]')]
      .filter((c) => c.scrollWidth > c.clientWidth + 0.5)
      .map((c) => c.textContent ?? ''),
  );
  expect(cut, `${what}: cut texts`).toEqual([]);
}

/** A field's placeholder drawn whole in its box (measured in the field's own font). */
async function placeholderWhole(input: Locator): Promise<boolean> {
  return input.evaluate((el) => {
    const doc = el.ownerDocument;
    const pen = doc.createElement('canvas').getContext('2d')!;
    const cs = doc.defaultView!.getComputedStyle(el);
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const field = el as unknown as { placeholder: string; clientWidth: number };
    return pen.measureText(field.placeholder).width <= field.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  });
}

/** An import batch with a long file name, and a settled batch of card sales with large amounts (the clock moved past the cut-off). */
async function seedBatches() {
  const csv = 'code,name\nLAYOUT1,Northwind Traders Wholesale Distribution\n';
  const res = await upload(url, csv, { filename: 'northwind-traders-wholesale-distribution-branches-2026.csv', auth, force: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await until(async () => (await api<{ status: string }>('GET', `/api/imports/${res.body.id}`)).status !== 'processing', 'the import batch');
  for (const [i, pan] of [VISA, MASTERCARD].entries()) {
    await api('POST', '/api/gateway/v1/orders/sale', { amount_cents: 987654 + i, credit_card: card(pan), order: { identifier: `LAYOUT-SETTLE-${i + 1}` } });
  }
  await api('POST', '/api/sandbox/v1/clock/advance', { by: 'P1D' });
  await until(async () => (await api<{ batches: unknown[] }>('GET', '/api/gateway/v1/settlement/batches?list=true')).batches.length > 0, 'the settlement batch');
}

async function seed(p: string) {
  const names = LONG_NAMES.map((n, i) => ({ identifier: `${p}-${['NORTHWIND', 'BOULANGE', 'CONTOSO'][i]}`, name: `${n} (${p})` }));
  for (const c of names) await api('POST', '/api/imports/customer', c);
  // Every aging bucket holds a large amount, so the money columns are as wide as they get.
  let n = 0;
  for (const c of names) {
    for (const due of [30, -10, -45, -75, -200]) {
      n += 1;
      await api('POST', '/api/imports/invoice', { number: `${p}-L-${n}`, customer_identifier: c.identifier, amount: 1234567, date: day(due - 30), due_date: day(due) });
    }
  }
  // An invoice with both taxes, large: each "Tax N: amount" is kept together in its card.
  await api('POST', '/api/imports/customer', { identifier: `${p}-TAXES`, name: `Taxes (${p})` });
  await api('POST', '/api/imports/invoice', { number: `${p}-TAX`, customer_identifier: `${p}-TAXES`, amount: 1234567, subtotal_tax1: 123456, subtotal_tax2: 246913, date: day(-30), due_date: day(30) });
  // Payments and orders with identifiers as long as an ERP's.
  const northwind = names[0]!.identifier;
  for (const i of [1, 2]) await api('POST', '/api/imports/payment', { identifier: `CHQ-C-${p}-2026-11-00012${i}`, customer_identifier: northwind, amount_cents: 1234567, external_payment_type: 'cheque', external_payment_number: `10${i}` });
  for (const i of [1, 2]) await api('POST', '/api/gateway/v1/orders/sale', { amount_cents: 1234567 + i, credit_card: card(VISA), order: { identifier: `ORD-${p}-2026-11-000${i}23-NORTHWIND`, customer_identifier: northwind } });
}

beforeAll(async () => {
  bo = await startBackoffice('screen-layout', { token: TOKEN, key: KEY });
  url = bo.url;
  cashierCode = (await bo.serve.waitFor(/Sample cashier of this sandbox \(shown once\): Sam Rivera, code (\d{4})/, 'the sample cashier line'))[1]!;
  for (const { p } of LOCALES) await seed(p);
  await seedBatches();
  pair = new SocatPair(bo.dir, 'lane1');
  await pair.plug();
  sim = start(['terminal-sim', '--', '--port', pair.device, '--interactive', '--pace', 'fast']);
  await sim.waitFor(/terminal simulator/, 'the simulator to start');
  await api('POST', '/api/lanes', { laneid: '1', port_path: pair.host, name: 'Lane 1' });
  await until(async () => (await api<{ last_setup_at: string | null }>('GET', '/api/lanes/1')).last_setup_at !== null, 'lane 1 to connect and be set up');
  // Long names, large prices: "Planche de service en noyer, grand format" at 12 345,67 $ US.
  await api('POST', '/api/pos/products', { code: '7101', description: 'Planche de service en noyer, grand format', price_cents: 1234567, tax_rate: 13, category: 'Cuisine' });
  await api('POST', '/api/pos/products', { code: '7102', description: 'Handmade stoneware dinner set for twelve', price_cents: 987654, tax_rate: 13, category: 'Kitchen' });
  const en = await bo.newPage('en-US');
  await bo.claimOwner(en, OWNER);
  pages.set('en-US', en);
  const fr = await bo.newPage('fr-CA');
  await bo.signIn(fr, OWNER);
  pages.set('fr-CA', fr);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(async () => {
  await sim?.stop();
  await bo?.close();
  await pair?.unplug();
});

for (const { locale, p } of LOCALES) {
  describe(`the back office's layout in ${locale}`, { timeout: 120_000 }, () => {
    const page = () => pages.get(locale)!;

    for (const size of SIZES) {
      it(`keeps who each customer is readable at ${size.width}×${size.height}, the amounts whole (the table scrolls in its card)`, async () => {
        await page().setViewportSize(size);
        await page().goto(`${url}/app/customers?q=${p}-`);
        const table = page().getByRole('table', { name: 'Customers' });
        const rows = table.getByRole('row');
        await table.getByText(`${p}-NORTHWIND`, { exact: true }).waitFor();
        await expect.poll(async () => plain(await rows.nth(1).getByRole('cell').nth(3).innerText())).toBe(plain(formatMoney(6172835, 'USD', { locale })));
        await noSidewaysScroll(page());
        const card = await box(table);
        for (let r = 1; r <= 3; r += 1) {
          const cells = rows.nth(r).getByRole('cell');
          // The identifier whole; the name given room (16 characters or more); the status pill whole.
          const id = cells.nth(0);
          expect(await id.evaluate((el) => el.scrollWidth <= el.clientWidth), `${await id.innerText()} whole`).toBe(true);
          expect((await box(id)).width).toBeGreaterThan(100);
          expect((await box(cells.nth(1))).width).toBeGreaterThan(130);
          const status = await box(cells.nth(2));
          const pill = await box(cells.nth(2).locator('.pill'));
          expect(pill.right).toBeLessThanOrEqual(status.right + 0.5);
        }
        // Over 90: reached by scrolling the table sideways (inside the card), whole.
        await table.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
        const over = await box(table.getByRole('columnheader', { name: 'Over 90' }));
        expect(over.width).toBeGreaterThan(40);
        expect(over.right).toBeLessThanOrEqual(card.right + 0.5);
        const last = await textBox(rows.nth(1).getByRole('cell').nth(8));
        expect(last.right).toBeLessThanOrEqual(card.right + 0.5);
        // The search box's placeholder whole: what it searches.
        expect(await placeholderWhole(page().getByLabel('Customer identifier or name')), 'the search placeholder whole').toBe(true);
        await screenshot(page(), `layout-customers-${locale}-${size.width}`);
        await table.evaluate((el) => el.scrollTo({ left: 0 }));
      });
    }

    it('says at 1024×768 that the Customers list has columns past its edge, names them, and takes you to them and back', async () => {
      await page().setViewportSize({ width: 1024, height: 768 });
      await page().goto(`${url}/app/customers?q=${p}-`);
      const table = page().getByRole('table', { name: 'Customers' });
      await table.getByText(`${p}-NORTHWIND`, { exact: true }).waitFor();
      const more = table.getByRole('button', { name: /^More columns: / });
      await more.waitFor();
      // The columns named are those past the edge: Over 90 among them, the customer's identifier not.
      const named = plain(await more.innerText());
      expect(named).toContain('Over 90');
      expect(named).not.toContain('Customer');
      await inView(page(), more, 'the More columns button');
      // The card's right edge is shaded while columns are past it.
      const frame = table.locator('xpath=..');
      expect(await frame.getAttribute('data-more')).toBe('right');
      await screenshot(page(), `layout-customers-more-columns-${locale}`);
      await more.click();
      const card = await box(table);
      await until(async () => (await box(table.getByRole('columnheader', { name: 'Over 90' }))).right <= card.right + 0.5, 'Over 90 in view');
      const back = table.getByRole('button', { name: '← First columns' });
      await back.waitFor();
      expect(await frame.getAttribute('data-more')).toBeNull();
      await back.click();
      await until(async () => (await table.evaluate((el) => el.scrollLeft)) === 0, 'the first columns again');
      await more.waitFor();
    });

    it("keeps each tax with its amount on the invoice's Taxes card at 1024×768 (never \"T / ax 2\")", async () => {
      await page().setViewportSize({ width: 1024, height: 768 });
      await page().goto(`${url}/app/invoices/${p}-TAX`);
      const taxes = page().getByLabel('Taxes');
      await taxes.waitFor();
      const card = await box(taxes.locator('xpath=ancestor::div[contains(@class, "card")][1]'));
      for (const [n, cents] of [[1, 123456], [2, 246913]] as const) {
        const words = `Tax ${n}: ${plain(formatMoney(cents, 'USD', { locale }))}`;
        expect(plain(await taxes.innerText())).toContain(words);
        expect(await linesOfText(taxes, words), words).toBe(1);
      }
      expect((await textBox(taxes)).right).toBeLessThanOrEqual(card.right);
      await noSidewaysScroll(page());
      await screenshot(page(), `layout-invoice-taxes-${locale}`);
    });

    it("keeps dates and identifiers whole at 1024×768: a customer's open invoices and payments, and the orders", async () => {
      await page().setViewportSize({ width: 1024, height: 768 });
      await page().goto(`${url}/app/customers/${p}-NORTHWIND`);
      const invoices = page().getByRole('table', { name: 'Invoices' });
      const payments = page().getByRole('table', { name: 'Payments' });
      await invoices.getByText(`${p}-L-1`, { exact: true }).waitFor();
      await payments.getByText(`CHQ-C-${p}-2026-11-000121`, { exact: true }).waitFor();
      await noSidewaysScroll(page());
      await noCutCells(invoices, 'open invoices');
      await noCutCells(payments, 'payments');
      await screenshot(page(), `layout-customer-lists-${locale}`);
      await page().goto(`${url}/app/orders`);
      const orders = page().getByRole('table', { name: 'Orders' });
      await orders.getByText(`ORD-${p}-2026-11-000123-NORTHWIND`, { exact: true }).waitFor();
      await noSidewaysScroll(page());
      await noCutCells(orders, 'orders');
      await screenshot(page(), `layout-orders-${locale}`);
    });

    it('keeps the Imports batches in their card at 1024: the page does not scroll sideways, the table does', async () => {
      await page().setViewportSize({ width: 1024, height: 700 });
      await page().goto(`${url}/app/imports`);
      const table = page().getByRole('table', { name: 'Batches' });
      await table.getByText('northwind-traders-wholesale-distribution-branches-2026.csv').waitFor();
      await noSidewaysScroll(page());
      const card = await box(table.locator('xpath=ancestor::div[contains(@class, "card")][1]'));
      expect(card.right).toBeLessThanOrEqual(1024);
      const scroller = table.locator('xpath=..');
      await scroller.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
      expect((await box(table.getByRole('columnheader', { name: 'Result' }))).right).toBeLessThanOrEqual(card.right + 0.5);
      await scroller.evaluate((el) => el.scrollTo({ left: 0 }));
      await screenshot(page(), `layout-imports-${locale}`);
    });

    it('keeps the Products table in its card at 1024×768: the page does not scroll sideways, the table does, its Deactivate buttons inside the card', async () => {
      await page().setViewportSize({ width: 1024, height: 768 });
      await page().goto(`${url}/app/pos`);
      const table = page().getByRole('table', { name: 'Products' });
      await table.getByText('Planche de service en noyer, grand format').waitFor();
      await noSidewaysScroll(page());
      const card = await box(table.locator('xpath=ancestor::div[contains(@class, "card")][1]'));
      expect(card.right).toBeLessThanOrEqual(1024);
      const scroller = table.locator('xpath=..');
      await scroller.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
      const buttons = await table.getByRole('button', { name: 'Deactivate' }).all();
      expect(buttons.length).toBeGreaterThan(1);
      for (const b of buttons) expect((await box(b)).right, 'a Deactivate button').toBeLessThanOrEqual(card.right + 0.5);
      await screenshot(page(), `layout-products-${locale}`);
      await scroller.evaluate((el) => el.scrollTo({ left: 0 }));
    });

    it('keeps the Settlement batches in their card at 1024: the page does not scroll sideways, the table does', async () => {
      await page().setViewportSize({ width: 1024, height: 700 });
      await page().goto(`${url}/app/settlement`);
      const table = page().getByRole('table', { name: 'Batch deposits' });
      await table.getByRole('row').nth(1).waitFor();
      // A batch opened shows its transactions in a table within the row.
      await table.getByRole('row').nth(1).click();
      await page().getByRole('table', { name: /^Transactions of / }).getByText('LAYOUT-SETTLE-1').waitFor();
      await noSidewaysScroll(page());
      const card = await box(table.locator('xpath=ancestor::div[contains(@class, "card")][1]'));
      expect(card.right).toBeLessThanOrEqual(1024);
      await screenshot(page(), `layout-settlement-${locale}`);
    });

    it("draws each Users row as one line: its buttons' cell shares the row's top and bottom", async () => {
      await page().setViewportSize({ width: 1024, height: 700 });
      await page().goto(`${url}/app/users`);
      const table = page().getByRole('table', { name: 'Users' });
      await table.getByRole('button', { name: 'New link' }).first().waitFor();
      const rows = await table.locator('tbody tr').all();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const cells = await Promise.all((await row.locator('td').all()).map((c) => box(c)));
        expect(cells.length).toBe(5);
        for (const [i, c] of cells.entries()) {
          expect(Math.abs(c.top - cells[0]!.top), `cell ${i + 1}'s top`).toBeLessThan(0.5);
          expect(Math.abs(c.bottom - cells[0]!.bottom), `cell ${i + 1}'s bottom`).toBeLessThan(0.5);
        }
        expect(cells[4]!.left, 'the buttons in the last column').toBeGreaterThanOrEqual(cells[3]!.right - 0.5);
      }
      await screenshot(page(), `layout-users-${locale}`);
    });

    it('keeps the top bar whole at 1024×768: the store name and who is signed in never cut, Sign out whole', async () => {
      await page().setViewportSize({ width: 1024, height: 768 });
      await page().goto(`${url}/app/users`);
      const bar = page().locator('header.bo-top');
      await bar.getByRole('button', { name: 'Sign out' }).waitFor();
      await noSidewaysScroll(page());
      for (const part of [bar.getByRole('button', { name: 'Sign out' }), bar.getByLabel('Signed in user'), bar.locator('.badge').first()]) {
        expect((await textBox(part)).lines, await part.innerText()).toBe(1);
      }
      const h1 = bar.locator('h1');
      expect(await h1.getAttribute('title')).toMatch(/^Laneway · \S/);
      expect((await textBox(h1)).lines).toBe(1);
      for (const part of [h1, bar.getByLabel('Signed in user')]) {
        expect(await part.evaluate((el) => el.scrollWidth <= el.clientWidth), `${await part.innerText()} whole`).toBe(true);
      }
      expect(plain(await h1.innerText())).toBe('Laneway · Laneway Sandbox Store');
      expect(plain(await bar.getByLabel('Signed in user').innerText())).toBe('Owner · owner');
      const search = await box(bar.locator('input').first());
      expect(search.width).toBeGreaterThan(200);
      expect((await box(bar)).height).toBeLessThan(72);
      await screenshot(page(), `layout-topbar-${locale}`);
    });

    it("keeps the top bar on one row at 1024×768 for a user with a long name: Sign out beside the search, not under it", async () => {
      const made = await api<{ link: string }>('POST', '/api/users', { email: `mc.tremblay.${p.toLowerCase()}@example.com`, role: 'manager', name: 'Marie-Claude Tremblay' });
      const manager = await bo.newPage(locale, { viewport: { width: 1024, height: 768 } });
      await manager.goto(`${url}/app/welcome#link=${made.link}`);
      await manager.getByLabel('New password', { exact: true }).fill('manager password 1');
      await manager.getByLabel('The same again', { exact: true }).fill('manager password 1');
      await manager.keyboard.press('Enter');
      await manager.getByLabel('Signed in user').waitFor();
      await manager.goto(`${url}/app/customers`);
      const bar = manager.locator('header.bo-top');
      const signOut = bar.getByRole('button', { name: 'Sign out' });
      await signOut.waitFor();
      await noSidewaysScroll(manager);
      const search = await box(bar.locator('input').first());
      const middle = (b: { top: number; height: number }) => b.top + b.height / 2;
      for (const part of [signOut, bar.getByLabel('Signed in user'), bar.locator('.badge').first()]) {
        expect(Math.abs(middle(await box(part)) - middle(search)), `${await part.innerText()} on the search's row`).toBeLessThan(4);
        expect((await textBox(part)).lines, await part.innerText()).toBe(1);
      }
      expect(plain(await bar.getByLabel('Signed in user').innerText())).toBe('Marie-Claude Tremblay · manager');
      // The business name gives way between its words, whole.
      const h1 = bar.locator('h1');
      expect(await h1.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      expect((await box(bar)).height).toBeLessThan(72);
      await screenshot(manager, `layout-topbar-long-name-${locale}`);
      await manager.context().close();
    });
  });
}

for (const { locale } of LOCALES) {
  describe(`the register's layout in ${locale}`, { timeout: 120_000 }, () => {
    let context: BrowserContext;
    let page: Page;
    let number: string;
    const seen = (testid: string) => page.getByTestId(testid).waitFor({ state: 'visible', timeout: 30_000 });
    /** Esc until the sale screen is back (the refund form, then the sale, then the finder). */
    const backToTheSale = () => until(async () => (await page.getByTestId('scan').isVisible()) || void (await page.keyboard.press('Escape')), 'the sale screen');
    const scan = async (code: string) => {
      await page.keyboard.type(code);
      await page.keyboard.press('Enter');
    };
    /** The open sale paid in cash, the receipt closed: the sale screen is empty again. */
    const payInCash = async () => {
      await page.keyboard.press('F4');
      await seen('cash-given');
      await page.keyboard.press('Enter');
      await seen('receipt');
      await page.keyboard.press('Enter');
      await seen('scan');
    };

    beforeAll(async () => {
      context = await bo.browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      pages.set(`register-${locale}`, page);
      await page.goto(`${url}/app/`);
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByLabel('API key').fill(KEY);
      await page.keyboard.press('Enter');
      await seen('lane-1');
      await page.keyboard.press('1');
      await page.getByLabel('Cashier code').waitFor();
      await page.keyboard.type(cashierCode);
      await page.keyboard.press('Enter');
      await seen('scan');
      // A cash sale of two long, costly lines.
      await scan('7101');
      await scan('7102');
      await until(async () => plain(await page.getByTestId('lines').innerText()).includes('Handmade stoneware'), 'both lines on the sale');
      const sale = (await api<{ open_sale: { number: string } | null }>('GET', '/api/pos/registers/1')).open_sale!;
      number = sale.number;
      await payInCash();
    });

    afterAll(async () => {
      pages.delete(`register-${locale}`);
      await context?.close();
    });

    it('keeps a long sale on one screen at both sizes: its lines scroll in their pane, the totals and tender buttons in view', async () => {
      // Rung up at the smaller size: the window is not resized mid-sale on a till.
      await page.setViewportSize(SIZES[0]);
      await backToTheSale();
      const codes = ['1001', '1002', '1003', '1004', '2001', '2002', '2003', '2004', '3001', '3002', '3003', '3004', '4002'];
      for (const code of codes) await scan(code);
      const rows = page.getByTestId('lines').locator('tbody tr');
      await until(async () => (await rows.count()) === codes.length, `${codes.length} lines on the sale`);
      await until(async () => plain(await rows.last().innerText()).includes('French press'), 'the last line');
      try {
        for (const size of SIZES) {
          await page.setViewportSize(size);
          await page.waitForTimeout(100);
          await noDownwardScroll(page);
          await noSidewaysScroll(page);
          await inView(page, page.getByTestId('total'), 'the total');
          for (const name of [/^Cash/, /^Card/, /^Gift card, cheque, other/, /^Search/, /^Void sale/]) await inView(page, page.getByRole('button', { name }), String(name));
          // The lines scroll in their pane, the newest (just scanned) in view.
          const lines = page.getByTestId('lines');
          expect(await lines.evaluate((el) => el.scrollHeight > el.clientHeight), 'the lines scroll').toBe(true);
          const pane = await box(lines);
          expect(pane.bottom).toBeLessThanOrEqual(size.height);
          const last = await box(rows.last());
          expect(last.bottom, 'the newest line in view').toBeLessThanOrEqual(pane.bottom + 0.5);
          expect(last.top).toBeGreaterThanOrEqual(pane.top);
          await screenshot(page, `layout-long-sale-${locale}-${size.width}`);
        }
        // Made smaller again (a display unplugged): the chosen line is brought back into view.
        await page.setViewportSize({ width: SIZES[0]!.width, height: SIZES[0]!.height - 120 });
        const lines = page.getByTestId('lines');
        await until(async () => {
          const pane = await box(lines);
          const last = await box(rows.last());
          return last.bottom <= pane.bottom + 0.5 && last.top >= pane.top;
        }, 'the newest line back in view after the window shrank');
      } finally {
        // Paid in cash even when a measure failed: the tests after start from an empty sale.
        await payInCash();
      }
    });

    for (const size of SIZES) {
      it(`shows a sale's refund form at ${size.width}×${size.height}: totals in the Amount column inside the card, names not squeezed`, async () => {
        await page.setViewportSize(size);
        await backToTheSale();
        await page.keyboard.press('F10');
        await page.keyboard.press('1');
        await seen('find');
        await page.keyboard.type(number);
        await page.keyboard.press('Enter');
        await page.getByText(`Sale ${number}`).first().waitFor();
        await page.keyboard.press('F7');
        await page.getByLabel('Refund quantity of line 1').waitFor();
        await noSidewaysScroll(page);
        const card = await box(page.locator('.sales.detail > section.card'));
        const amount = await box(page.locator('table.lines th', { hasText: 'Amount' }));
        const totals = page.locator('table.lines tfoot td.num:not(:empty)');
        expect(await totals.count()).toBeGreaterThanOrEqual(3);
        for (const cell of await totals.all()) {
          const b = await box(cell);
          const t = await textBox(cell);
          expect(Math.abs(b.right - amount.right), `${await cell.innerText()} under Amount`).toBeLessThan(1);
          expect(t.right, `${await cell.innerText()} inside the card`).toBeLessThanOrEqual(card.right - 8);
          expect(t.right).toBeLessThanOrEqual(b.right + 0.5);
        }
        // Each line's amount (with its tax letter) inside its own cell.
        for (const cell of await page.locator('table.lines tbody td.amount').all()) expect((await textBox(cell)).right).toBeLessThanOrEqual((await box(cell)).right + 0.5);
        // Names of 40 characters on two lines at most.
        for (const name of ['Planche de service en noyer, grand format', 'Handmade stoneware dinner set for twelve']) {
          const cell = page.locator('table.lines tbody td', { hasText: name });
          expect((await textBox(cell)).lines, name).toBeLessThanOrEqual(2);
          expect((await box(cell)).width).toBeGreaterThan(180);
        }
        // The refund's buttons in view without scrolling.
        const show = await box(page.getByRole('button', { name: /Show the refund/ }));
        expect(show.bottom).toBeLessThanOrEqual(size.height);
        await screenshot(page, `layout-refund-${locale}-${size.width}`);
        await backToTheSale();
      });
    }

    for (const size of SIZES) {
      it(`lays the X report's parts side by side or under each other at ${size.width}×${size.height}, never over each other`, async () => {
        await page.setViewportSize(size);
        await backToTheSale();
        await page.keyboard.press('F10');
        await page.keyboard.press('2');
        await seen('report-x');
        await expect.poll(async () => plain(await page.getByTestId('report-cashiers').innerText())).toContain('Sam Rivera');
        await noSidewaysScroll(page);
        const report = await box(page.getByTestId('report-x'));
        const parts = await Promise.all(['report-tenders', 'report-cashiers'].map((t) => box(page.getByTestId(t))));
        const sales = await box(page.getByTestId('net-sales').locator('xpath=ancestor::table'));
        const all = [sales, ...parts];
        for (const b of all) expect(b.right).toBeLessThanOrEqual(report.right + 0.5);
        for (let i = 0; i < all.length; i += 1) {
          for (let j = i + 1; j < all.length; j += 1) {
            const [a, b] = [all[i]!, all[j]!];
            const apart = a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
            expect(apart, `report tables ${i} and ${j} apart`).toBe(true);
          }
        }
        // Every amount within its own table.
        for (const t of ['report-tenders', 'report-cashiers']) {
          const table = await box(page.getByTestId(t));
          for (const cell of await page.getByTestId(t).locator('td.num').all()) expect((await textBox(cell)).right).toBeLessThanOrEqual(table.right + 0.5);
        }
        await screenshot(page, `layout-x-report-${locale}-${size.width}`);
        await page.keyboard.press('Escape');
        await seen('scan');
      });
    }
  });
}
