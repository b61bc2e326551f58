import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Response as PwResponse } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine, basicAuth } from '../helpers/harness';
import { startServer, type RunningServer } from '../../src/server/http';

/**
 * Issue 13 item 2 in Debian's Chromium: a page on another origin (a second loopback server on
 * another port) tries a form post and a fetch with credentials against the API, in a browser
 * that holds the API key (as after answering a Basic prompt once). Both fail and nothing is
 * written; our own screens at /app still sign in and work.
 */

let t: TestEngine;
let api: RunningServer;
let evil: Server;
let evilPort: number;
let browser: Browser;

/** The attacker's pages: a self-submitting form and a script that fetches with credentials. */
function attackerPages(apiUrl: string): (path: string) => string | undefined {
  const target = `${apiUrl}/api/imports/customer`;
  return (path) => {
    if (path === '/form') {
      return `<!doctype html><title>win a prize</title>
<form id="f" method="POST" action="${target}"><input name="identifier" value="EVILFORM"><input name="name" value="Evil form"></form>
<script>document.getElementById('f').submit();</script>`;
    }
    if (path === '/fetch') {
      return `<!doctype html><title>win a prize</title><script>
const body = new URLSearchParams({ identifier: 'EVILFETCH', name: 'Evil fetch' });
window.simple = fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body })
  .then((r) => 'sent ' + r.type, (e) => 'failed ' + e.message);
window.json = fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ identifier: 'EVILJSON', name: 'Evil json' }) })
  .then((r) => 'read ' + r.status, (e) => 'failed ' + e.message);
</script>`;
    }
    return undefined;
  };
}

beforeAll(async () => {
  t = await openTestEngine();
  api = await startServer(t.engine, { port: 0, rateLimit: 10_000, uiDir: join(process.cwd(), 'out', 'renderer') });
  const pages = attackerPages(api.url);
  evil = createServer((req, res) => {
    const html = pages(req.url ?? '/');
    res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not here');
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', () => resolve()));
  evilPort = (evil.address() as AddressInfo).port;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  await api?.close();
  await t?.close();
});

/** A browser session that answers the API's Basic challenges with the key, as one that was prompted once would. */
async function keyHoldingContext(): Promise<BrowserContext> {
  return browser.newContext({ httpCredentials: { username: TEST_TOKEN, password: TEST_KEY, origin: new URL(api.url).origin } });
}

const exported = async (identifier: string) => (await fetch(`${api.url}/api/exports/customer/${identifier}`, { headers: { Authorization: basicAuth() } })).status;

describe('a page on another origin, in Chromium', { timeout: 60_000 }, () => {
  // 127.0.0.1 on another port is same-site to the API; localhost is another site altogether.
  for (const host of ['127.0.0.1', 'localhost']) {
    it(`cannot post a form to the API (page on ${host})`, async () => {
      const context = await keyHoldingContext();
      try {
        const page = await context.newPage();
        const before = t.engine.core.currentWatermark();
        const answer = page.waitForResponse((r) => r.url().startsWith(`${api.url}/api/`));
        await page.goto(`http://${host}:${evilPort}/form`);
        const res = await answer;
        await page.waitForLoadState();
        await screenshot(page, `cross-site-form-${host}`);
        expect(res.status()).toBe(403);
        expect(await res.json()).toMatchObject({ code: 'cross_site_request' });
        expect(res.headers()['www-authenticate']).toBeUndefined();
        expect(await exported('EVILFORM')).toBe(404);
        expect(t.engine.core.currentWatermark()).toBe(before);
      } finally {
        await context.close();
      }
    });

    it(`cannot fetch the API with credentials (page on ${host})`, async () => {
      const context = await keyHoldingContext();
      try {
        const page = await context.newPage();
        const before = t.engine.core.currentWatermark();
        const answers: PwResponse[] = [];
        page.on('response', (r) => {
          if (r.url().startsWith(`${api.url}/api/`)) answers.push(r);
        });
        await page.goto(`http://${host}:${evilPort}/fetch`);
        const simple = await page.evaluate('window.simple');
        const json = await page.evaluate('window.json');
        // The no-cors post goes out (the page cannot read the answer); the JSON one never passes its preflight.
        expect(simple).toBe('sent opaque');
        expect(json).toMatch(/^failed /);
        expect(answers.length).toBeGreaterThan(0);
        for (const r of answers) expect(r.status(), `${r.request().method()} ${r.url()}`).toBe(403);
        for (const id of ['EVILFETCH', 'EVILJSON']) expect(await exported(id)).toBe(404);
        expect(t.engine.core.currentWatermark()).toBe(before);
      } finally {
        await context.close();
      }
    });
  }

  it('our own screens at /app still sign in with the key and work on the JWT they keep', async () => {
    const lane = await fetch(`${api.url}/api/lanes`, {
      method: 'POST',
      headers: { Authorization: basicAuth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ laneid: '1', port_path: '/dev/ttyUSB9', name: 'Front lane' }),
    });
    expect(lane.status).toBe(201);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const apiStatuses: number[] = [];
      page.on('response', (r) => {
        if (r.url().startsWith(`${api.url}/api/`)) apiStatuses.push(r.status());
      });
      await page.goto(`${api.url}/app/`);
      await page.getByLabel('API token').fill(TEST_TOKEN);
      await page.getByLabel('API key').fill(TEST_KEY);
      await page.keyboard.press('Enter');
      await page.getByTestId('lane-1').waitFor({ state: 'visible', timeout: 30_000 });
      expect(await page.getByTestId('lane-1').innerText()).toMatch(/Front lane/);
      // Back after a reload, on the stored JWT alone.
      await page.reload();
      await page.getByTestId('lane-1').waitFor({ state: 'visible', timeout: 30_000 });
      await screenshot(page, 'cross-site-own-screens');
      expect(apiStatuses.length).toBeGreaterThan(0);
      expect(apiStatuses.filter((s) => s >= 400)).toEqual([]);
      // What the screens keep cannot manage credentials.
      const jwt = await page.evaluate(() => localStorage.getItem('laneway.session'));
      expect(jwt).toBeTruthy();
      const made = await fetch(`${api.url}/api/account/credentials`, { method: 'POST', headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' }, body: '{"name":"x"}' });
      expect(made.status).toBe(403);
    } finally {
      await context.close();
    }
  });
});
