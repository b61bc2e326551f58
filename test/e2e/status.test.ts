import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine } from '../helpers/harness';
import { startServer, type RunningServer } from '../../src/server/http';
import { launchBrowser, screenshot } from '../helpers/browser';
import { putRecord } from '../../src/engine/records';

let t: TestEngine;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  t = await openTestEngine();
  server = await startServer(t.engine, { port: 0, uiDir: join(process.cwd(), 'out', 'renderer') });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await t?.close();
});

describe('status screen in Chromium', () => {
  it('refuses wrong credentials with a clear message, then signs in and shows the install status and live events', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/app/`);
    await page.getByLabel('API token').fill(TEST_TOKEN);
    await page.getByLabel('API key').fill('wrong');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('do not match');
    await screenshot(page, 'status-signin-error');

    await page.getByLabel('API key').fill(TEST_KEY);
    await page.keyboard.press('Enter');
    // The screens open on the register (no lane here yet); the status is in the back office (F10, 6).
    await page.getByText('No lanes yet.').waitFor();
    await page.keyboard.press('F10');
    await page.keyboard.press('6');
    await page.getByTestId('environment').getByText('sandbox').waitFor();
    expect(await page.getByTestId('api-url').textContent()).toBe(`${server.url}/api`);
    await expect.poll(() => page.locator('main.page').getByText('Live', { exact: true }).count()).toBe(1);

    await t.engine.core.mutate((tx) => putRecord(tx, 'note', 'from-test', {}, { type: 'customer.updated', entity: 'customer', key: 'C-LIVE-1' }));
    await page.getByTestId('events').getByText('C-LIVE-1').waitFor();
    expect(await page.getByTestId('store-size').textContent()).toMatch(/KB|MB/);
    await screenshot(page, 'status-screen');

    // A reload keeps the session (a JWT, never the key).
    await page.reload();
    await page.getByText('No lanes yet.').waitFor();
    const stored = await page.evaluate(() => JSON.stringify(localStorage));
    expect(stored).not.toContain(TEST_KEY);

    // A moved sandbox clock is shown, so nobody takes the sandbox's time for the real one.
    await page.keyboard.press('F10');
    await page.keyboard.press('6');
    await page.getByTestId('environment').getByText('sandbox').waitFor();
    expect(await page.getByTestId('clock-moved').count()).toBe(0);
    await t.engine.sandboxClock.advance({ by_ms: 3 * 86_400_000 });
    await page.getByTestId('clock-moved').waitFor();
    await screenshot(page, 'status-sandbox-clock-moved');
  });
});
