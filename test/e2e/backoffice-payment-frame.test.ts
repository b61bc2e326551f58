import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { VISA } from '../helpers/cards';
import { screenshot } from '../helpers/browser';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office's Payment frame section in Debian's Chromium against `npm run serve`: the owner
 * finds it in the side bar, adds a site (a page address with a path refused with the engine's
 * words beside the field, the typed text kept), copies the script tag a shop puts on its page,
 * removes the site after a confirmation; a clerk reads the list without changing it. Screenshot:
 * test-output/screenshots/backoffice-payment-frame.png (1024x768).
 */
const TOKEN = 'BACKOFFICEFRAME1';
const KEY = 'back-office-frame-key-0123456789';

let bo: BackofficeInstall;
let owner: Page;
let clerk: Page | undefined;
let url: string;
const api = apiOf(() => url, TOKEN, KEY);
type Settings = { allowedOrigins: string[]; sandboxOrigins: string[]; clientScriptUrl: string };
const settings = () => api<Settings>('GET', '/api/ecommerce/settings');
/** The frame's own answer for a page on `origin`: 403 unless the origin is allowed. */
const frameFor = async (origin: string) => (await fetch(`${url}/ecommerce/frame?session=00000000-0000-4000-8000-000000000000&origin=${encodeURIComponent(origin)}`)).status;

beforeAll(async () => {
  bo = await startBackoffice('backoffice-frame', { token: TOKEN, key: KEY });
  url = bo.url;
  owner = await bo.newPage('en-US', { viewport: { width: 1024, height: 768 }, permissions: ['clipboard-read', 'clipboard-write'] });
  await bo.claimOwner(owner, { email: 'owner@example.com', password: 'owner password 1' });
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['owner', owner], ['clerk', clerk]]));

afterAll(async () => {
  await bo?.close();
});

