import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { card, MASTERCARD, VISA } from '../helpers/cards';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office's Settlement and Point of sale sections in Debian's Chromium against `npm run
 * serve` (issue 19): card sales made through the API close into a batch when the owner moves the
 * sandbox clock past the cut-off from the screen (a banner then says the clock is moved), the
 * batch and its deposit show with their transactions, the sample statement's PDF opens in the
 * page; a product priced "12,50" in fr-CA is stored as 1250 cents; a new cashier's code is shown
 * once; the hub's upstream is set and removed from the Sync section, and a clerk sees no such form.
 * Screenshots: test-output/screenshots/backoffice-settlement.png, backoffice-pos.png,
 * backoffice-sync-upstream.png.
 */
const TOKEN = 'BACKOFFICEOPS001';
const KEY = 'back-office-ops-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

let bo: BackofficeInstall;
let page: Page;
let url: string;
const sales: string[] = [];
const api = apiOf(() => url, TOKEN, KEY);

const seen = (text: string | RegExp, p = page) => p.getByText(text).first().waitFor({ state: 'visible', timeout: 20_000 });
const field = (label: string, p = page) => p.getByLabel(label, { exact: true });
const newPage = (locale: string) => bo.newPage(locale);

beforeAll(async () => {
  bo = await startBackoffice('bo-ops', { token: TOKEN, key: KEY });
  url = bo.url;
  for (const [i, [pan, cents]] of ([[VISA, 2500], [VISA, 4200], [MASTERCARD, 1899]] as const).entries()) {
    const sale = await api<{ transaction: string }>('POST', '/api/gateway/v1/orders/sale', { amount_cents: cents, credit_card: card(pan), order: { identifier: `SETTLE-${i + 1}` } });
    sales.push(sale.transaction);
  }
  page = await newPage('en-US');
  await bo.claimOwner(page, OWNER);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['', page]]));

afterAll(() => bo?.close());

