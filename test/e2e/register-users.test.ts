import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';

/**
 * The register signed in by a person (issue 19, "cashier: the register only"), in Debian's
 * Chromium against `npm run serve`: a cashier user signs in at the register with e-mail and
 * password and rings a cash sale; the same session is refused the back office's operations (403)
 * and its screens (the back office sends a cashier to the register); a manager signed in to the
 * back office opens the register with that session, without the API key; a cashier whose user is
 * disabled mid-sale is sent back to sign-in with a message and finds the open sale after signing in;
 * one disabled while the register sits idle is told at once, not shown "Server not answering".
 * Scans typed at a scanner's pace are all shown at once, whatever read of the lane or the sale
 * (after the screen is signed in again, after an outage, on an event) is answered after them.
 */
const TOKEN = 'REGUSERSTOKEN01';
const KEY = 'register-users-key-0123456789';
const CASHIER = { email: 'till@example.com', password: 'cashier password 1' };
const MANAGER = { email: 'boss@example.com', password: 'manager password 1' };

let register: RegisterInstall | undefined;
let browser: Browser;
let url: string;
let cashierCode: string;
const contexts: BrowserContext[] = [];
const api = apiOf(() => url, TOKEN, KEY);

async function userWithPassword(email: string, role: string, password: string): Promise<void> {
  const { link } = await api<{ link: string }>('POST', '/api/users', { email, role });
  const res = await fetch(`${url}/api/session/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link, password }) });
  expect(res.status).toBe(200);
}

async function newPage(): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  contexts.push(ctx);
  return ctx.newPage();
}

/** Lane 1 opened with the sample cashier's code, a butter croissant (2001) scanned onto the sale. */
async function openLaneAndScan(page: Page): Promise<void> {
  await page.keyboard.press('1');
  await page.getByLabel('Cashier code').waitFor();
  await page.keyboard.type(cashierCode);
  await page.keyboard.press('Enter');
  await page.getByTestId('scan').waitFor();
  await page.keyboard.type('2001');
  await page.keyboard.press('Enter');
  await until(async () => (await page.getByTestId('lines').innerText()).includes('Butter croissant'), 'the line');
}

async function signInUser(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.keyboard.press('Enter');
}

async function scanOn(page: Page, code: string): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

const linesShown = (page: Page) => page.locator('[data-testid="lines"] tbody tr').count();
const openSale = async () => (await api<{ open_sale: { id: string; number: string; lines: unknown[] } | null }>('GET', '/api/pos/registers/1')).open_sale;

async function payCash(page: Page): Promise<void> {
  await page.keyboard.press('F4');
  await page.getByTestId('cash-given').waitFor();
  await page.keyboard.press('Enter');
  await page.getByTestId('receipt').waitFor();
  await page.keyboard.press('Enter');
  await page.getByTestId('scan').waitFor();
}

/**
 * The page's first GET of `path` from now is read by the server at once, but its answer reaches
 * the page only on `release()`: a busy server or a slow till, where the page's later calls
 * overtake an earlier read.
 */
async function holdFirstRead(page: Page, path: string) {
  let release!: () => void;
  let read!: () => void;
  let delivered!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const wasRead = new Promise<void>((r) => (read = r));
  const wasDelivered = new Promise<void>((r) => (delivered = r));
  let held = false;
  await page.route(`${url}${path}`, async (route) => {
    if (held || route.request().method() !== 'GET') return route.continue();
    held = true;
    const response = await route.fetch();
    read();
    await released;
    await route.fulfill({ response });
    delivered();
  });
  return { read: wasRead, release: () => release(), delivered: wasDelivered, stop: () => page.unroute(`${url}${path}`) };
}

beforeAll(async () => {
  register = await startRegisterInstall('register-users', { token: TOKEN, key: KEY });
  ({ url, cashierCode } = register);
  await userWithPassword(CASHIER.email, 'cashier', CASHIER.password);
  await userWithPassword(MANAGER.email, 'manager', MANAGER.password);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await register?.close();
});

describe('the register signed in by a person', { timeout: 90_000 }, () => {
  let page: Page;
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-register-users-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
  });

  it('a cashier user signs in with e-mail and password and rings a cash sale', async () => {
    page = await newPage();
    await page.goto(`${url}/app/register`);
    await page.getByLabel('Password', { exact: true }).waitFor();
    await page.getByLabel('E-mail').fill(CASHIER.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.keyboard.press('Enter');
    await page.getByText('That e-mail and password do not match an enabled user.').waitFor();
    await screenshot(page, 'register-user-signin');
    await page.getByLabel('Password', { exact: true }).fill(CASHIER.password);
    await page.keyboard.press('Enter');
    await page.getByTestId('lane-1').waitFor();
    expect(await page.getByTestId('register-user').innerText()).toBe(`${CASHIER.email} · cashier`);
    await openLaneAndScan(page);
    await page.keyboard.press('F4');
    await page.getByTestId('cash-given').waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('receipt').waitFor();
    await screenshot(page, 'register-user-sale');
    const { sales } = await api<{ sales: Array<{ status: string; cashier: { name: string } }> }>('GET', '/api/pos/sales');
    expect(sales[0]).toMatchObject({ status: 'paid', cashier: { name: 'Sam Rivera' } });
    await page.keyboard.press('Enter');

    // A cashier has no install status page in the register's menu (it is the back office's): the
    // menu is numbered 1 to 5 all the same, each key the one any other sign-in has for that item.
    await page.keyboard.press('F10');
    await page.getByRole('menu').waitFor();
    expect(await page.getByRole('menuitem', { name: /install status/ }).count()).toBe(0);
    expect(await page.getByRole('menuitem', { name: `Sign ${CASHIER.email} out of this screen` }).count()).toBe(1);
    const menu = async () => (await page.getByRole('menuitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(await menu()).toEqual(['1 Find a sale: reprint, void, refund', '2 End of day: X and Z reports', '3 Sign out cashier', '4 Change lane', `5 Sign ${CASHIER.email} out of this screen`]);
    // 3 signs the cashier out; before the next one signs in, what needs a cashier keeps its key, greyed out.
    await page.keyboard.press('3');
    await page.getByLabel('Cashier code').waitFor();
    await page.keyboard.press('F10');
    await page.getByRole('menu').waitFor();
    expect((await menu()).map((t) => t.slice(0, 1))).toEqual(['1', '2', '3', '4', '5']);
    expect(await page.getByRole('menuitem', { disabled: true }).count()).toBe(3);
    await page.keyboard.press('1');
    expect(await page.getByRole('menu').count()).toBe(1);
    await page.keyboard.press('Escape');
    await page.getByLabel('Cashier code').fill(cashierCode);
    await page.keyboard.press('Enter');
    await page.getByTestId('scan').waitFor();
  });

  it("the cashier's session is refused the back office: 403 from the API, and its screens send them to the register", async () => {
    const jwt = await page.evaluate(() => localStorage.getItem('laneway.user'));
    expect(jwt).toBeTruthy();
    const headers = { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' };
    const customers = await fetch(`${url}/api/exports/customers`, { headers });
    expect(customers.status).toBe(403);
    expect(((await customers.json()) as { code: string }).code).toBe('role_forbidden');
    const product = await fetch(`${url}/api/pos/products`, { method: 'POST', headers, body: JSON.stringify({ code: 'X1', name: 'Nope', price_cents: 100 }) });
    expect(product.status).toBe(403);
    // The register's own reads work with the very same session.
    expect((await fetch(`${url}/api/pos/registers/1`, { headers })).status).toBe(200);

    await page.goto(`${url}/app/customers`);
    await page.waitForURL(/\/app\/register$/);
    await page.getByTestId('register-user').waitFor();
    expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
  });

  it("a manager signed in to the back office opens the register with that session, no API key", async () => {
    page = await newPage();
    await page.goto(`${url}/app/customers`);
    await page.getByLabel('E-mail').fill(MANAGER.email);
    await page.getByLabel('Password').fill(MANAGER.password);
    await page.keyboard.press('Enter');
    await page.getByLabel('Signed in user').waitFor();
    // The cash sale's order in the back office says what the register took (cash takes no gateway transaction).
    const [sale] = (await api<{ sales: Array<{ id: string; number: string; totals: { total_cents: number } }> }>('GET', '/api/pos/sales')).sales;
    await page.goto(`${url}/app/orders/${sale!.id}`);
    const atRegister = page.getByLabel('At the register');
    await atRegister.getByText(`Receipt ${sale!.number}`, { exact: false }).waitFor();
    expect((await atRegister.getByRole('row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([`Paid Cash $${(sale!.totals.total_cents / 100).toFixed(2)}`]);
    expect(await page.getByText('No card or gift card payment: what the register took is above.').count()).toBe(1);
    await page.goto(`${url}/app/customers`);
    await page.getByRole('link', { name: 'Register' }).click();
    await page.getByTestId('lane-1').waitFor();
    expect(await page.getByTestId('register-user').innerText()).toBe(`${MANAGER.email} · manager`);
    expect(await page.getByLabel('API key').count()).toBe(0);
    // Signing out at the register signs this browser's user out: the back office asks again.
    await page.keyboard.press('F10');
    await page.getByRole('menuitem', { name: /out of this screen/ }).click();
    await page.getByLabel('API key').waitFor();
    await page.goto(`${url}/app/customers`);
    await page.getByRole('heading', { name: 'Laneway back office' }).waitFor();
  });

  it('scans typed the moment a cashier is back at the register all show at once: none lost to a late read, none doubled', async () => {
    page = await newPage();
    await page.goto(`${url}/app/register`);
    await signInUser(page, CASHIER);
    await page.getByTestId('lane-1').waitFor();
    await page.keyboard.press('1');
    await page.getByLabel('Cashier code').waitFor();
    await page.keyboard.type(cashierCode);
    await page.keyboard.press('Enter');
    await page.getByTestId('scan').waitFor();
    // The end of a turn: the cashier signs out, then the screen is signed out of Laneway. The page
    // (and the register's state in it) stays, as on a till nobody reloads.
    await page.keyboard.press('F10');
    await page.getByRole('menuitem', { name: 'Sign out cashier' }).click();
    await page.getByLabel('Cashier code').waitFor();
    await page.keyboard.press('F10');
    await page.getByRole('menuitem', { name: `Sign ${CASHIER.email} out of this screen` }).click();
    await page.getByLabel('E-mail').waitFor();

    // The lane is read again when the screen is signed in; that answer reaches the page 2 s late.
    const hold = await holdFirstRead(page, '/api/pos/registers/1');
    void hold.read.then(() => setTimeout(hold.release, 2000));
    await signInUser(page, CASHIER);
    await page.getByLabel('Cashier code').waitFor();
    await page.keyboard.type(cashierCode);
    await page.keyboard.press('Enter');
    await page.getByTestId('scan').waitFor();
    // A scanner's pace: no waiting between scans.
    for (const code of ['3*2001', '1002', '3004']) await scanOn(page, code);
    await until(async () => (await openSale())?.lines.length === 3, 'the server to take the three lines');
    await until(async () => (await linesShown(page)) === 3, 'the three lines on screen');
    await hold.delivered;
    await page.waitForTimeout(300);
    // The late answer changed nothing: the sale on screen is the server's, with its three lines.
    const sale = await openSale();
    expect(await page.locator('.sale-head').innerText()).toContain(`Sale ${sale!.number}`);
    expect(await linesShown(page)).toBe(3);
    expect(await page.getByTestId('total').innerText()).toBe('$19.28');
    expect(await page.getByRole('button', { name: /^Cash/ }).isEnabled()).toBe(true);
    await hold.stop();

    // Paid once, at its total: nothing rescanned, nothing left open for the next test.
    await payCash(page);
    const { sales } = await api<{ sales: Array<{ number: string; status: string; lines: unknown[]; totals: { total_cents: number } }> }>('GET', '/api/pos/sales');
    expect(sales[0]).toMatchObject({ number: sale!.number, status: 'paid', totals: { total_cents: 1928 } });
    expect(sales[0]!.lines).toHaveLength(3);
  });

  it('a read of the sale answered after the cashier scanned again never puts the older sale back: after an outage, after a change from elsewhere', async () => {
    await scanOn(page, '2001');
    await until(async () => (await linesShown(page)) === 1, 'the first line');

    // Laneway unreachable: a scan is refused. Once it answers again, the screen reads the lane
    // again; that read's answer comes after the cashier's next scans.
    await page.context().setOffline(true);
    await scanOn(page, '1002');
    await page.getByTestId('server-down').waitFor();
    const afterOutage = await holdFirstRead(page, '/api/pos/registers/1');
    await page.context().setOffline(false);
    await scanOn(page, '1002');
    await afterOutage.read;
    await scanOn(page, '3004');
    await until(async () => (await linesShown(page)) === 3 && (await openSale())?.lines.length === 3, 'three lines on screen and on the server');
    afterOutage.release();
    await afterOutage.delivered;
    await page.waitForTimeout(300);
    expect(await linesShown(page)).toBe(3);
    await afterOutage.stop();

    // Another screen adds a line: the screen reads the sale on its event, and the cashier scans
    // before that read's answer arrives.
    const sale = (await openSale())!;
    const shift = JSON.parse((await page.evaluate(() => sessionStorage.getItem('laneway.shift')))!) as { id: string };
    const onEvent = await holdFirstRead(page, `/api/pos/sales/${sale.id}`);
    await api('POST', `/api/pos/sales/${sale.id}/lines`, { shift: shift.id, scan: '1002' });
    await onEvent.read;
    await scanOn(page, '2001');
    await until(async () => (await linesShown(page)) === 5, 'the line from elsewhere and the new scan');
    onEvent.release();
    await onEvent.delivered;
    await page.waitForTimeout(300);
    expect(await linesShown(page)).toBe(5);
    expect((await openSale())!.lines).toHaveLength(5);
    await onEvent.stop();
    await payCash(page);
  });

  it('a cashier whose user is disabled mid-sale is sent to sign-in with a message, and finds the sale again', async () => {
    const night = { email: 'night@example.com', password: 'night password 1' };
    const { user, link } = await api<{ user: { id: string }; link: string }>('POST', '/api/users', { email: night.email, role: 'cashier' });
    await fetch(`${url}/api/session/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link, password: night.password }) });
    page = await newPage();
    const signIn = async () => {
      await page.getByLabel('E-mail').fill(night.email);
      await page.getByLabel('Password', { exact: true }).fill(night.password);
      await page.keyboard.press('Enter');
    };
    await page.goto(`${url}/app/register`);
    await signIn();
    await page.getByTestId('lane-1').waitFor();
    await openLaneAndScan(page);

    // The owner disables the user: the register's next call is refused (401) and it asks for a sign-in.
    await api('PATCH', `/api/users/${user.id}`, { enabled: false });
    await page.keyboard.type('2001');
    await page.keyboard.press('Enter');
    await page.getByText(/Your session has ended/).waitFor();
    await page.getByLabel('Password', { exact: true }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('laneway.user'))).toBeNull();
    await screenshot(page, 'register-user-session-ended');

    // Enabled again and signed in: the same shift and the open sale with its one line.
    await api('PATCH', `/api/users/${user.id}`, { enabled: true });
    await signIn();
    await page.getByTestId('scan').waitFor();
    await until(async () => (await page.getByTestId('lines').innerText()).includes('Butter croissant'), 'the sale again');
    const { open_sale: sale } = await api<{ open_sale: { lines: unknown[] } | null }>('GET', '/api/pos/registers/1');
    expect(sale?.lines).toHaveLength(1);
  });

  it('a cashier disabled while the register sits idle is told at once that the session ended, never that the server is not answering', async () => {
    const idle = { email: 'idle@example.com', password: 'idle password 1' };
    const { user, link } = await api<{ user: { id: string }; link: string }>('POST', '/api/users', { email: idle.email, role: 'cashier' });
    await fetch(`${url}/api/session/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link, password: idle.password }) });
    page = await newPage();
    await page.goto(`${url}/app/register`);
    await signInUser(page, idle);
    await page.getByTestId('lane-1').waitFor();
    await page.keyboard.press('1');
    await page.getByLabel('Cashier code').waitFor();
    await page.keyboard.type(cashierCode);
    await page.keyboard.press('Enter');
    await page.getByTestId('scan').waitFor();
    await until(async () => (await page.getByTestId('live').innerText()) === 'Live', 'the live stream');
    // What the screen says about the server, sampled from now on.
    await page.evaluate(`
      window.said = [];
      setInterval(() => {
        if (document.querySelector('[data-testid="server-down"]')) window.said.push('down banner');
        const badge = document.querySelector('[data-testid="live"]')?.textContent;
        if (badge === 'Server not answering') window.said.push(badge);
      }, 25);
    `);

    // The owner disables the user; the cashier types nothing.
    const at = Date.now();
    await api('PATCH', `/api/users/${user.id}`, { enabled: false });
    await page.getByText(/Your session has ended/).waitFor({ timeout: 10_000 });
    expect(Date.now() - at, 'told within a few seconds').toBeLessThan(10_000);
    await page.getByLabel('Password', { exact: true }).waitFor();
    expect(await page.evaluate('window.said')).toEqual([]);
    await screenshot(page, 'register-user-idle-session-ended');
    await api('PATCH', `/api/users/${user.id}`, { enabled: true });
  });
});
