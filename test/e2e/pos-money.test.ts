import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { apiOf, until, type Proc } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';
import type { Sale } from '../../src/shared/schemas/register';

/**
 * The money a cashier reads, on the screens (issue 12, items 1, 3, 4, 5): a lane with tips on and
 * the simulator's customer tipping 18%, in Debian's Chromium, keyboard only, against `npm run
 * serve` with `npm run terminal-sim` on a socat pair. Tips on the sale, its receipt, X and Z (and
 * the Z against the card batch); the subtotal and line amounts the same on every screen; refund
 * and void receipts with their own numbers and signs; the shop's fixed tax letters; the same
 * receipt and report read in fr-CA. Screenshots: test-output/screenshots/pos-money-*.png.
 */
const TOKEN = 'POSMONEYTOKEN01';
const KEY = 'pos-money-key-0123456789';
const VISA = '4895281000000006';

let register: RegisterInstall | undefined;
let sim: Proc;
let browser: Browser;
let page: Page;
let fr: BrowserContext | undefined;
let url: string;
let cashierCode: string;

const api = apiOf(() => url, TOKEN, KEY);

const text = (testid: string, p = page) => p.getByTestId(testid).innerText();
/** What a line reads, its parts on one line. */
const words = async (testid: string) => (await text(testid)).replace(/\s+/g, ' ').trim();
const seen = (testid: string, p = page) => p.getByTestId(testid).waitFor({ state: 'visible', timeout: 30_000 });
const see = (words: string | RegExp, p = page) => p.getByText(words).first().waitFor({ state: 'visible', timeout: 30_000 });

async function scan(code: string): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

/** F5, Enter: the terminal asks for the card; the simulated customer presents it, tips 18% and enters the PIN. */
async function payByCard(): Promise<void> {
  await page.keyboard.press('F5');
  await seen('card-amount');
  const asked = () => sim.output().split('waiting for a card').length;
  const before = asked();
  await page.keyboard.press('Enter');
  await until(async () => asked() > before, 'the terminal to ask for the card');
  sim.send(`card ${VISA}`);
  await seen('receipt');
}

async function recent(): Promise<Sale[]> {
  return (await api<{ sales: Sale[] }>('GET', '/api/pos/sales?laneid=1')).sales;
}

/** F10, 1: find a sale by its receipt number. */
async function findSale(number: string, p = page): Promise<void> {
  await p.keyboard.press('F10');
  await p.keyboard.press('1');
  await seen('find', p);
  await p.keyboard.type(number);
  await p.keyboard.press('Enter');
  await see(`Sale ${number}`, p);
}

async function signIn(p: Page): Promise<void> {
  await p.goto(`${url}/app/`);
  await p.getByLabel('API token').fill(TOKEN);
  await p.getByLabel('API key').fill(KEY);
  await p.keyboard.press('Enter');
  await seen('lane-1', p);
  await p.keyboard.press('1');
  await p.getByLabel('Cashier code').waitFor();
  await p.keyboard.type(cashierCode);
  await p.keyboard.press('Enter');
  await seen('scan', p);
}

beforeAll(async () => {
  register = await startRegisterInstall('pos-money', { token: TOKEN, key: KEY }, { simArgs: ['--tip', '18'], lane: { tip: { enabled: true, percentages: [15, 18, 20] } } });
  ({ sim, url, cashierCode } = register);

  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
}, 120_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-money-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
});

afterAll(async () => {
  await fr?.close();
  await browser?.close();
  await register?.close();
});

