import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { upload } from '../imports/upload';
import { until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office's Imports section in Debian's Chromium against `npm run serve`, with more
 * batches than a page: what was loaded with "Load more" stays on the screen while batches come
 * and go (every import's progress is a live change that reads the list again).
 */
const TOKEN = 'IMPORTSLISTS0001';
const KEY = 'imports-lists-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;

let bo: BackofficeInstall;
let page: Page;
/** The same owner in en-US, beside `page` in fr-CA: money is shown in each reader's locale. */
let us: Page;

const divisions = (n: number) => `code,name\nLIST${n},Branch ${n}\n`;
async function importDivisions(n: number): Promise<number> {
  const res = await upload(bo.url, divisions(n), { filename: `branches-${n}.csv`, auth });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** A file imported through the API, answered once its batch is done. */
async function importFile(csv: string, filename: string): Promise<number> {
  const res = await upload(bo.url, csv, { filename, auth, force: true });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await until(async () => {
    const batch = (await (await fetch(`${bo.url}/api/imports/${res.body.id}`, { headers: { Authorization: auth } })).json()) as { status: string };
    return batch.status !== 'processing';
  }, `batch ${res.body.id}`);
  return res.body.id;
}
/** fr-CA groups digits and sets "$ US" apart with no-break spaces. */
const spaced = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');
const sample = (kind: string) => readFileSync(join('resources', 'samples', `${kind}.csv`), 'utf8');

beforeAll(async () => {
  bo = await startBackoffice('imports-lists', { token: TOKEN, key: KEY });
  page = await bo.newPage('fr-CA');
  await bo.claimOwner(page, OWNER);
  us = await bo.newPage('en-US', { acceptDownloads: true });
  await bo.signIn(us, OWNER);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['', page], ['us', us]]));

afterAll(async () => {
  await bo?.close();
});

describe('the Imports section: long lists', { timeout: 120_000 }, () => {
  it('keeps the batches loaded with "Load more" when a new batch arrives, the new one on top', async () => {
    for (let n = 1; n <= 55; n++) await importDivisions(n);
    await page.goto(`${bo.url}/app/imports`);
    const rows = page.getByRole('table', { name: 'Batches' }).locator('tbody tr');
    await until(async () => (await rows.count()) === 50, 'the first page of 50');
    await page.getByRole('button', { name: 'Load more' }).click();
    await until(async () => (await rows.count()) === 55, 'the second page');
    expect(await rows.last().innerText()).toContain('branches-1.csv');

    // Another batch, imported by the ERP while the list is open: its events read the list again.
    const id = await importDivisions(56);
    await until(async () => (await rows.first().innerText()).includes(`#${id}`), 'the new batch on top');
    await page.waitForTimeout(1000);
    expect(await rows.count()).toBe(56);
    expect(await rows.last().innerText()).toContain('branches-1.csv');
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
  });
});

describe('what an import did, in the reader\'s locale', { timeout: 120_000 }, () => {
  it('shows what an invoice reconciliation found: the invoice unknown here and the one it closed, with both balances', async () => {
    for (const kind of ['customers', 'invoices', 'payments']) await importFile(sample(kind), `${kind}.csv`);
    const id = await importFile(sample('invoice_recon'), 'invoice_recon.csv');
    for (const [p, unknown, closed] of [[page, '112,00 $ US', '239,90 $ US'], [us, '$112.00', '$239.90']] as const) {
      await p.goto(`${bo.url}/app/imports/${id}`);
      const rows = p.getByRole('table', { name: 'Invoices reconciled' }).locator('tbody tr');
      await until(async () => (await rows.count()) === 2, 'the two findings');
      const texts = (await rows.allInnerTexts()).map(spaced);
      const missing = texts.find((t) => t.includes('INV-4999'))!;
      expect(missing).toContain('Invoice Not Present in Laneway');
      expect(missing).toContain(unknown);
      const gone = texts.find((t) => t.includes('INV-5002'))!;
      expect(gone).toContain('closed');
      expect(gone).toContain(closed);
    }
    // The sample's cheque reads as one (its payment_code), not as the channel it came by ("ERP").
    await us.goto(`${bo.url}/app/payments/CHQ-88120`);
    await us.getByText('· cheque', { exact: false }).first().waitFor();
    expect(await us.getByText(/\bERP\b/i).count()).toBe(0);
    // C1001 paid its one invoice: its page says so, rather than that a search matched nothing.
    await us.goto(`${bo.url}/app/customers/C1001`);
    await us.getByRole('table', { name: 'Invoices' }).getByText('No open invoice.').waitFor();
  });

  it('says a reconciliation that found nothing yet is still running, and that all matched once it is done', async () => {
    // A payment that matches the one here: the batch finds nothing.
    const id = await importFile('payment_reconciliation_identifier\nCHQ-88120\n', 'payment_recon.csv');
    const table = us.getByRole('table', { name: 'Payments reconciled' });
    const empty = us.locator('.card', { has: table }).locator('.bo-empty');
    // The same batch as a reader sees it while its file is still being read.
    await us.route(`**/api/imports/${id}`, async (route) => {
      const real = await route.fetch();
      await route.fulfill({ response: real, json: { ...((await real.json()) as object), status: 'processing', complete_at: null } });
    });
    await us.goto(`${bo.url}/app/imports/${id}`);
    await table.waitFor();
    await empty.waitFor();
    expect(await empty.innerText()).toContain('still being read');
    await us.unroute(`**/api/imports/${id}`);
    await us.goto(`${bo.url}/app/imports/${id}`);
    await table.waitFor();
    await empty.waitFor();
    expect(await empty.innerText()).toBe('Every payment in the file matches the one here.');
  });

  it("shows a small file's size in bytes in the reader's locale, and offers no errors file when it had none", async () => {
    const csv = 'code,name\nA,B\n';
    expect(Buffer.byteLength(csv)).toBe(14);
    const id = await importFile(csv, 'tiny.csv');
    for (const [p, size] of [[page, '14 octets'], [us, '14 bytes']] as const) {
      await p.goto(`${bo.url}/app/imports/${id}`);
      const file = p.getByTestId('batch-file');
      await file.waitFor();
      expect(spaced(await file.innerText())).toMatch(new RegExp(`^${size} · fingerprint `));
      expect(await p.getByRole('button', { name: 'Download errors (.csv)' }).count()).toBe(0);
    }
  });

  it("offers a card file's tokenized results, saying until when, and downloads them masked", async () => {
    const id = await importFile(sample('credit_cards'), 'credit_cards.csv');
    const batch = (await (await fetch(`${bo.url}/api/imports/${id}`, { headers: { Authorization: auth } })).json()) as { complete_at: string };
    const until = new Date(Date.parse(batch.complete_at) + 24 * 3600_000);
    for (const [p, locale] of [[page, 'fr-CA'], [us, 'en-US']] as const) {
      await p.goto(`${bo.url}/app/imports/${id}`);
      const hint = p.getByLabel('Tokenized results');
      await hint.waitFor();
      expect(spaced(await hint.innerText())).toContain(`for 24 hours after the import finished, until ${spaced(until.toLocaleDateString(locale, { dateStyle: 'medium' }))}`);
    }
    const [download] = await Promise.all([us.waitForEvent('download'), us.getByRole('button', { name: 'Download tokenized results' }).click()]);
    const lines = readFileSync((await download.path())!, 'utf8').trim().split(/\r?\n/);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^C1001,Northwind Traders,Ann,Lee,\*{12}0006,\*{4},/);
    expect(lines.join('\n')).not.toContain('4895281000000006');
  });

  it('shows a large invoice amount whole in the invoice list and on the aging chart\'s axis, and its day in the locale', async () => {
    await importFile('number,customer_identifier,date,due_date,amount\nINV-9003,C1002,2026-03-05,2026-03-20,123456789\n', 'large.csv');
    for (const [p, amount, tick, dated] of [[page, '1 234 567,89 $ US', /M \$ US$/, '5 mars 2026'], [us, '$1,234,567.89', /M$/, 'Mar 5, 2026']] as const) {
      await p.goto(`${bo.url}/app/invoices`);
      const row = p.getByRole('table', { name: 'Invoices' }).getByRole('row').filter({ hasText: 'INV-9003' });
      await row.waitFor();
      // Its day as the reader writes one, not 2026-03-05.
      expect(spaced(await row.getByRole('cell').nth(2).innerText())).toBe(dated);
      const cells = row.getByRole('cell').filter({ hasText: /\d/ }).filter({ hasText: /[$]/ });
      expect((await cells.allInnerTexts()).map(spaced)).toEqual([amount, amount]);
      // Not cut with an ellipsis: the cell is as wide as its text.
      for (const fits of await cells.evaluateAll((els) => els.map((e) => e.scrollWidth <= e.clientWidth))) expect(fits).toBe(true);
      // Every tick of the money axis inside the chart, short enough to read.
      const chart = p.getByLabel('Aging summary').locator('svg.recharts-surface');
      const ticks = p.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value');
      await until(async () => (await ticks.count()) > 1, 'the axis ticks');
      const left = (await chart.boundingBox())!.x;
      for (const t of await ticks.all()) expect((await t.boundingBox())!.x).toBeGreaterThanOrEqual(left);
      expect(spaced((await ticks.allTextContents()).at(-1)!)).toMatch(tick);
    }
  });

  it('filters invoices by an amount typed in the locale, and shows no stale rows under an amount it cannot read', async () => {
    for (const [p, from, bad] of [[page, '1000000,00', '12,3,4'], [us, '1,000,000.00', '12.3.4']] as const) {
      await p.goto(`${bo.url}/app/invoices`);
      const table = p.getByRole('table', { name: 'Invoices' });
      await table.getByRole('row').filter({ hasText: 'INV-9003' }).waitFor();
      await p.getByLabel('Amount from (USD)').fill(from);
      await p.getByRole('button', { name: 'Apply' }).click();
      await until(async () => (await table.getByRole('row').count()) === 2, 'the one invoice of a million or more');
      expect(await table.getByRole('row').nth(1).innerText()).toContain('INV-9003');
      await p.getByLabel('Amount from (USD)').fill(bad);
      await p.getByRole('button', { name: 'Apply' }).click();
      await p.getByText('Minimum amount:').waitFor();
      expect(await table.count()).toBe(0);
    }
  });

  it('words a corrected balance in the locale too (balance sync on)', async () => {
    const res = await fetch(`${bo.url}/api/account`, { method: 'PATCH', headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ capabilities: { balance_sync: true } }) });
    expect(res.status).toBe(200);
    const id = await importFile('number,balance_in_source_system\nINV-9003,100000\n', 'open-invoices.csv');
    for (const [p, was, now] of [[page, '1 234 567,89 $ US', '1 000,00 $ US'], [us, '$1,234,567.89', '$1,000.00']] as const) {
      await p.goto(`${bo.url}/app/imports/${id}`);
      const row = p.getByRole('table', { name: 'Invoices reconciled' }).getByRole('row').filter({ hasText: 'INV-9003' });
      await row.waitFor();
      const text = spaced(await row.innerText());
      expect(text).toContain(`Balance corrected from ${was}`);
      expect(text).toContain(now);
    }
  });
});
