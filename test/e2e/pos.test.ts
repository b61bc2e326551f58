import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import type { SocatPair } from '../serial/helpers';
import { apiOf, until, type Proc } from './processes';
import { startRegisterInstall, type RegisterInstall } from './register-install';
import type { Sale } from '../../src/shared/schemas/register';
import { formatMoney } from '../../src/shared/money';

/**
 * The cashier's whole path, keyboard only, in Debian's Chromium, against `npm run serve` with
 * `npm run terminal-sim` (interactive: the test plays the customer) on a socat serial pair.
 */
const TOKEN = 'POSE2ETOKEN01';
const KEY = 'pos-e2e-key-0123456789';
const VISA = '4895281000000006';
const DECLINE = '4264280001234500';
const MASTERCARD = '5541032000004422';
const AMEX = '341111597242000';

let register: RegisterInstall | undefined;
let sim: Proc;
let pair: SocatPair;
let browser: Browser;
let page: Page;
let url: string;
let cashierCode: string;

const api = apiOf(() => url, TOKEN, KEY);

const text = (testid: string) => page.getByTestId(testid).innerText();
const seen = (testid: string, ms = 30_000) => page.getByTestId(testid).waitFor({ state: 'visible', timeout: ms });
const see = (words: string | RegExp, ms = 30_000) => page.getByText(words).first().waitFor({ state: 'visible', timeout: ms });

async function scan(code: string): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
}

/** F5, Enter: the amount on the card defaults to the balance; then the terminal asks for the card. */
async function sendToTerminal(amount?: string): Promise<void> {
  await page.keyboard.press('F5');
  await seen('card-amount');
  if (amount !== undefined) {
    await page.keyboard.press('Control+A');
    await page.keyboard.type(amount);
  }
  const asked = () => sim.output().split('waiting for a card').length;
  const before = asked();
  await page.keyboard.press('Enter');
  // The device itself asks (the simulator says so): only then can the customer present a card.
  await until(async () => asked() > before, 'the terminal to ask for the card');
  await until(async () => (await page.getByTestId('device-step').innerText().catch(() => '')).includes('Insert, tap or swipe'), 'the screen to show it');
}

async function currentSale(): Promise<Sale> {
  const reg = await api<{ open_sale: Sale | null }>('GET', '/api/pos/registers/1');
  return reg.open_sale!;
}

beforeAll(async () => {
  register = await startRegisterInstall('pos-e2e', { token: TOKEN, key: KEY });
  ({ sim, pair, url, cashierCode } = register);
  await api('POST', '/api/gateway/v1/gift_card', { card_number: '6277000012345678', pin: '2468', activated: 'true', load_amount_cents: 1500 });

  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
}, 120_000);