describe('the back office: payment frame sites', { timeout: 120_000 }, () => {
  it('an owner finds it beside the settings pages, adds a site (a bad one refused beside the field) and sees the script tag', async () => {
    await owner.goto(`${url}/app/account`);
    const nav = owner.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Payment frame' }).click();
    await owner.getByRole('heading', { name: 'Payment frame', level: 2 }).waitFor();
    expect(new URL(owner.url()).pathname).toBe('/app/payment_frame');
    // The sandbox's localhost is shown as allowed without being set; nothing set yet.
    const sites = owner.getByRole('table', { name: 'Sites allowed to show the payment frame' });
    await sites.getByText('http://localhost:*').waitFor();
    await owner.getByText('No site yet').waitFor();
    expect(await frameFor('https://shop.example')).toBe(403);

    // A page's address pasted whole: the engine refuses it, its words beside the field, the text kept.
    const field = owner.getByLabel('Site', { exact: true });
    await field.fill('https://shop.example/checkout');
    await owner.getByRole('button', { name: 'Add site' }).click();
    const error = owner.locator('#field-site-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/^The site must be a site: .*no path/);
    expect(await field.inputValue()).toBe('https://shop.example/checkout');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect((await settings()).allowedOrigins).toEqual([]);

    // Corrected: added as the engine stores it (lower case), the field emptied, the frame now answers it.
    await field.fill('https://Shop.example');
    await owner.getByRole('button', { name: 'Add site' }).click();
    await owner.getByRole('status').filter({ hasText: 'Added https://shop.example.' }).waitFor();
    await sites.getByText('https://shop.example', { exact: true }).waitFor();
    expect(await field.inputValue()).toBe('');
    expect(await owner.locator('#field-site-error').count()).toBe(0);
    expect((await settings()).allowedOrigins).toEqual(['https://shop.example']);
    expect(await frameFor('https://shop.example')).toBe(200);

    // Added twice: said, not listed twice.
    await field.fill('https://shop.example');
    await owner.getByRole('button', { name: 'Add site' }).click();
    await owner.getByRole('status').filter({ hasText: 'https://shop.example was already allowed.' }).waitFor();
    expect((await settings()).allowedOrigins).toEqual(['https://shop.example']);
    // The same site written another way (its host in capitals, the default port): the engine keeps it once, and the screen says so.
    await field.fill('https://Shop.Example:443');
    await owner.getByRole('button', { name: 'Add site' }).click();
    await owner.getByRole('status').filter({ hasText: 'https://Shop.Example:443 was already allowed. Written this way, it is a site already listed.' }).waitFor();
    expect((await settings()).allowedOrigins).toEqual(['https://shop.example']);
    expect(await sites.getByRole('row').count()).toBe(1 + 1 + (await settings()).sandboxOrigins.length);
    // A port no site has: the engine's refusal beside the field, the typed text kept.
    await field.fill('https://shop.example:99999');
    await owner.getByRole('button', { name: 'Add site' }).click();
    await error.waitFor();
    expect(await error.innerText()).toMatch(/^The site has port 99999, which no site has: a port is 1 to 65535/);
    expect(await field.inputValue()).toBe('https://shop.example:99999');
    expect((await settings()).allowedOrigins).toEqual(['https://shop.example']);
    await field.fill('');

    // How to embed it: the script tag names client.js at this server, which serves it.
    const tag = await owner.getByTestId('script-tag').innerText();
    expect(tag).toBe(`<script src="${url}/client.js"></script>`);
    expect((await settings()).clientScriptUrl).toBe(`${url}/client.js`);
    const script = await fetch(`${url}/client.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('initClient');
    await owner.getByRole('button', { name: 'Copy script tag' }).click();
    await owner.getByText('Script tag copied').waitFor();
    expect(await owner.evaluate('navigator.clipboard.readText()')).toBe(tag);
    expect(await owner.getByText(`${url}/api/v2/sessions`).count()).toBeGreaterThan(0);

    // At 1024 wide the code scrolls in its box, not the page sideways.
    expect(await owner.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
    await owner.evaluate('window.scrollTo(0, 0)');
    await screenshot(owner, 'backoffice-payment-frame');
  });

  it('the sample page it shows has a Pay button that submits the frame (submitEvents), and it works as shown', async () => {
    const sample = await owner.getByTestId('sample-page').innerText();
    expect(sample).toMatch(/<button id="pay"[^>]*>Pay<\/button>/);
    expect(sample).toContain('client.submitEvents()');
    // The sample as a shop would paste it, on a localhost page (the sandbox allows it), with a session.
    const { id } = await api<{ id: string }>('POST', '/api/v2/sessions', { options: { paymentTypes: [{ name: 'creditCard', label: 'Card' }] } });
    const shop = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(`<!doctype html><title>shop</title><script>var sessionId = ${JSON.stringify(id)};</script>\n${sample}`);
    });
    await new Promise<void>((resolve) => shop.listen(0, 'localhost', () => resolve()));
    try {
      const page = await bo.newPage('en-US');
      await page.goto(`http://localhost:${(shop.address() as AddressInfo).port}/`);
      await page.locator('#pay:not([disabled])').waitFor({ timeout: 20_000 });
      const frame = page.frameLocator('#payment iframe');
      // Pay with nothing typed: the frame's refusal reaches the page through onApproval's reject.
      await page.getByRole('button', { name: 'Pay' }).click();
      await expect.poll(() => page.locator('#payError').innerText(), { timeout: 10_000 }).toMatch(/Cardholder name is required/);
      await frame.getByLabel('Cardholder Name').fill('Jane Buyer');
      await frame.locator('#accountNo').fill(VISA);
      await frame.getByLabel('Expiration Date').selectOption('12');
      await frame.getByLabel('Expiration Year').selectOption('2030');
      await frame.getByLabel('Security Code').fill('123');
      const token = page.waitForResponse((r) => r.url().endsWith(`/api/v2/sessions/${id}/tokens`) && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Pay' }).click();
      expect((await token).status()).toBe(201);
      await page.close();
    } finally {
      await new Promise<void>((resolve) => shop.close(() => resolve()));
    }
  });

  it('a site is removed only after the owner confirms it', async () => {
    await owner.getByRole('button', { name: 'Remove https://shop.example' }).click();
    const dialog = owner.getByRole('dialog', { name: 'Remove https://shop.example?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await settings()).allowedOrigins).toEqual(['https://shop.example']);

    await owner.getByRole('button', { name: 'Remove https://shop.example' }).click();
    await dialog.getByRole('button', { name: 'Remove site' }).click();
    await owner.getByRole('status').filter({ hasText: 'Removed https://shop.example' }).waitFor();
    expect((await settings()).allowedOrigins).toEqual([]);
    expect(await frameFor('https://shop.example')).toBe(403);
    await owner.getByText('No site yet').waitFor();
  });

  it('a clerk reads the sites and the script tag but has no way to change them', async () => {
    await api('PUT', '/api/ecommerce/settings', { allowedOrigins: ['https://shop.example'] });
    clerk = await bo.addUser(owner, { email: 'clerk@example.com', role: 'clerk', password: 'clerk password 1' });
    await clerk.goto(`${url}/app/payment_frame`);
    await clerk.getByRole('table', { name: 'Sites allowed to show the payment frame' }).getByText('https://shop.example', { exact: true }).waitFor();
    await clerk.getByTestId('read-only-note').waitFor();
    expect(await clerk.getByRole('button', { name: 'Add site' }).count()).toBe(0);
    expect(await clerk.getByLabel('Site', { exact: true }).count()).toBe(0);
    expect(await clerk.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    expect(await clerk.getByTestId('script-tag').innerText()).toBe(`<script src="${url}/client.js"></script>`);
  });
});