describe('the back office: settlement and point of sale', { timeout: 120_000 }, () => {
  it('moves the sandbox clock past the cut-off and shows the batch, its deposit and its transactions', async () => {
    await page.goto(`${url}/app/settlement`);
    await seen('No batch closed yet');
    expect(await field('Sandbox clock').count()).toBe(0);
    // Moving the clock runs every cut-off and cannot be undone: it is asked first, and Cancel moves nothing.
    await page.getByRole('button', { name: 'Advance 1 day' }).click();
    const ask = page.getByRole('dialog', { name: 'Move the sandbox clock 1 day ahead?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForTimeout(300);
    expect(await field('Sandbox clock').count()).toBe(0);
    expect((await api<{ clock_offset_seconds: number }>('GET', '/api/status')).clock_offset_seconds).toBe(0);
    await page.getByRole('button', { name: 'Advance 1 day' }).click();
    await ask.getByRole('button', { name: 'Advance 1 day' }).click();
    // The clock is moved: the banner says so, and the batch of the three sales closed.
    await until(async () => (await field('Sandbox clock').count()) > 0, 'the moved-clock banner');
    expect(await field('Sandbox clock').innerText()).toMatch(/moved 1 day ahead of the real time/);
    const [batch] = (await api<{ batches: Array<{ token: string; sales_cents: number; deposit_amount_cents: number; batch_deposit_date: string; mid: string }> }>('GET', '/api/gateway/v1/settlement/batches?list=true')).batches;
    expect(batch!.sales_cents).toBe(2500 + 4200 + 1899);
    const table = page.getByRole('table', { name: 'Batch deposits' });
    // Its deposit day as the reader writes a day (Mar 3, 2026), not 2026-03-03.
    const deposited = new Date(`${batch!.batch_deposit_date}T00:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
    const row = table.getByRole('row', { name: new RegExp(deposited) });
    await until(async () => (await row.count()) > 0, 'the batch row');
    const text = await row.first().innerText();
    expect(text).toContain('$85.99');
    expect(text).toContain(`$${(batch!.deposit_amount_cents / 100).toFixed(2)}`);
    expect(text).toContain(batch!.mid);
    await row.first().click();
    const txns = page.getByRole('table', { name: `Transactions of ${batch!.token}` });
    for (const t of sales) await txns.getByText(t).waitFor();
    // Brands and the tender read as the charts and the statement name them, not the engine's codes.
    expect(await row.first().locator('td').nth(2).innerText()).toBe('Card (keyed / online)');
    const paid = await txns.locator('tbody tr td:nth-child(3)').allInnerTexts();
    expect(paid.sort()).toEqual(['Mastercard', 'Visa', 'Visa']);
    await page.getByLabel('Mix by card brand').locator('svg').first().waitFor();
    await screenshot(page, 'backoffice-settlement');
  });

  it('opens the sample statement with its PDF in the page', async () => {
    const pdf = page.waitForResponse((r) => r.url().endsWith('/api/gateway/v1/settlement/statements/sample.pdf'));
    await page.getByRole('button', { name: 'Open the sample statement' }).click();
    await page.waitForURL(/\/app\/settlement\/statements\/sample$/);
    // Read with the session's Authorization header, then shown from an object URL the page made.
    const res = await pdf;
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^application\/pdf/);
    expect(Number(res.headers()['content-length'])).toBeGreaterThan(1000);
    expect(await res.request().headerValue('authorization')).toMatch(/^Bearer /);
    const frame = page.getByTitle('Statement sample (PDF)');
    await frame.waitFor();
    expect(await frame.getAttribute('src')).toMatch(/^blob:/);
    // The page's policy lets it frame its own object URL (frame-src blob:).
    await new Promise((r) => setTimeout(r, 500));
    expect(bo.pageErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    await seen('Net deposits');
    await screenshot(page, 'backoffice-settlement-statement');
  });

  it('adds a product priced in fr-CA and a cashier whose code is shown once', async () => {
    const fr = await newPage('fr-CA');
    await fr.goto(`${url}/app/pos`);
    await field('E-mail', fr).fill(OWNER.email);
    await field('Password', fr).fill(OWNER.password);
    await fr.keyboard.press('Enter');
    await fr.getByLabel('Signed in user').waitFor();
    await fr.waitForURL(/\/app\/pos$/);
    await field('Code', fr).fill('COFFEE-L');
    await field('Barcode', fr).fill('4006381333931');
    await field('Name', fr).fill('Large coffee');
    await field('Price (USD)', fr).fill('12,50');
    await field('Tax rate (%)', fr).fill('14,9755');
    await fr.getByRole('button', { name: 'Add product' }).click();
    // Four decimals in a tax rate are refused beside the field, nothing saved.
    await until(async () => (await field('Tax rate (%)', fr).getAttribute('aria-invalid')) === 'true', 'the tax rate refused');
    // Québec's GST and QST together: three decimals are a tax rate.
    await field('Tax rate (%)', fr).fill('14,975');
    await fr.getByRole('button', { name: 'Add product' }).click();
    const row = fr.getByRole('table', { name: 'Products' }).getByRole('row', { name: /COFFEE-L/ });
    await row.waitFor();
    expect((await row.innerText()).replace(/[\u00a0\u202f]/g, ' ')).toMatch(/12,50 \$/);
    const stored = await api<{ price_cents: number; tax_rate: number; barcode: string | null }>('GET', '/api/pos/products/COFFEE-L');
    expect(stored).toMatchObject({ price_cents: 1250, tax_rate: 14.975, barcode: '4006381333931' });
    await screenshot(fr, 'backoffice-pos');

    await fr.getByRole('tab', { name: 'Cashiers' }).click();
    await fr.waitForURL(/\/app\/pos\/cashiers$/);
    await field('Cashier name', fr).fill('Camille');
    await fr.getByRole('button', { name: 'Add cashier' }).click();
    const code = (await fr.locator('.bo-secret').innerText()).trim();
    expect(code).toMatch(/^\d{6}$/);
    await fr.getByRole('table', { name: 'Cashiers' }).getByText('Camille').waitFor();
    const { cashiers } = await api<{ cashiers: Array<{ name: string; active: boolean }> }>('GET', '/api/pos/cashiers');
    expect(cashiers).toContainEqual(expect.objectContaining({ name: 'Camille', active: true }));
    await screenshot(fr, 'backoffice-pos-cashiers');
    // Shown once: a reload no longer has it anywhere on the page.
    await fr.reload();
    await fr.getByRole('table', { name: 'Cashiers' }).getByText('Camille').waitFor();
    expect(await fr.content()).not.toContain(code);
    // A lost code: Laneway makes the new one too, shown once on the page.
    await fr.getByRole('table', { name: 'Cashiers' }).getByRole('row', { name: /Camille/ }).getByRole('button', { name: 'Reset code' }).click();
    await fr.locator('.bo-secret').waitFor();
    const again = (await fr.locator('.bo-secret').innerText()).trim();
    expect(again).toMatch(/^\d{6}$/);
    expect(again).not.toBe(code);
    // Not a supervisor when made: a supervisor's code approves what Camille gives back, until she is made one.
    const camille = fr.getByRole('table', { name: 'Cashiers' }).getByRole('row', { name: /Camille/ });
    expect(await camille.getByRole('cell').nth(2).innerText()).toBe('No');
    await camille.getByRole('button', { name: 'Make supervisor' }).click();
    await camille.getByRole('button', { name: 'No longer supervisor' }).waitFor();
    expect(await camille.getByRole('cell').nth(2).innerText()).toBe('Yes');
    const after = await api<{ cashiers: Array<{ name: string; supervisor: boolean }> }>('GET', '/api/pos/cashiers');
    expect(after.cashiers).toContainEqual(expect.objectContaining({ name: 'Camille', supervisor: true }));
  });

  it('adds a lane whose live status shows, asks its device for its status, and removes it', async () => {
    await page.goto(`${url}/app/pos/lanes`);
    await field('Lane id').fill('7');
    await field('Lane name').fill('Front counter');
    await field('Serial port').fill('/dev/ttyUSB9');
    await page.getByRole('button', { name: 'Add lane' }).click();
    // No device on that port: the lane reads offline, and DeviceStatus says why.
    await until(async () => (await page.getByLabel('Status of lane 7').count()) > 0 && (await page.getByLabel('Status of lane 7').innerText()) === 'Offline', 'lane 7 offline');
    await page.getByRole('row', { name: /Front counter/ }).getByRole('button', { name: 'DeviceStatus' }).click();
    await seen(/DeviceStatus on lane 7: /);
    await screenshot(page, 'backoffice-pos-lanes');
    await page.getByRole('row', { name: /Front counter/ }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove lane' }).click();
    await seen('Lane 7 removed.');
    expect((await api<{ lanes: unknown[] }>('GET', '/api/lanes')).lanes).toEqual([]);
  });

  it("sets the hub's upstream from the Sync section: a field error beside the address, the key never shown back, then removed", async () => {
    await page.goto(`${url}/app/sync`);
    const form = page.getByRole('form', { name: 'Upstream' });
    await form.waitFor();
    // No PC paired: said of paired PCs, not of the lanes this install sells on.
    const none = page.getByTestId('sync-no-peers');
    await none.waitFor();
    expect(await none.innerText()).toMatch(/^No other lane PC is paired with this one, and this PC is not paired with a hub\. Pairing is for /);
    expect(await none.innerText()).not.toContain('has no lanes');
    await field('Address').fill('not an address');
    await field('API token').fill('UPSTREAMTOKEN01');
    await field('API key').fill('upstream-secret-key-42');
    await page.getByRole('button', { name: 'Set upstream' }).click();
    // The engine's refusal, beside the field it is about.
    await page.locator('#field-url-error').waitFor();
    // In words a person reads, not the validator's ('must match pattern "^https?://"').
    expect(await page.locator('#field-url-error').innerText()).toBe('url must start with https:// (or http://)');
    expect(await field('Address').getAttribute('aria-invalid')).toBe('true');
    expect(await api<{ upstream: unknown }>('GET', '/api/sync/upstream')).toEqual({ upstream: null });
    // Nothing listens on port 9: replication fails, which the peer table says, but the upstream is set.
    await field('Address').fill('http://127.0.0.1:9');
    await page.getByRole('button', { name: 'Set upstream' }).click();
    await page.getByRole('button', { name: 'Save upstream' }).waitFor();
    const set = await api<{ upstream: { url: string; token: string } }>('GET', '/api/sync/upstream');
    expect(set.upstream).toMatchObject({ url: 'http://127.0.0.1:9', token: 'UPSTREAMTOKEN01' });
    expect(await field('Address').inputValue()).toBe('http://127.0.0.1:9');
    expect(await field('API token').inputValue()).toBe('UPSTREAMTOKEN01');
    expect(await field('API key').inputValue()).toBe('');
    expect(await page.content()).not.toContain('upstream-secret-key-42');
    await page.getByTestId('sync-peer-upstream').waitFor();
    await screenshot(page, 'backoffice-sync-upstream');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Set upstream' }).waitFor();
    expect(await api<{ upstream: unknown }>('GET', '/api/sync/upstream')).toEqual({ upstream: null });
  });

  it("shows a manager the hub's upstream read-only: only the owner points it somewhere; the manager may remove it", async () => {
    await api('PUT', '/api/sync/upstream', { url: 'http://127.0.0.1:9', token: 'UPSTREAMTOKEN02', key: 'upstream-secret-key-43' });
    const made = await api<{ link: string }>('POST', '/api/users', { email: 'manager@example.com', role: 'manager' });
    const manager = await newPage('en-US');
    await manager.goto(`${url}/app/welcome#link=${made.link}`);
    await field('New password', manager).fill('manager password 1');
    await field('The same again', manager).fill('manager password 1');
    await manager.keyboard.press('Enter');
    await manager.getByLabel('Signed in user').waitFor();
    await manager.goto(`${url}/app/sync`);
    const form = manager.getByRole('form', { name: 'Upstream' });
    await form.getByTestId('upstream-owner-only').waitFor();
    // The form is drawn before GET /api/sync/upstream answers: its address arrives a moment later.
    await expect.poll(() => field('Address', manager).inputValue()).toBe('http://127.0.0.1:9');
    expect(await field('Address', manager).isDisabled()).toBe(true);
    expect(await form.getByLabel('API key').count()).toBe(0);
    expect(await form.getByRole('button', { name: /upstream$/ }).count()).toBe(0);
    manager.once('dialog', (d) => void d.accept());
    await form.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(async () => (await api<{ upstream: unknown }>('GET', '/api/sync/upstream')).upstream).toBeNull();
  });

  it('tells a manager that only the owner changes the webhook endpoints and the e-mail relay, and points them at no Users screen', async () => {
    const made = await api<{ link: string }>('POST', '/api/users', { email: 'manager2@example.com', role: 'manager' });
    const manager = await newPage('en-US');
    await manager.goto(`${url}/app/welcome#link=${made.link}`);
    await field('New password', manager).fill('manager password 2');
    await field('The same again', manager).fill('manager password 2');
    await manager.keyboard.press('Enter');
    await manager.getByLabel('Signed in user').waitFor();
    // Webhooks: no Add endpoint, and the reason said where the button would be.
    await manager.goto(`${url}/app/developers/webhook_responses`);
    const endpoints = manager.getByLabel('Endpoints', { exact: true });
    await endpoints.getByTestId('read-only-note').waitFor();
    expect(await endpoints.getByTestId('read-only-note').innerText()).toBe('Only the owner changes these.');
    expect(await endpoints.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    // E-mail: the relay's form greyed out, with who changes it.
    await manager.goto(`${url}/app/developers/mail`);
    const relay = manager.getByRole('form', { name: 'SMTP relay' });
    await relay.getByTestId('read-only-note').waitFor();
    expect(await relay.getByTestId('read-only-note').innerText()).toBe('Only the owner changes these.');
    expect(await field('Host', manager).isDisabled()).toBe(true);
    expect(await relay.getByRole('button', { name: 'Save relay' }).count()).toBe(0);
    await screenshot(manager, 'backoffice-manager-mail-read-only');
    // Account: no pointer to Users, a screen a manager cannot open (its link is not in the menu).
    await manager.goto(`${url}/app/account`);
    const pointers = manager.getByText('The SMTP relay for e-mail is under');
    await pointers.waitFor();
    expect(await pointers.innerText()).not.toContain('Users');
    expect(await manager.getByRole('link', { name: 'Users' }).count()).toBe(0);
    // The owner: the buttons and the pointer to Users, and no such note.
    await page.goto(`${url}/app/developers/webhook_responses`);
    await page.getByRole('button', { name: 'Add endpoint' }).waitFor();
    expect(await page.getByTestId('read-only-note').count()).toBe(0);
    await page.goto(`${url}/app/developers/mail`);
    await page.getByRole('button', { name: 'Save relay' }).waitFor();
    expect(await page.getByTestId('read-only-note').count()).toBe(0);
    await page.goto(`${url}/app/account`);
    await page.getByText('The SMTP relay for e-mail is under').getByRole('link', { name: 'Users' }).waitFor();
  });

  it("hides what a clerk's role cannot do: no catalog or lane edits, no clock control", async () => {
    const made = await api<{ link: string }>('POST', '/api/users', { email: 'clerk@example.com', role: 'clerk' });
    const clerk = await newPage('en-US');
    await clerk.goto(`${url}/app/welcome#link=${made.link}`);
    await field('New password', clerk).fill('clerk password 1');
    await field('The same again', clerk).fill('clerk password 1');
    await clerk.keyboard.press('Enter');
    await clerk.getByLabel('Signed in user').waitFor();
    await clerk.goto(`${url}/app/pos`);
    await clerk.getByRole('table', { name: 'Products' }).getByText('COFFEE-L').waitFor();
    expect(await clerk.getByRole('button', { name: 'Add product' }).count()).toBe(0);
    expect(await clerk.getByRole('button', { name: 'Deactivate' }).count()).toBe(0);
    await clerk.goto(`${url}/app/pos/cashiers`);
    await clerk.getByRole('table', { name: 'Cashiers' }).getByText('Camille').waitFor();
    expect(await clerk.getByRole('button', { name: 'Reset code' }).count()).toBe(0);
    await clerk.goto(`${url}/app/settlement`);
    await clerk.getByRole('table', { name: 'Batch deposits' }).waitFor();
    await field('Sandbox clock', clerk).waitFor();
    expect(await clerk.getByRole('button', { name: 'Advance 1 day' }).count()).toBe(0);
    await clerk.goto(`${url}/app/sync`);
    await clerk.getByRole('heading', { name: 'Sync' }).waitFor();
    expect(await clerk.getByRole('form', { name: 'Upstream' }).count()).toBe(0);
    // The account's profile: shown, greyed out, with who changes it; nothing to type into.
    await clerk.goto(`${url}/app/account`);
    const profile = clerk.getByRole('form', { name: 'Profile' });
    await expect.poll(() => field('Processing cut-off (HH:MM, local)', clerk).inputValue()).toMatch(/^\d{2}:\d{2}$/);
    for (const label of ['Business name', 'Time zone', 'Processing cut-off (HH:MM, local)']) expect(await field(label, clerk).isDisabled(), label).toBe(true);
    expect(await profile.getByTestId('read-only-note').innerText()).toBe('Only the owner or a manager changes these.');
    expect(await profile.getByRole('button', { name: 'Save' }).count()).toBe(0);
  });

  it("writes a Z report's times as the reader's locale writes a date and a time, in the list and the report", async () => {
    // A Z of a lane with no device: a cashier's shift (the sample cashier) closes an empty period.
    await api('POST', '/api/lanes', { laneid: '8', port_path: '/dev/ttyUSB8', name: 'Back counter' });
    const code = /Sample cashier of this sandbox \(shown once\): Sam Rivera, code (\d{4})/.exec(bo.serve.output())![1]!;
    const shift = await api<{ id: string }>('POST', '/api/pos/shifts', { laneid: '8', code });
    const z = await api<{ from: string; to: string; period: number }>('POST', '/api/pos/registers/8/z', { shift: shift.id, close_batch: false, confirm_empty: true });
    const plain = (s: string) => s.replace(/[\s\u00a0\u202f]+/g, ' ').trim();
    // The sandbox clock was moved ahead above: the sign-in is on its day.
    const { now } = await api<{ now: string }>('GET', '/api/status');
    const fr = await newPage('fr-CA');
    await bo.signIn(fr, OWNER);
    for (const [p, locale] of [[page, 'en-US'], [fr, 'fr-CA']] as const) {
      const at = (iso: string) => plain(new Date(iso).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' }));
      await p.goto(`${url}/app/pos/z/8`);
      const row = p.getByRole('table', { name: 'Z reports' }).getByRole('row', { name: new RegExp(`^Z ${z.period}\\b`) });
      await row.waitFor();
      // "27 nov. 2026, 12 h 33" in fr-CA, as every other date of the back office: not "2026-11-27 12 h 33 min 18 s".
      expect(plain(await row.getByRole('cell').nth(1).innerText())).toBe(at(z.from));
      expect(plain(await row.getByRole('cell').nth(2).innerText())).toBe(at(z.to));
      await row.click();
      await p.getByRole('heading', { name: `Z ${z.period} · lane 8` }).waitFor();
      expect(plain(await p.locator('.bo-title + p.muted').innerText())).toBe(`${at(z.from)} – ${at(z.to)}`);
      // The cashier's last sign-in (the shift above) too.
      await p.goto(`${url}/app/pos/cashiers`);
      const sam = p.getByRole('table', { name: 'Cashiers' }).getByRole('row', { name: /Sam Rivera/ });
      await sam.waitFor();
      expect(plain(await sam.innerText())).toContain(plain(new Date(now).toLocaleDateString(locale, { dateStyle: 'medium' })));
    }
  });
});
