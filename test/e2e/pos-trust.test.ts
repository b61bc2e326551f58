import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { SocatPair } from '../serial/helpers';
import { start, type Proc } from './processes';
import { formatMoney } from '../../src/shared/money';
import type { Sale } from '../../src/shared/schemas/register';

/**
 * What a cashier must be able to trust on the register screen, in two locales: amounts typed and
 * shown the locale's way, a card payment followed through a reload, banners that go when their
 * problem goes, the server's absence shown, and words that say what happened.
 */
const TOKEN = 'POSTRUSTTOKEN1';
const KEY = 'pos-trust-key-0123456789';
const AUTH = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;

let dir: string;
let port: number;
let url: string;
let serve: Proc;
let sim: Proc;
let pair: SocatPair;
let browser: Browser;
let cashierCode: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

function startServe(): Proc {
  return start(['serve', '--', '--data-dir', join(dir, 'data'), '--port', String(port), '--timezone', 'UTC'], { LANEWAY_API_TOKEN: TOKEN, LANEWAY_API_KEY: KEY });
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, { method, headers: { Authorization: AUTH, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Spaces of every kind as plain spaces: fr-CA writes amounts with no-break spaces. */
const plain = (s: string) => s.replace(/[\s\u00a0\u202f]+/g, ' ').trim();

async function openRegister(): Promise<Sale | null> {
  return (await api<{ open_sale: Sale | null }>('GET', '/api/pos/registers/1')).open_sale;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'laneway-pos-trust-'));
  port = await freePort();
  url = `http://127.0.0.1:${port}`;
  serve = startServe();
  await serve.waitFor(/http:\/\/127\.0\.0\.1:\d+\/api\b/, 'serve to print its URL');
  cashierCode = (await serve.waitFor(/Sample cashier of this sandbox \(shown once\): Sam Rivera, code (\d{4})/, 'the sample cashier line'))[1]!;
  pair = new SocatPair(dir, 'lane1');
  await pair.plug();
  sim = start(['terminal-sim', '--', '--port', pair.device, '--interactive', '--pace', 'fast']);
  await sim.waitFor(/terminal simulator/, 'the simulator to start');
  await api('POST', '/api/lanes', { laneid: '1', port_path: pair.host, name: 'Lane 1' });
  await until(async () => (await api<{ last_setup_at: string | null }>('GET', '/api/lanes/1')).last_setup_at !== null, 'lane 1 to connect and be set up');
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sim?.stop();
  await serve?.stop();
  await pair?.unplug();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const locale of ['en-US', 'fr-CA'] as const) {
  describe(`the register in ${locale}`, { timeout: 120_000 }, () => {
    let context: BrowserContext;
    let page: Page;
    const m = (cents: number) => plain(formatMoney(cents, 'usd', { locale }));
    const text = async (testid: string) => plain(await page.getByTestId(testid).innerText());
    const seen = (testid: string, ms = 30_000) => page.getByTestId(testid).waitFor({ state: 'visible', timeout: ms });
    const shot = (name: string) => screenshot(page, `trust-${locale}-${name}`);
    const scan = async (code: string) => {
      await page.keyboard.type(code);
      await page.keyboard.press('Enter');
    };
    // The decimal separator this locale types, and the one it does not.
    const [dec, foreign] = locale === 'fr-CA' ? [',', '.'] : ['.', ','];

    beforeAll(async () => {
      context = await browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
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
    });

    afterEach(async (ctx) => {
      if (ctx.task.result?.state === 'fail' && page) await shot(`failed-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
    });

    afterAll(async () => {
      await context?.close();
    });

    it('reads cash given with the locale\'s own separators, refuses what is ambiguous, and asks before taking far more than is due', async () => {
      await scan('3001'); // 16.99
      await until(async () => (await text('total').catch(() => '')) === m(1699), 'the total in the locale\'s format');
      const sale = (await openRegister())!;
      await page.keyboard.press('F4');
      await seen('cash-given');
      // 12,50 in en-US (or 12.50 in fr-CA): a decimal written the other way, not 1 250.
      await page.keyboard.type(`12${foreign}50`);
      await page.keyboard.press('Enter');
      await seen('cash-error');
      expect(await text('cash-error')).toContain('could mean two amounts');
      expect(await page.getByTestId('cash-given').inputValue()).toBe(`12${foreign}50`);
      await shot('1-cash-ambiguous');
      expect((await api<Sale>('GET', `/api/pos/sales/${sale.id}`)).tenders).toHaveLength(0);

      // 1 250 given for 16.99: shown back to be confirmed; Esc goes back to the amount, kept.
      await page.keyboard.press('Control+A');
      await page.keyboard.type(`1250${dec}00`);
      await page.keyboard.press('Enter');
      await seen('cash-confirm');
      expect(await text('cash-confirm')).toBe(`${m(125000)} given for ${m(1699)} due: change of ${m(123301)}.`);
      await shot('2-cash-far-above');
      await page.keyboard.press('Escape');
      await seen('cash-given');
      expect(await page.getByTestId('cash-given').inputValue()).toBe(`1250${dec}00`);
      expect((await api<Sale>('GET', `/api/pos/sales/${sale.id}`)).tenders).toHaveLength(0);

      // The locale's way: 20,00 in fr-CA is twenty, and the change reads the same way everywhere on screen.
      await page.keyboard.press('Control+A');
      await page.keyboard.type(`20${dec}00`);
      await page.keyboard.press('Enter');
      await seen('change');
      expect(await text('change')).toContain(m(301));
      expect(await text('done-message')).toBe(`Change due: ${m(301)}.`);
      const paid = await api<Sale>('GET', `/api/pos/sales/${sale.id}`);
      expect(paid.tenders[0]).toMatchObject({ tendered_cents: 2000, change_cents: 301 });
      await shot('3-cash-change');
      await page.keyboard.press('Enter');
      await seen('scan');
    });
  });
}