describe('the money a cashier reads', { timeout: 90_000 }, () => {
  it('a card sale with an 18% tip: the tip on the screen and on the receipt', async () => {
    await signIn(page);
    await scan('4002'); // French press 44.99 + 5.85 = 50.84; the customer tips 18%: 9.15
    await until(async () => (await text('total').catch(() => '')) === '$50.84', 'the total');
    await payByCard();
    expect(await words('done-paid')).toBe('Paid with tip $59.99 (of which tip $9.15)');
    expect(await text('done-message')).toBe('Visa •••• 0006: approved, $59.99 with a tip of $9.15.');
    const receipt = await text('receipt');
    expect(receipt).toMatch(/Total\s+\$50\.84/);
    expect(await text('receipt-tip')).toBe('$9.15');
    expect(await text('receipt-paid')).toBe('$59.99');
    expect(receipt).toMatch(/Visa •••• 0006\s+\$59\.99\s+Purchase\s+\$50\.84\s+Tip\s+\$9\.15/);
    await screenshot(page, 'pos-money-1-receipt-tip');
    await page.keyboard.press('Enter');
    await seen('scan');
  });

  it('one subtotal and one line amount on the sale screen, the receipt and the sale detail; fixed tax letters', async () => {
    // Honey ×2 with 10% off (0%, A) and a cappuccino (5%, B): subtotal after discounts 21.51 + 4.25.
    await scan('3003');
    await until(async () => (await text('lines')).includes('Wildflower honey'), 'the honey line');
    await page.keyboard.press('F7');
    await page.getByLabel('Quantity').waitFor();
    // A fraction is refused as it reads, never taken as its digits ("1,5" was 15 of them).
    await page.keyboard.press('Control+A');
    await page.keyboard.type('1,5');
    expect(await page.getByLabel('Quantity').inputValue()).toBe('1,5');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Quantity is a whole number from 1 to 999.' }).waitFor();
    expect(await page.getByTestId('lines').locator('td.qty').allInnerTexts()).toEqual(['1']);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Tab');
    await page.keyboard.type('10');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Dented lid');
    await page.keyboard.press('Enter');
    await until(async () => (await text('lines')).includes('10% off'), 'the discount');
    await scan('1002');
    await until(async () => (await text('total').catch(() => '')) === '$25.97', 'the total');
    expect(await text('subtotal')).toBe('$25.76');
    expect(await text('lines')).toMatch(/\$21\.51 A[\s\S]*\$4\.25 B/);
    await page.keyboard.press('F4');
    await seen('cash-given');
    await page.keyboard.type('30');
    await page.keyboard.press('Enter');
    await seen('change');
    expect(await text('receipt-subtotal')).toBe('$25.76');
    const receipt = await text('receipt');
    expect(receipt).toMatch(/Wildflower honey[\s\S]*\$21\.51 A/);
    expect(receipt).toMatch(/A Tax 0% on \$21\.51/);
    expect(receipt).toMatch(/B Tax 5% on \$4\.25\s+\$0\.21/);
    await screenshot(page, 'pos-money-2-receipt-sale');
    await page.keyboard.press('Enter');
    await seen('scan');

    // A sale of a 13% item alone: its letter is still C (not A because it is the receipt's first rate).
    await scan('4001');
    await until(async () => (await text('total').catch(() => '')) === '$20.34', 'the total');
    await page.keyboard.press('F4');
    await seen('cash-given');
    await page.keyboard.press('Enter');
    await seen('receipt');
    expect(await text('receipt')).toMatch(/Reusable cup[\s\S]*\$18\.00 C[\s\S]*C Tax 13% on \$18\.00/);
    await page.keyboard.press('Enter');
    await seen('scan');

    // The sale detail: the same line amounts (before tax, with their letters), subtotal and time as the receipt.
    const honey = (await recent()).find((s) => s.totals.total_cents === 2597)!;
    await findSale(honey.number);
    expect(await text('detail-subtotal')).toBe('$25.76');
    const detail = await page.locator('.sales.detail table.lines').innerText();
    expect(detail).toMatch(/Wildflower honey, 500 g\s+2\s+\$21\.51 A/);
    expect(detail).toMatch(/Cappuccino\s+1\s+\$4\.25 B/);
    const shown = (await page.locator('.sales.detail p.muted').first().innerText()).split(' · ')[0]!;
    expect(await text('receipt')).toContain(shown);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await seen('scan');
  });

  it('a refund and a void get their own numbers and receipts, with every amount going back negative', async () => {
    const honey = (await recent()).find((s) => s.totals.total_cents === 2597)!;
    await findSale(honey.number);
    await page.keyboard.press('F7');
    await page.getByLabel('Refund quantity of line 1').waitFor();
    // Half a jar of honey is no quantity: said, and nothing is planned.
    await page.keyboard.type('1,5');
    await page.keyboard.press('Enter');
    await see('Line 1: type how many come back as a whole number (1, 2, 3…).');
    expect(await page.getByTestId('refund-plan').count()).toBe(0);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1'); // the cappuccino
    await page.keyboard.press('Enter');
    await seen('refund-plan');
    await page.keyboard.press('Enter');
    await until(async () => (await text('receipt-title')).startsWith('REFUND'), 'the refund receipt');
    expect(await text('receipt-title')).toBe('REFUND 1-R000001');
    const refund = await text('receipt');
    expect(refund).toContain(`of sale ${honey.number}`);
    expect(refund).toMatch(/Cappuccino\s+-\$4\.25 B/);
    expect(await text('receipt-subtotal')).toBe('-$4.25');
    expect(refund).toMatch(/B Tax 5% on -\$4\.25\s+-\$0\.21/);
    expect(await text('receipt-total')).toBe('-$4.46');
    expect(refund).toMatch(/Total refunded\s+-\$4\.46/);
    expect(refund).toMatch(/Cash \(cash back\)\s+-\$4\.46/);
    await screenshot(page, 'pos-money-3-receipt-refund');
    // Its own number finds it again, with its own receipt.
    await page.keyboard.press('Escape');
    await seen('find');
    await page.keyboard.type('1-R000001');
    await page.keyboard.press('Enter');
    await see(`Sale ${honey.number}`);
    await until(async () => (await text('receipt-title')) === 'REFUND 1-R000001', 'the refund receipt found by its number');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await seen('scan');

    // A second tipped card sale, voided the same day: its tip goes back with it.
    await scan('1002'); // 4.25 + 0.21 = 4.46; tip 0.80
    await until(async () => (await text('total').catch(() => '')) === '$4.46', 'the total');
    await payByCard();
    expect(await words('done-paid')).toBe('Paid with tip $5.26 (of which tip $0.80)');
    await page.keyboard.press('Enter');
    await seen('scan');
    const tipped = (await recent()).find((s) => s.totals.total_cents === 446 && s.status === 'paid')!;
    await findSale(tipped.number);
    await page.keyboard.press('F9');
    await see('Every payment of this sale goes back: $5.26, its $0.80 tip included.');
    await page.keyboard.press('Enter');
    await see('Voided $5.26: $5.26 to Visa •••• 0006 (its $0.80 tip included).');
    await until(async () => (await text('receipt-title')).startsWith('VOID'), 'the void receipt');
    expect(await text('receipt-title')).toBe('VOID 1-V000001');
    const voided = await text('receipt');
    expect(voided).not.toMatch(/RETURN APPROVED|Total refunded/);
    expect(voided).toMatch(/Total voided\s+-\$4\.46/);
    expect(voided).toMatch(/Tip given back\s+-\$0\.80/);
    expect(voided).toMatch(/Back to the customer\s+-\$5\.26/);
    expect(voided).toMatch(/Visa •••• 0006 \(voided\)\s+-\$5\.26/);
    expect(voided).toMatch(/VOID APPROVED/);
    await screenshot(page, 'pos-money-4-receipt-void');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await seen('scan');
  });

  it('X and Z count the tips by tender and by cashier apart from sales, and the Z meets the card batch to the cent', async () => {
    await page.keyboard.press('F10');
    await page.keyboard.press('2');
    await seen('report-x');
    // Sales: 50.84 + 25.97 + 20.34 + 4.46; the void (4.46) and the refund (4.46) off; tips 9.15 (+0.80 −0.80).
    expect(await text('net-sales')).toBe('$92.69');
    expect(await text('tips')).toBe('$9.15');
    expect(await text('report-tenders')).toMatch(/Card: Visa \(2\)\s+\$55\.30\s+\$9\.15\s+\$4\.46\s+\$59\.99/);
    expect(await text('report-cashiers')).toMatch(/Sam Rivera[\s\S]*2 · \$9\.15/);
    await screenshot(page, 'pos-money-5-x-report');
    await page.keyboard.press('z');
    await see('Close the day (Z report)?');
    await page.keyboard.press('Enter');
    await seen('report-z');
    expect(await text('report-tenders', page)).toMatch(/\$59\.99/);
    expect(await text('batch-net')).toBe('$59.99');
    expect(await text('reconciliation')).toMatch(/This lane's card net \(sales \+ tips − money back\)\s+\$59\.99[\s\S]*In the batch from this lane\s+\$59\.99[\s\S]*Card batch net\s+\$59\.99/);
    expect(await text('batches')).toMatch(/net \$59\.99/);
    // The cashier reads the batch's day, not its id ("2026-11-27-MA…-usd"), which stays its title.
    const [batch] = (await api<{ batches: Array<{ token: string; processing_date: string }> }>('GET', '/api/gateway/v1/settlement/batches?list=true')).batches;
    const batchDay = new Date(`${batch!.processing_date}T00:00:00Z`).toLocaleDateString('en-US', { dateStyle: 'medium', timeZone: 'UTC' });
    expect(await words('batches')).toMatch(new RegExp(`^Card batch of ${batchDay}: \\d+ transactions?, net \\$59\\.99$`));
    expect(await page.getByTestId('batches').locator('li').first().getAttribute('title')).toBe(`Batch ${batch!.token}`);
    await screenshot(page, 'pos-money-6-z-report');
    await page.keyboard.press('Escape');
    await seen('scan');
  });

  it('in fr-CA: the tip receipt and the Z reprint read in the browser\'s own format', async () => {
    // In Montréal's time zone, reading a shop kept on UTC: times are the shop's, and say so.
    fr = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'fr-CA', timezoneId: 'America/Toronto' });
    const p = await fr.newPage();
    await signIn(p);
    const tipped = (await recent()).find((s) => s.totals.total_cents === 5084)!;
    await findSale(tipped.number, p);
    const receipt = await text('receipt', p);
    // fr-CA: "50,84 $ US"; the figures are the engine's, the format the browser's.
    expect(await text('receipt-tip', p)).toMatch(/^9,15\s\$/);
    expect(await text('receipt-paid', p)).toMatch(/^59,99\s\$/);
    // A rate as fr-CA writes it (13 %, 12,5 %), as the product list does.
    expect(receipt).toMatch(/C Tax 13\s% on 44,99\s\$/);
    const hour = new Date(tipped.at).getUTCHours();
    expect(receipt).toMatch(new RegExp(`\\b0?${hour}\\s?h\\s?\\d{2}\\s+UTC`));
    await screenshot(p, 'pos-money-7-receipt-tip-fr-CA');
    await p.keyboard.press('Escape');
    await p.keyboard.press('Escape');
    await seen('scan', p);
    await p.keyboard.press('F10');
    await p.keyboard.press('2');
    await seen('report-x', p);
    expect(await text('tips', p)).toMatch(/^0,00\s\$/);
    await screenshot(p, 'pos-money-8-x-report-fr-CA');
    // A long amount in fr-CA ("17 982,00 $ US C"): its cell shows all of it, tax letter included.
    await p.keyboard.press('Escape');
    await seen('scan', p);
    await p.keyboard.type('999*4001');
    await p.keyboard.press('Enter');
    await until(async () => /17\s982,00\s\$/.test(await text('lines', p)), 'the long line');
    const cut = await p.locator('[data-testid="lines"] td.amount').evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    expect(cut).toEqual([]);
    await screenshot(p, 'pos-money-9-long-amount-fr-CA');
  });
});
