import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { start, type Proc } from './processes';

/**
 * What the back office's browser tests start with: `npm run serve` on a fresh data folder with
 * chosen API credentials, the owner's first-start link it prints, and Chromium. Pages collect the
 * screens' errors, so a failing test prints what the page said.
 */
export interface BackofficeInstall {
  readonly dir: string;
  readonly serve: Proc;
  readonly url: string;
  /** The owner's one-time sign-in link printed by the first start. */
  readonly ownerLink: string;
  readonly browser: Browser;
  /** Uncaught errors and console errors of every page made here. */
  readonly pageErrors: string[];
  newPage(locale: string, options?: BrowserContextOptions): Promise<Page>;
  /** Opens the owner's link and chooses their e-mail and password, as the owner does once. */
  claimOwner(page: Page, owner: { email: string; password: string }): Promise<void>;
  /**
   * The owner (signed in on `owner`) adds a user of `role` in the Users section; the new user opens
   * the one-time link shown, chooses a password, and is signed in on the page answered.
   */
  addUser(owner: Page, user: { email: string; role: string; password: string }): Promise<Page>;
  /** Signs in with e-mail and password at the back office. */
  signIn(page: Page, who: { email: string; password: string }): Promise<void>;
  /** For an afterEach: on a failed test, prints the pages' errors and screenshots `pages`. */
  onFailure(state: string | undefined, name: string, pages: Array<[string, Page | undefined]>): Promise<void>;
  close(): Promise<void>;
}

/**
 * `env` is added to serve's environment: `LANEWAY_TICK_MS` (src/cli/launch.ts) for a test that
 * waits on the engine's tick, so it waits a second, not up to 15.
 */
export async function startBackoffice(name: string, credentials: { token: string; key: string }, serveArgs: string[] = [], env: Record<string, string> = {}): Promise<BackofficeInstall> {
  const dir = mkdtempSync(join(tmpdir(), `laneway-${name}-`));
  const serve = start(['serve', '--', '--data-dir', join(dir, 'data'), '--port', '0', '--timezone', 'UTC', ...serveArgs], { ...env, LANEWAY_API_TOKEN: credentials.token, LANEWAY_API_KEY: credentials.key });
  const url = (await serve.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/api\b/, 'serve to print its URL'))[1]!;
  const ownerLink = (await serve.waitFor(/(http:\/\/\S+\/app\/welcome#link=\S+)/, "the owner's sign-in link"))[1]!;
  const browser = await launchBrowser();
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
  const newPage = async (locale: string, options: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale, ...options });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(`${e.message}\n${e.stack ?? ''}`));
    page.on('console', (m) => void (m.type() === 'error' && pageErrors.push(m.text())));
    return page;
  };
  /** A one-time sign-in link opened: a password chosen (and the owner's e-mail), then signed in. */
  const redeem = async (page: Page, link: string, password: string, email?: string) => {
    await page.goto(link);
    if (email !== undefined) await page.getByLabel(/e-mail \(leave empty to keep /).fill(email);
    await field(page, 'New password').fill(password);
    await field(page, 'The same again').fill(password);
    await page.keyboard.press('Enter');
    await page.getByLabel('Signed in user').waitFor();
  };
  return {
    dir,
    serve,
    url,
    ownerLink,
    browser,
    pageErrors,
    newPage,
    async claimOwner(page, owner) {
      await redeem(page, ownerLink, owner.password, owner.email);
    },
    async addUser(owner, user) {
      await owner.goto(`${url}/app/users`);
      await field(owner, 'E-mail').fill(user.email);
      await owner.getByRole('form', { name: 'Add a user' }).locator('select').selectOption(user.role);
      await owner.getByRole('button', { name: 'Add user' }).click();
      const link = (await owner.locator('.bo-secret').innerText()).trim();
      const page = await newPage('en-US');
      await redeem(page, link, user.password);
      return page;
    },
    async signIn(page, who) {
      await page.goto(`${url}/app/customers`);
      await field(page, 'E-mail').fill(who.email);
      await field(page, 'Password').fill(who.password);
      await page.keyboard.press('Enter');
      await page.getByLabel('Signed in user').waitFor();
    },
    async onFailure(state, testName, pages) {
      if (state !== 'fail') return;
      if (pageErrors.length) console.error(pageErrors.splice(0).join('\n'));
      for (const [label, page] of pages) {
        if (page) await screenshot(page, `failed-${name}-${label ? `${label}-` : ''}${testName.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
      }
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
      await serve.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
