import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshot } from '../helpers/browser';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine } from '../helpers/harness';
import { startServer, type RunningServer } from '../../src/server/http';
import { formatMoney } from '../../src/shared/money';

/**
 * A cashier who is not a supervisor refunds at the register in Debian's Chromium, in en-US and
 * fr-CA: the refund dialog asks for a supervisor's code, a refund sent without one is refused in
 * words, and the supervisor's code gives the money back, recorded with who approved it.
 * Screenshots: test-output/screenshots/pos-supervisor-{en-US,fr-CA}.png.
 */
let t: TestEngine;
let api: RunningServer;
let browser: Browser;
let samCode: string;
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

beforeAll(async () => {
  t = await openTestEngine({ timezone: 'UTC' });
  api = await startServer(t.engine, { port: 0, rateLimit: 100_000, uiDir: join(process.cwd(), 'out', 'renderer') });
  // A lane per locale: each run starts on a lane nobody used.
  await t.engine.lanes.create({ laneid: '1', port_path: '/dev/ttyLANEWAYSUPER1', name: 'Front counter' });
  await t.engine.lanes.create({ laneid: '2', port_path: '/dev/ttyLANEWAYSUPER2', name: 'Back counter' });
  samCode = t.engine.register.firstCashier!.code;
  await t.engine.register.createCashier({ name: 'Jo Park', code: '246813' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await t?.close();
});

/** A cash sale of a cappuccino and a muffin by the supervisor, Sam, on a lane. */
async function paidSale(laneid: string) {
  const shift = await t.engine.register.signIn(laneid, samCode);
  let sale = (await t.engine.register.startSale({ shift: shift.id })).sale;
  for (const scan of ['1002', '2003']) sale = await t.engine.register.addLine(sale.id, { shift: shift.id, scan });
  await t.engine.register.tender(sale.id, { shift: shift.id, type: 'cash', tendered_cents: 1000 }, TEST_TOKEN);
  return sale;
}

describe('a refund needs a supervisor', { timeout: 120_000 }, () => {
  for (const [locale, laneid] of [['en-US', '1'], ['fr-CA', '2']] as const) {
    it(`asks for a supervisor's code and records who approved (${locale})`, async () => {
      const sale = await paidSale(laneid);
      const context = await browser.newContext({ locale, viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      try {
        await page.goto(`${api.url}/app/`);
        await page.getByLabel('API token').fill(TEST_TOKEN);
        await page.getByLabel('API key').fill(TEST_KEY);
        await page.keyboard.press('Enter');
        await page.getByTestId(`lane-${laneid}`).waitFor();
        await page.keyboard.press(laneid);
        await page.getByLabel('Cashier code').waitFor();
        await page.keyboard.type('246813');
        await page.keyboard.press('Enter');
        await page.getByTestId('scan').waitFor();
        expect(await page.getByTestId('cashier').innerText()).toBe('Jo Park');

        await page.keyboard.press('F10');
        await page.keyboard.press('1');
        await page.getByTestId('find').waitFor();
        await page.keyboard.type(sale.number);
        await page.keyboard.press('Enter');
        await page.getByText(`Sale ${sale.number}`).first().waitFor();
        await page.keyboard.press('F7');
        await page.getByLabel('Refund quantity of line 1').waitFor();
        await page.keyboard.press('F8');
        await page.keyboard.press('Enter');
        await page.getByTestId('refund-plan').waitFor();
        const code = page.getByLabel('Supervisor code (money given back needs a supervisor)');
        await code.waitFor();
        // Sent without a code: refused, in words; nothing goes back.
        await page.getByRole('button', { name: /^Refund / }).click();
        // The refusal is said inside the dialog, beside the field, not behind its backdrop.
        const refusal = page.getByRole('dialog', { name: 'Refund' }).getByRole('alert');
        await expect.poll(() => refusal.innerText().catch(() => '')).toBe('Money given back needs a supervisor: ask one to enter their code.');
        expect(await page.getByTestId('notice').count(), 'no banner behind the dialog').toBe(0);
        expect((await t.engine.register.sale(sale.id)).status).toBe('paid');
        // A wrong code: refused in the dialog, which says the code was cleared.
        await code.fill('999999');
        await code.press('Enter');
        await expect.poll(() => refusal.innerText().catch(() => '')).toBe("That code is not an active supervisor's. Ask a supervisor to enter theirs. The code typed was cleared.");
        expect(await code.inputValue()).toBe('');
        expect(await page.getByTestId('notice').count(), 'no banner behind the dialog').toBe(0);
        expect((await t.engine.register.sale(sale.id)).status).toBe('paid');

        await code.fill(samCode);
        await code.press('Enter');
        const back = spaces(formatMoney(796, 'USD', { locale }));
        await page.getByText(/^Refunded /).first().waitFor({ timeout: 30_000 });
        const after = await t.engine.register.sale(sale.id);
        expect(after.status).toBe('refunded');
        expect(after.reversals[0]).toMatchObject({ cashier: { name: 'Jo Park' }, approved_by: { name: 'Sam Rivera' } });
        expect(spaces(await page.getByText(/^Refunded /).first().innerText())).toContain(back);
        // The code never stays on the screen.
        expect(await page.content()).not.toContain(samCode);
        await screenshot(page, `pos-supervisor-${locale}`);
      } catch (err) {
        await screenshot(page, `failed-pos-supervisor-${locale}`).catch(() => undefined);
        throw err;
      } finally {
        await context.close();
      }
    });
  }
});
