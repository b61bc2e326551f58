import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The register of an install with no lane yet, in Debian's Chromium against `npm run serve`: it
 * points to the back office's form (Point of sale → Lanes), not to the API. Signed in with the
 * install's key, it links there; the owner adds a lane with that form and the register shows it
 * without a reload, and drops it when it is removed. A cashier, who may not add one, is told to ask a manager, with no link.
 * Screenshots: test-output/screenshots/no-lanes-*.png.
 */
const TOKEN = 'NOLANESTOKEN01';
const KEY = 'no-lanes-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const CASHIER = { email: 'till@example.com', password: 'cashier password 1' };

let bo: BackofficeInstall;
let url: string;
let register: Page | undefined;
let owner: Page | undefined;
const api = apiOf(() => url, TOKEN, KEY);
const words = (s: string) => s.replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  bo = await startBackoffice('no-lanes', { token: TOKEN, key: KEY });
  url = bo.url;
  const { link } = await api<{ link: string }>('POST', '/api/users', { email: CASHIER.email, role: 'cashier' });
  const res = await fetch(`${url}/api/session/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link, password: CASHIER.password }) });
  expect(res.status).toBe(200);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [['register', register], ['owner', owner]]));

afterAll(() => bo?.close());

describe('a register with no lane points to Point of sale → Lanes', { timeout: 90_000 }, () => {
  it('a cashier: asked to get a manager to add one, with no link', async () => {
    register = await bo.newPage('en-US');
    await register.goto(`${url}/app/register`);
    await register.getByLabel('E-mail').fill(CASHIER.email);
    await register.getByLabel('Password', { exact: true }).fill(CASHIER.password);
    await register.keyboard.press('Enter');
    const notice = register.locator('p', { hasText: 'No lanes yet' });
    await notice.waitFor();
    expect(words(await notice.innerText())).toBe('No lanes yet. A lane is a card terminal on a serial port. Ask a manager to add a lane in Point of sale → Lanes: it shows here as soon as it is added.');
    expect(await notice.getByRole('link').count()).toBe(0);
    await screenshot(register, 'no-lanes-cashier');
    await until(async () => (await register!.getByTestId('register-user').innerText()) === `${CASHIER.email} · cashier`, 'the cashier badge');
  });
  it('signed in with the install key: a link to the form, where the owner adds a lane that shows at once', async () => {
    register = await bo.newPage('en-US');
    await register.goto(`${url}/app/`);
    await register.getByLabel('API token').fill(TOKEN);
    await register.getByLabel('API key').fill(KEY);
    await register.keyboard.press('Enter');
    const notice = register.locator('p', { hasText: 'No lanes yet' });
    await notice.waitFor();
    expect(words(await notice.innerText())).toBe('No lanes yet. A lane is a card terminal on a serial port. Add one in the back office under Point of sale → Lanes: it shows here as soon as it is added.');
    const form = notice.getByRole('link', { name: 'Point of sale → Lanes' });
    expect(await form.getAttribute('href')).toBe('/app/pos/lanes');
    await screenshot(register, 'no-lanes-key');

    owner = await bo.newPage('en-US');
    await bo.claimOwner(owner, OWNER);
    await owner.goto(new URL((await form.getAttribute('href'))!, url).href);
    await owner.getByLabel('Lane id', { exact: true }).fill('7');
    await owner.getByLabel('Lane name', { exact: true }).fill('Front counter');
    await owner.getByLabel('Serial port', { exact: true }).fill('/dev/ttyUSB9');
    await owner.getByRole('button', { name: 'Add lane' }).click();
    await register.getByTestId('lane-7').waitFor();
    expect(await notice.count()).toBe(0);

    // Removed again: gone from the picker at once, not offered until a reload (picking it would fail).
    await api('DELETE', '/api/lanes/7');
    await register.getByTestId('lane-7').waitFor({ state: 'detached', timeout: 10_000 });
    await notice.waitFor();
  });

});
