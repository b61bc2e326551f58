import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { SocatPair } from '../serial/helpers';
import { apiOf, start, until, type Proc } from './processes';
import { formatMoney } from '../../src/shared/money';
import type { Sale } from '../../src/shared/schemas/register';

/**
 * What a cashier must be able to trust on the register screen, in two locales: amounts typed and
 * shown the locale's way, a card payment followed through a reload, banners that go when their
 * problem goes, the server's absence shown, and words that say what happened.
 */
const TOKEN = 'POSTRUSTTOKEN1';
const KEY = 'pos-trust-key-0123456789';
const VISA = '4895281000000006';

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

const api = apiOf(() => url, TOKEN, KEY);

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
    const dialogTitle = async () => plain(await page.locator('section[role="dialog"] h2').first().innerText());
    /** What has the focus: its accessible name (aria-label) or its words. */
    const focused = async () => plain(await page.evaluate<string>(`document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.innerText ?? ''`));
    const focusInDialog = () => page.evaluate<boolean>(`!!document.activeElement?.closest('[role="dialog"]')`);
    /** F5, Enter: the amount on the card defaults to the balance (or `amount` typed); then the terminal asks for the card. */
    const sendToTerminal = async (amount?: string) => {
      await page.keyboard.press('F5');
      await seen('card-amount');
      if (amount !== undefined) {
        await page.keyboard.press('Control+A');
        await page.keyboard.type(amount);
      }
      const asked = () => sim.output().split('waiting for a card').length;
      const before = asked();
      await page.keyboard.press('Enter');
      await until(async () => asked() > before, 'the terminal to ask for the card');
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

    // Each test starts on an empty sale screen, whatever the one before left (so each fails only on its own defect).
    beforeEach(async () => {
      const open = await openRegister().catch(() => null);
      if (open?.pending_tender) {
        await api('POST', '/api/gateway/v1/terminal', { laneid: '1', command: 'Cancel' }).catch(() => undefined);
        await until(async () => !(await openRegister())?.pending_tender, 'the pending payment to end');
      }
      const left = await openRegister().catch(() => null);
      if (left) {
        const shift = await page.evaluate(() => (JSON.parse(sessionStorage.getItem('laneway.shift') ?? 'null') as { id: string } | null)?.id);
        if (shift) await api('POST', `/api/pos/sales/${left.id}/void`, { shift }).catch(() => undefined);
      }
      await page.evaluate(() => sessionStorage.removeItem('laneway.sale'));
      await page.goto(`${url}/app/`);
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
      await page.keyboard.type(`10${dec}00`);
      // Before the drawer opens, the amount typed says what it does: part of the balance, then the change to count out.
      await until(async () => (await text('cash-preview').catch(() => '')) === `Pays part: ${m(699)} left to pay`, 'what is left after 10');
      await page.keyboard.press('Control+A');
      await page.keyboard.type(`20${dec}00`);
      await until(async () => (await text('cash-preview').catch(() => '')) === `Change: ${m(301)}`, 'the change of 20 for 16.99');
      await page.keyboard.press('Enter');
      await seen('change');
      expect(await text('change')).toContain(m(301));
      // The done screen's message follows the sale's answer: wait for it, never read it once (CI read "is paid." first).
      await until(async () => (await text('done-message')) === `Change due: ${m(301)}.`, 'the change due message');
      const paid = await api<Sale>('GET', `/api/pos/sales/${sale.id}`);
      expect(paid.tenders[0]).toMatchObject({ tendered_cents: 2000, change_cents: 301 });
      await shot('3-cash-change');
      // Nothing tells the screen the drawer shut: the cashier says so, from the keyboard (Shift+Tab
      // from "Next sale", Enter), and the focus comes back to the next sale, the receipt still up.
      await seen('drawer');
      await page.keyboard.press('Shift+Tab');
      expect(await focused()).toBe('Drawer closed');
      await page.keyboard.press('Enter');
      await until(async () => (await page.getByTestId('drawer').count()) === 0, 'the drawer notice to go');
      expect(await page.getByTestId('receipt').count()).toBe(1);
      await until(async () => (await focused()).startsWith('Next sale'), 'the focus back on the next sale');
      await page.keyboard.press('Enter');
      await seen('scan');
    });

    it('reads a discount percentage the locale\'s way and shows it so', async () => {
      await scan('3001');
      await until(async () => (await text('total').catch(() => '')) === m(1699), 'the total');
      await page.keyboard.press('F7');
      await page.getByLabel('Quantity').waitFor();
      // The keyboard stays in the dialog: Tab past "Save line" comes back to its first control (not
      // the page behind), Shift+Tab the other way; Esc closes it, the focus back in the scan field.
      for (let i = 0; i < 10 && !(await focused()).startsWith('Save line'); i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe('Save line Enter');
      await page.keyboard.press('Tab');
      expect(await focusInDialog()).toBe(true);
      expect(await focused()).toBe('Close');
      await page.keyboard.press('Shift+Tab');
      expect(await focused()).toBe('Save line Enter');
      await page.keyboard.press('Escape');
      expect(await page.getByRole('dialog').count()).toBe(0);
      await until(async () => page.evaluate<boolean>(`document.activeElement?.getAttribute('data-testid') === 'scan'`), 'the focus back in the scan field');
      await page.keyboard.press('F7');
      await page.getByLabel('Quantity').waitFor();
      await page.keyboard.press('Tab'); // the discount kind: None
      await page.keyboard.press('ArrowRight'); // Percent
      await page.keyboard.press('Tab');
      await page.keyboard.type(`12${dec}5`);
      await page.keyboard.press('Enter');
      // 16.99 less 12.5% (2.12, rounded half up): 14.87.
      await until(async () => (await text('total').catch(() => '')) === m(1487), 'the discounted total');
      expect(await text('lines')).toContain(plain(`${new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 4 }).format(0.125)} off`));
      await shot('13-percent-discount');
    });

    it('follows a card payment through a reload, in words, to its receipt (never an empty new sale)', async () => {
      await scan('3001');
      await until(async () => (await text('total').catch(() => '')) === m(1699), 'the total');
      const sale = (await openRegister())!;
      await sendToTerminal();
      await page.reload();
      // The payment in progress on the lane is found again and followed, in words.
      await seen('device-following');
      await until(async () => (await text('device-step').catch(() => '')) === 'Insert, tap or swipe the card', 'the device step in words');
      expect(await text('device')).not.toMatch(/waiting_for_card|in progress on the terminal \(/);
      await shot('4-card-after-reload');
      sim.send(`card ${VISA}`);
      await seen('receipt');
      expect(await text('receipt')).toContain(m(1699));
      expect(await text('receipt')).toMatch(/Visa •••• 0006/);
      await until(async () => (await text('done-message')) === 'Visa •••• 0006: approved.', 'the approval message');
      expect((await api<Sale>('GET', `/api/pos/sales/${sale.id}`)).status).toBe('paid');
      await shot('5-receipt-after-reload');
      // A reload on the receipt brings the receipt back, not an empty sale.
      await page.reload();
      await seen('receipt');
      expect(await text('receipt')).toContain(sale.number);
      await page.keyboard.press('Enter');
      await seen('scan');
      expect(await page.getByTestId('receipt').count()).toBe(0);
    });

    it('clears what no longer applies: a refused code leaves the scan field empty, its error goes with the next step, a stale drawer notice goes', async () => {
      await seen('scan');
      await scan('99999');
      await seen('notice');
      expect(await text('notice')).toContain('99999');
      expect(await page.getByTestId('scan').inputValue()).toBe('');
      await scan('3001');
      await until(async () => (await text('lines').catch(() => '')).includes('Whole bean coffee'), 'the line');
      expect(await page.getByTestId('notice').count()).toBe(0);
      await scan('88888');
      await seen('notice');
      await page.keyboard.press('F7');
      await page.getByLabel('Quantity').waitFor();
      expect(await page.getByTestId('notice').count()).toBe(0);
      await shot('6-line-dialog-after-unknown-code');
      await page.keyboard.press('Escape');

      // A cancel on the terminal is a cancel, in the dialog and in the sale's list.
      await sendToTerminal();
      await page.keyboard.press('Escape');
      await seen('card-outcome');
      expect(await dialogTitle()).toBe('Card payment cancelled');
      expect(await text('card-outcome')).toMatch(/cancelled\. Nothing was charged/);
      await shot('7-card-cancelled');
      await page.keyboard.press('Escape');
      await seen('tenders');
      expect(await text('tenders')).toMatch(/Card cancelled/);
      expect(await text('tenders')).not.toMatch(/failed/);

      // Paid by card this time, in two parts; then a cash sale opens the drawer; then the card sale is
      // voided from the sales list: card only, so no drawer notice may be left over from the cash sale.
      const paidByCard = (await openRegister())!;
      await sendToTerminal(`10${dec}00`);
      sim.send(`card ${VISA}`);
      await seen('card-outcome');
      // The button says what it does (back to the sale, and what is left), not that it takes the rest; Tab stays in the dialog.
      expect(await text('card-back')).toBe(`Back to the sale: ${m(699)} left to pay Enter`);
      await page.keyboard.press('Tab');
      expect(await focusInDialog()).toBe(true);
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      await until(async () => (await page.getByRole('dialog').count()) === 0 && (await text('balance').catch(() => '')) === m(699), 'the sale with its balance');
      await sendToTerminal();
      sim.send(`card ${VISA}`);
      await seen('receipt');
      await page.keyboard.press('Enter');
      await seen('scan');
      await scan('3001');
      await until(async () => (await text('total').catch(() => '')) === m(1699), 'the total');
      await page.keyboard.press('F4');
      await seen('cash-given');
      await page.keyboard.press('Enter');
      await seen('receipt');
      await seen('drawer');
      await page.keyboard.press('F10');
      await page.getByRole('menu').waitFor();
      await page.keyboard.press('1');
      await seen('find');
      await page.keyboard.type(paidByCard.number);
      await page.keyboard.press('Enter');
      await page.getByText(`Sale ${paidByCard.number}`).first().waitFor();
      await page.keyboard.press('F9');
      await page.getByText('Every payment of this sale goes back').first().waitFor();
      await page.keyboard.press('Enter');
      await page.getByText(/Voided/).first().waitFor();
      await until(async () => (await api<Sale>('GET', `/api/pos/sales/${paidByCard.id}`)).status === 'voided', 'the void');
      expect(await page.getByTestId('drawer').count()).toBe(0);
      await shot('8-card-void-no-drawer');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await seen('scan');

      // The cashier signs out (F10, 3): the code prompt says what the lane is now, nobody signed in,
      // as the API says, never the cashier who just left.
      await page.keyboard.press('F10');
      await page.getByRole('menu').waitFor();
      await page.keyboard.press('3');
      await page.getByLabel('Cashier code').waitFor();
      expect(await text('notice')).toBe('Signed out.');
      expect((await api<{ signed_in: unknown }>('GET', '/api/pos/registers/1')).signed_in).toBeNull();
      await page.waitForTimeout(300);
      expect(await page.getByText(/is signed in here/).count()).toBe(0);
      await page.keyboard.type(cashierCode);
      await page.keyboard.press('Enter');
      await seen('scan');
    });

    it('says the terminal is not available (not "not approved") when it is offline, and offers cash first', async () => {
      await scan('3001');
      await until(async () => (await text('total').catch(() => '')) === m(1699), 'the total');
      await pair.unplug();
      await until(async () => (await text('lane-status')).includes('Offline'), 'the lane to show offline');
      await page.keyboard.press('F5');
      await seen('card-amount');
      await page.keyboard.press('Enter');
      await seen('card-outcome');
      expect(await dialogTitle()).toBe('Terminal not available');
      await seen('card-unavailable');
      expect(await page.getByRole('button', { name: /Try a card again/ }).count()).toBe(0);
      await shot('9-terminal-offline');
      await page.keyboard.press('Enter'); // the default: cash
      await seen('cash-given');
      await page.keyboard.press('Enter');
      await seen('receipt');
      await page.keyboard.press('Enter');
      await pair.plug();
      await until(async () => (await text('lane-status')).includes('Connected'), 'the lane to come back', 45_000);
    });

    it('shows the server unreachable (lane status unknown, tenders off) while it is down, and recovers by itself', async () => {
      await seen('scan');
      await scan('3001');
      await until(async () => (await text('total').catch(() => '')) === m(1699), 'the total');
      await serve.stop();
      try {
        await seen('server-down');
        expect(await text('lane-status')).toContain('status unknown');
        expect(await page.getByRole('button', { name: /^Cash/ }).isDisabled()).toBe(true);
        expect(await page.getByRole('button', { name: /^Card/ }).isDisabled()).toBe(true);
        expect(await page.getByRole('button', { name: /^Void sale/ }).isDisabled()).toBe(true);
        // A scan while it is down: said once, by the banner, not as an error left behind afterwards.
        await scan('3001');
        await until(async () => (await page.getByTestId('scan').inputValue()) === '', 'the scan to be refused');
        await shot('10-server-down');
      } finally {
        serve = startServe();
        await serve.waitFor(/http:\/\/127\.0\.0\.1:\d+\/api\b/, 'serve to start again');
      }
      await until(async () => (await page.getByTestId('server-down').count()) === 0, 'the banner to go');
      await until(async () => (await text('lane-status')).includes('Connected'), 'the lane to come back', 45_000);
      await until(async () => page.getByRole('button', { name: /^Cash/ }).isEnabled(), 'cash to be possible again');
      await page.keyboard.press('F4');
      await seen('cash-given');
      await page.keyboard.press('Enter');
      await seen('receipt');
      expect(await page.getByTestId('notice').count()).toBe(0);
      await page.keyboard.press('Enter');
    });

    it('counts in words on the X and Z reports, prints no negative zero, and asks before an empty Z', async () => {
      await seen('scan');
      await page.keyboard.press('F10');
      await page.keyboard.press('2');
      await seen('report-x');
      await page.keyboard.press('z');
      await page.getByText('Close the day (Z report)?').waitFor();
      await page.keyboard.press('Enter');
      await seen('report-z');
      const z = await text('report-z');
      expect(z).not.toMatch(/\(s\)/);
      expect(z).not.toMatch(/[-−]\s*\$?\s*0[.,]00/);
      expect(z).toMatch(/drawer opened \d+ times?/);
      // The card batch by its day in this locale ("Card batch of 27 nov. 2026"); its id only as the item's title.
      const { batches } = await api<{ batches: Array<{ token: string; processing_date: string }> }>('GET', '/api/gateway/v1/settlement/batches?list=true');
      const items = page.getByTestId('batches').locator('li');
      expect(await items.count()).toBeGreaterThan(0);
      for (const item of await items.all()) {
        const token = (await item.getAttribute('title'))?.replace(/^Batch /, '');
        const batch = batches.find((b) => b.token === token)!;
        expect(batch).toBeDefined();
        const day = plain(new Date(`${batch.processing_date}T00:00:00Z`).toLocaleDateString(locale, { dateStyle: 'medium', timeZone: 'UTC' }));
        const said = plain(await item.innerText());
        expect(said).toMatch(new RegExp(`^Card batch (\\d+ )?of ${day.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
        expect(said).not.toContain(batch.token);
      }
      await shot('11-z-report');
      await page.keyboard.press('z');
      await page.getByText('Close the day (Z report)?').waitFor();
      await page.keyboard.press('Enter');
      await seen('z-empty');
      expect(await text('z-empty')).toMatch(/^Nothing happened on lane 1 since Z report \d+/);
      await shot('12-empty-z-confirm');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
      await seen('scan');
    });
  });
}