afterEach(async (ctx) => {
  // What the screen showed when a step failed: the first thing to look at.
  if (ctx.task.result?.state === 'fail' && page) await screenshot(page, `failed-${ctx.task.name.slice(0, 40).replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
});

afterAll(async () => {
  await browser?.close();
  await register?.close();
});

describe('the cashier screens, keyboard only', { timeout: 90_000 }, () => {
  it('signs the screen in, picks the lane (its terminal live), and signs the cashier in with a code', async () => {
    await page.goto(`${url}/app/`);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByLabel('API key').fill(KEY);
    await page.keyboard.press('Enter');
    await seen('lane-1');
    expect(await text('lane-1')).toMatch(/Lane 1[\s\S]*Connected/);
    await screenshot(page, 'pos-1-lanes');
    await page.keyboard.press('1');

    await page.getByLabel('Cashier code').waitFor();
    await page.keyboard.type('0000' === cashierCode ? '1111' : '0000');
    await page.keyboard.press('Enter');
    await see('That code does not match a cashier. Check it and try again.');
    await screenshot(page, 'pos-2-cashier-signin');
    await page.keyboard.type(cashierCode);
    await page.keyboard.press('Enter');
    await seen('scan');
    expect(await text('cashier')).toBe('Sam Rivera');
    // The focus is where the next keystroke belongs.
    expect(await page.evaluate('document.activeElement?.getAttribute("data-testid")')).toBe('scan');

    // The lane is remembered: a reload comes back to it, signed in.
    await page.reload();
    await seen('scan');
    expect(await text('lane-status')).toContain('Lane 1');
  });

  it('rings up by barcode, code and quantity, and takes a card approved on the terminal, with the EMV receipt', async () => {
    await scan('0629110010039'); // Latte, oat milk (barcode)
    await scan('2*2001'); // 2 croissants
    await scan('3004');
    await until(async () => (await text('lines')).includes('Dark chocolate'), 'three lines');
    // The engine's totals: 495 + 25 tax, 650, 449 + 58 tax = 16.77
    expect(await text('total')).toBe('$16.77');
    await page.keyboard.press('ArrowUp');
    await screenshot(page, 'pos-3-ringup');

    await sendToTerminal();
    await screenshot(page, 'pos-4-card-waiting');
    sim.send(`card ${VISA}`);
    await seen('receipt');
    const receipt = await text('receipt');
    expect(receipt).toMatch(/Visa •••• 0006/);
    expect(receipt).toMatch(/A0000000031010/);
    expect(receipt).toMatch(/Verified by PIN/);
    expect(receipt).toMatch(/\$16\.77/);
    await screenshot(page, 'pos-5-receipt-card');
    await page.keyboard.press('Enter');
    await seen('scan');
  });

  it('shows a declined card in words, then takes cash with change and opens the drawer', async () => {
    await scan('1002');
    await scan('2003');
    await until(async () => (await text('total').catch(() => '')) === '$7.96', 'the total');
    await sendToTerminal();
    sim.send(`card ${DECLINE}`);
    await seen('card-outcome');
    // Said once: not "declined (DECLINED)", the processor's word again.
    expect(await text('card-outcome')).toBe('The card was declined. Try another card or another tender.');
    await screenshot(page, 'pos-6-card-declined');
    await page.keyboard.press('F4');
    await seen('cash-given');
    await page.keyboard.type('20');
    await page.keyboard.press('Enter');
    await seen('change');
    expect(await text('change')).toContain('$12.04');
    await seen('drawer');
    await screenshot(page, 'pos-7-cash-change');
    await page.keyboard.press('Enter');
  });

  it('splits a sale across a gift card, a card and cash', async () => {
    await seen('scan');
    await scan('4002'); // French press 44.99 + 5.85 = 50.84
    await until(async () => (await text('total').catch(() => '')) === '$50.84', 'the total');
    await page.keyboard.press('F6');
    await page.keyboard.press('1'); // Gift card
    await seen('other-number');
    await page.keyboard.type('6277000012345678');
    await page.keyboard.press('Tab');
    await page.keyboard.type('2468');
    await page.keyboard.press('Enter');
    await until(async () => (await text('balance').catch(() => '')) === '$35.84', 'the balance after the gift card');

    await sendToTerminal('20.00');
    sim.send(`card ${MASTERCARD}`);
    await seen('card-outcome');
    expect(await text('card-outcome')).toMatch(/Mastercard •••• 4422: approved/);
    // Enter goes back to the sale, which the button says (with what is left), not that it takes the rest.
    expect((await text('card-back')).replace(/\s+/g, ' ')).toBe('Back to the sale: $15.84 left to pay Enter');
    await page.keyboard.press('Enter');
    await until(async () => (await text('balance').catch(() => '')) === '$15.84', 'the balance after the card');
    await screenshot(page, 'pos-8-split-tender');
    await page.keyboard.press('F4');
    await seen('cash-given');
    await page.keyboard.press('Enter'); // exact
    await seen('receipt');
    const receipt = await text('receipt');
    expect(receipt).toMatch(/Gift card •••• 5678[\s\S]*\$15\.00/);
    expect(receipt).toMatch(/Mastercard •••• 4422[\s\S]*\$20\.00/);
    expect(receipt).toMatch(/Cash[\s\S]*\$15\.84/);
    await screenshot(page, 'pos-9-split-receipt');
    await page.keyboard.press('Enter');
  });

  it('finds a paid sale by its receipt number and refunds an item back to the tenders, last first', async () => {
    const recent = await api<{ sales: Sale[] }>('GET', '/api/pos/sales?laneid=1');
    const split = recent.sales.find((s) => s.totals.total_cents === 5084)!;
    // A second item on a new sale, so there is something to refund partly: use the cash sale (cappuccino + muffin).
    const cashSale = recent.sales.find((s) => s.totals.total_cents === 796)!;
    await seen('scan');
    await page.keyboard.press('F10');
    await page.keyboard.press('1');
    await seen('find');
    await page.keyboard.type(cashSale.number);
    await page.keyboard.press('Enter');
    await see(`Sale ${cashSale.number}`);
    await page.keyboard.press('F7');
    await page.getByLabel('Refund quantity of line 1').waitFor();
    await page.keyboard.press('Tab'); // from the cappuccino to the muffin
    await page.keyboard.type('1');
    await page.keyboard.press('Enter');
    await seen('refund-plan');
    expect(await text('refund-plan')).toBe('Refund of $3.50: $3.50 to cash from the drawer.');
    await screenshot(page, 'pos-10-refund-plan');
    await page.keyboard.press('Enter');
    await see('Refunded $3.50: $3.50 to cash. Give $3.50 in cash from the drawer.');
    await until(async () => (await text('receipt')).includes('REFUND'), 'the refund receipt');
    await seen('drawer');
    await screenshot(page, 'pos-11-refund-done');
    expect((await api<Sale>('GET', `/api/pos/sales/${cashSale.id}`)).status).toBe('partially_refunded');

    // The split sale: everything back, the cash first, then the card, then the gift card.
    await page.keyboard.press('Escape');
    await seen('find');
    await page.keyboard.type(split.number);
    await page.keyboard.press('Enter');
    await see(`Sale ${split.number}`);
    await page.keyboard.press('F7');
    await page.keyboard.press('F8');
    // Clicked too, Everything keeps the focus on no field: Enter still shows the refund (it did nothing).
    await page.getByRole('button', { name: /Everything/ }).click();
    await page.keyboard.press('Enter');
    await seen('refund-plan');
    expect(await text('refund-plan')).toBe('Refund of $50.84: $15.84 to cash from the drawer, $20.00 to Mastercard •••• 4422 (void), $15.00 to Gift card •••• 5678 (void).');
    await page.keyboard.press('Enter');
    // The sale is refunded at once (the goods are back); the money follows: wait for the refund itself.
    await until(async () => {
      const s = await api<Sale>('GET', `/api/pos/sales/${split.id}`);
      return s.status === 'refunded' && s.reversals[0]?.status === 'completed';
    }, 'the split sale\'s money to be back');
    const gift = await api<{ balance: number }>('POST', '/api/gateway/v1/gift_card/read', { card_number: '6277000012345678', pin: '2468' });
    expect(gift.balance).toBe(1500);
  });

  it('voids a paid card sale the same day, and an open sale at the register', async () => {
    const recent = await api<{ sales: Sale[] }>('GET', '/api/pos/sales?laneid=1');
    const card = recent.sales.find((s) => s.totals.total_cents === 1677)!;
    await page.keyboard.press('Escape');
    await seen('find');
    await page.keyboard.type(card.number);
    await page.keyboard.press('Enter');
    await see(`Sale ${card.number}`);
    await page.keyboard.press('F9');
    await see('Every payment of this sale goes back: $16.77.');
    await page.keyboard.press('Enter');
    await see('Voided $16.77: $16.77 to Visa •••• 0006.');
    await screenshot(page, 'pos-12-void-paid');
    const voided = await api<Sale>('GET', `/api/pos/sales/${card.id}`);
    expect(voided.status).toBe('voided');
    const tx = await api<{ state: string }>('GET', `/api/gateway/v1/transaction/${voided.tenders[0]!.transaction}`);
    expect(tx.state).toBe('cancelled');

    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await seen('scan');
    await scan('5001');
    await scan('5002');
    await until(async () => (await text('lines').catch(() => '')).includes('Gel pen'), 'two lines');
    await page.keyboard.press('F8'); // void the chosen (last) line
    await see('Void line 2?');
    await page.keyboard.press('Enter');
    await until(async () => (await text('total')) === '$16.89', 'the total without the pen');

    // F2 search, F7 change the line (quantity, 10% off with a reason), F3 an open-price item.
    await page.keyboard.press('F2');
    await page.getByLabel('Search words').waitFor();
    await page.keyboard.type('honey');
    await page.locator('.results li.selected').getByText('Wildflower honey, 500 g').waitFor();
    await page.keyboard.press('Enter');
    await until(async () => (await text('lines')).includes('Wildflower honey'), 'the honey line');
    await page.keyboard.press('F7');
    await page.getByLabel('Quantity').waitFor();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await page.keyboard.press('Tab'); // the discount kind: None
    await page.keyboard.press('ArrowRight'); // Percent
    await page.keyboard.press('Tab');
    await page.keyboard.type('10');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Dented lid');
    await page.keyboard.press('Enter');
    await until(async () => (await text('lines')).includes('10% off (Dented lid): −$2.39'), 'the discount on the line');
    await page.keyboard.press('F3');
    await page.getByLabel('Description').waitFor();
    await page.keyboard.type('Gift wrapping');
    await page.keyboard.press('Tab');
    await page.keyboard.type('2');
    await page.keyboard.press('Enter');
    await until(async () => (await text('lines')).includes('Gift wrapping'), 'the open-price line');
    // 1495 + 194; 2 × 1195 − 239 = 2151 at 0%; 200 + 26: 40.66
    expect(await text('total')).toBe('$40.66');
    await screenshot(page, 'pos-13-line-changes');
    await page.keyboard.press('F9');
    await see(/Void sale .*\?/);
    await screenshot(page, 'pos-13b-void-open-sale');
    await page.keyboard.press('Enter');
    await see(/Sale .* voided\./);
    await seen('scan');
  });

  it('says so when the terminal goes offline while it waits for the card, charges nothing, and takes cash instead', async () => {
    await scan('3001');
    await until(async () => (await text('total').catch(() => '')) === '$16.99', 'the total');
    const sale = await currentSale();
    await sendToTerminal();
    await pair.unplug();
    await seen('device-offline');
    await screenshot(page, 'pos-14-terminal-offline-waiting');
    await seen('card-outcome', 30_000);
    expect(await text('card-outcome')).toBe('The terminal on lane 1 is offline. Nothing was charged. Check its cable and power, then try again, or take another tender.');
    expect(await text('lane-status')).toContain('Offline');
    await screenshot(page, 'pos-15-terminal-offline');
    await page.keyboard.press('F4');
    await seen('cash-given');
    await page.keyboard.press('Enter');
    await seen('receipt');
    const paid = await api<Sale>('GET', `/api/pos/sales/${sale.id}`);
    expect(paid.status).toBe('paid');
    expect(paid.tenders.map((t) => [t.type, t.status])).toEqual([
      ['card', 'failed'],
      ['cash', 'approved'],
    ]);
    const order = await api<{ transactions: unknown[] }>('GET', `/api/exports/order/${sale.id}`);
    expect(order.transactions).toEqual([]);
    await page.keyboard.press('Enter');

    // Cable back in: the lane comes back by itself and the screen shows it.
    await pair.plug();
    await until(async () => (await text('lane-status')).includes('Connected'), 'the lane to come back', 45_000);
  });

  it('takes a card that asks for a signature: the receipt carries it', async () => {
    await seen('scan');
    await scan('5003'); // Greeting card 5.95 + 0.77
    await until(async () => (await text('total').catch(() => '')) === '$6.72', 'the total');
    await sendToTerminal();
    sim.send(`card ${AMEX}`);
    await seen('receipt');
    expect(await text('receipt')).toMatch(/Amex •••• 2000[\s\S]*Signature/);
    await page.getByRole('img', { name: 'Cardholder signature' }).waitFor();
    await screenshot(page, 'pos-16-receipt-signature');
    await page.keyboard.press('Enter');
  });

  it('prints an X report by tender and cashier, then closes the day with a Z and the card batch', async () => {
    await seen('scan');
    await page.keyboard.press('F10');
    await page.keyboard.press('2');
    await seen('report-x');
    const x = await text('report-x');
    expect(x).toMatch(/Sales \(5\)/);
    // The paid card sale voided comes off the sales; the open sale voided at the register was never
    // sold: counted on its own line, with what it came to, in no total.
    expect(x).toMatch(/Paid sales voided \(1\)\s+[-−]\$16\.77/);
    expect(await text('open-voids')).toMatch(/Voided before payment \(1\): never sold, in no total\s+\$40\.66/);
    expect(x).toMatch(/Refunds \(2\)/);
    expect(x).toMatch(/Sam Rivera/);
    expect(await text('report-tenders')).toMatch(/Card: Amex \(1\)\s+\$6\.72\s+\$0\.00\s+\$0\.00\s+\$6\.72/);
    await screenshot(page, 'pos-17-x-report');
    await page.keyboard.press('z');
    await see('Close the day (Z report)?');
    await page.keyboard.press('Enter');
    await seen('report-z');
    expect(await text('report-z')).toMatch(/Z report 1/);
    await seen('batches');
    expect(await text('batches')).toMatch(/1 transaction, net \$6\.72/);
    await screenshot(page, 'pos-18-z-report');
    const lane = await api<{ reports: Array<{ z: { batch_closed: boolean } }> }>('GET', '/api/pos/registers/1/z');
    expect(lane.reports[0]!.z.batch_closed).toBe(true);
  });

  it('keeps the install status reachable as a back-office view', async () => {
    await page.keyboard.press('F10');
    await page.keyboard.press('6');
    await page.getByTestId('environment').getByText('sandbox').waitFor();
    await screenshot(page, 'pos-19-status');
    await page.keyboard.press('Escape');
    await seen('scan');
  });

  it("lists every register sale in the back office in its sale's own state, and opens a receipt searched there in the back office's view", async () => {
    // One sale left open, beside the paid, partly refunded, refunded and voided ones above.
    await scan('5003');
    await until(async () => (await text('lines').catch(() => '')).includes('Greeting card'), 'the open sale');
    const sales = (await api<{ sales: Sale[] }>('GET', '/api/pos/sales?laneid=1')).sales;
    const { link } = await api<{ link: string }>('POST', '/api/users', { email: 'pos-manager@example.com', role: 'manager' });
    // Signed in as the back office keeps a user (its session in this browser's storage): the sign-in form is the back office's own tests'.
    const session = await fetch(`${url}/api/session/link`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ link, password: 'manager password 1' }) });
    expect(session.status).toBe(200);
    const { jwt } = (await session.json()) as { jwt: string };
    const STATE = { open: 'Open', paid: 'Paid', partially_refunded: 'Partly refunded', refunded: 'Refunded', voided: 'Voided' } as const;
    const plain = (t: string) => t.replace(/[\s\u00a0\u202f]+/g, ' ').trim();
    const partly = sales.find((s) => s.status === 'partially_refunded')!;
    for (const locale of ['en-US', 'fr-CA']) {
      const context = await browser.newContext({ locale, viewport: { width: 1440, height: 900 } });
      try {
        await context.addInitScript(`localStorage.setItem('laneway.user', ${JSON.stringify(jwt)})`);
        const bo = await context.newPage();
        await bo.goto(`${url}/app/orders`);
        const table = bo.getByRole('table', { name: 'Orders' });
        await table.getByText(sales[0]!.number, { exact: true }).waitFor();
        // The list read once: its header and each row's cells, as written (the screen shows headers in capitals).
        const [headers, ...rows] = await table.getByRole('row').evaluateAll((els) => els.map((r) => [...r.querySelectorAll('[role="cell"], [role="columnheader"]')].map((c) => c.textContent ?? '')));
        const column = (name: string) => headers!.findIndex((h) => plain(h).startsWith(name));
        const cell = (number: string, name: string) => plain(rows.find((r) => plain(r[column('Number')]!) === number)?.[column(name)] ?? 'no such row');
        // The list says what each sale's page says, with what went back (cash and voids included).
        for (const sale of sales) {
          expect(cell(sale.number, 'State'), sale.number).toBe(STATE[sale.status]);
          expect(cell(sale.number, 'Refunded'), sale.number).toBe(sale.totals.refunded_cents > 0 ? plain(formatMoney(-sale.totals.refunded_cents, 'usd', { locale })) : '—');
        }
        expect(new Set(sales.map((s) => s.status))).toEqual(new Set(Object.keys(STATE)));
        const voided = sales.find((s) => s.status === 'voided' && s.totals.paid_cents > 0)!;
        expect(cell(voided.number, 'Refunded')).toBe(plain(formatMoney(-1677, 'usd', { locale })));
        await screenshot(bo, `pos-20-backoffice-orders-${locale}`);

        // A receipt number in the top search opens the back office's read-only view of its sale, not the register.
        await bo.getByLabel('Search', { exact: true }).fill(partly.number);
        await bo.keyboard.press('Enter');
        await bo.waitForURL(new RegExp(`/app/orders/${partly.id}$`));
        const atRegister = bo.getByLabel('At the register');
        await atRegister.getByText(`Receipt ${partly.number}`, { exact: false }).waitFor();
        expect(await atRegister.getByTestId('sale-state').innerText()).toBe('Partly refunded');
        expect(plain(await atRegister.innerText())).toContain(plain(formatMoney(-partly.totals.refunded_cents, 'usd', { locale })));
        expect(await bo.getByTestId('lane-1').count()).toBe(0);
      } finally {
        await context.close();
      }
    }
  });
});
