import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { upload } from '../imports/upload';
import { screenshot } from '../helpers/browser';
import { until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * A newcomer on the back office downloads the "Invoice reconciliation" sample and uploads it, in a
 * shop with many open invoices: the sample lists two invoices, so it would close every other one.
 * Debian's Chromium against `npm run serve`, the owner in en-US and in de-DE (where a number
 * grouped like an amount reads "2.821").
 */
const TOKEN = 'IMPORTSGUARD0001';
const KEY = 'imports-guard-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
const OPEN = 300;
const numbers = Array.from({ length: OPEN }, (_, i) => `SHOP-${10001 + i}`);
const CONFIRM_BOX = 'Close the open invoices it leaves out, even if they are most of them';

let bo: BackofficeInstall;
let us: Page;
let de: Page;

const get = async <T>(path: string) => (await (await fetch(`${bo.url}${path}`, { headers: { Authorization: auth } })).json()) as T;
/** The shop's invoices, by whether they are still open. */
async function stillOpen(): Promise<number> {
  let n = 0;
  for (const number of numbers) if (!(await get<{ deleted?: boolean }>(`/api/exports/invoice/${number}`)).deleted) n++;
  return n;
}

beforeAll(async () => {
  bo = await startBackoffice('imports-guard', { token: TOKEN, key: KEY });
  de = await bo.newPage('de-DE');
  await bo.claimOwner(de, OWNER);
  us = await bo.newPage('en-US', { acceptDownloads: true });
  await bo.signIn(us, OWNER);
  // The shop's customers and open invoices, from its ERP: batch numbers past 1000 by then (a batch is numbered by the store's watermark).
  const customers = `identifier,name\n${Array.from({ length: 800 }, (_, i) => `CUST${i},Customer ${i}`).join('\n')}\n`;
  const invoices = `number,customer_identifier,date,amount\n${numbers.map((n, i) => `${n},CUST${i % 20},2026-03-01,${5000 + i}`).join('\n')}\n`;
  for (const [csv, filename] of [[customers, 'erp-customers.csv'], [invoices, 'erp-invoices.csv']] as const) {
    const res = await upload(bo.url, csv, { filename, auth });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await until(async () => (await get<{ status: string }>(`/api/imports/${res.body.id}`)).status === 'completed', filename, 60_000);
  }
}, 180_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['us', us], ['de', de]]));

afterAll(async () => {
  await bo?.close();
});

describe('the reconciliation sample in a shop with many open invoices', { timeout: 120_000 }, () => {
  let held = 0;

  it('says what the sample does, holds the closing back with a message, and closes them once confirmed', async () => {
    await us.goto(`${bo.url}/app/imports`);
    const samples = us.getByRole('navigation', { name: 'Sample files' });
    expect(await samples.innerText()).toContain('Invoice reconciliation (a complete list of open invoices: uploading it as it is closes every open invoice here but the two it lists)');
    const [download] = await Promise.all([us.waitForEvent('download'), samples.getByRole('link', { name: 'Invoice reconciliation', exact: true }).click()]);
    const sample = readFileSync((await download.path())!);
    expect(sample.toString('utf8')).toBe(readFileSync(join('resources', 'samples', 'invoice_recon.csv'), 'utf8'));

    // Chosen, not yet sent: the screen says what it will do, from the header row.
    await us.getByLabel('CSV file').setInputFiles({ name: 'invoice_recon.csv', mimeType: 'text/csv', buffer: sample });
    const hint = us.getByLabel('What this file will do');
    await hint.waitFor();
    expect(await hint.innerText()).toContain('Invoice reconciliation: a complete list of open invoices: open invoices it does not list will be closed');
    expect(await us.getByLabel(CONFIRM_BOX).isChecked()).toBe(false);
    await screenshot(us, 'backoffice-imports-recon-chosen');
    await us.getByRole('button', { name: 'Import', exact: true }).click();
    await us.waitForURL(/\/app\/imports\/\d+$/);
    held = Number(/(\d+)$/.exec(us.url())![1]);

    const notice = us.getByRole('alert', { name: 'Closing held back' });
    await notice.waitFor({ timeout: 60_000 });
    expect(await notice.innerText()).toContain(`The file leaves out ${OPEN} of ${OPEN} open invoices; none were closed.`);
    expect(await stillOpen()).toBe(OPEN);
    await screenshot(us, 'backoffice-imports-recon-held-back');
    const batch = await get<{ status: string; held_back: unknown; error: string }>(`/api/imports/${held}`);
    expect(batch).toMatchObject({ status: 'completed', held_back: { open_invoices: OPEN, unlisted: OPEN } });

    // The screen still has the file: confirming sends it again, confirmed.
    await notice.getByRole('button', { name: `Close the ${OPEN} open invoices it leaves out` }).click();
    await until(async () => us.url().endsWith(`/app/imports/${held}`) === false && /\/app\/imports\/\d+$/.test(us.url()), 'the confirmed batch');
    await until(async () => (await us.getByText('Completed', { exact: true }).count()) > 0, 'the confirmed batch to complete', 60_000);
    await us.getByText(`2 invoices reconciled; ${OPEN} open invoices it leaves out were closed`).waitFor();
    expect(await us.getByRole('alert', { name: 'Closing held back' }).count()).toBe(0);
    expect(await stillOpen()).toBe(0);
  });

  it('shows batch numbers as identifiers in de-DE, and says how to confirm once the page no longer has the file', async () => {
    expect(held).toBeGreaterThanOrEqual(1000);
    // A page that did not send the file: it says how to choose it again.
    await de.goto(`${bo.url}/app/imports/${held}`);
    const notice = de.getByRole('alert', { name: 'Closing held back' });
    await notice.waitFor();
    expect(await notice.innerText()).toContain(`If it is the complete list, choose invoice_recon.csv again under Imports, tick “${CONFIRM_BOX}” and Import.`);
    expect(await notice.getByRole('button').count()).toBe(0);
    await de.getByRole('heading', { name: `Batch #${held} · invoice_recon.csv` }).waitFor();
    await screenshot(de, 'backoffice-imports-recon-held-back-de');

    // The same file again within 24 hours: the earlier batch is named by its number, not "batch 2.821".
    const [latest] = await get<Array<{ id: number }>>('/api/imports');
    expect(latest!.id).toBeGreaterThanOrEqual(1000);
    await de.goto(`${bo.url}/app/imports`);
    await de.getByLabel('CSV file').setInputFiles({ name: 'invoice_recon.csv', mimeType: 'text/csv', buffer: readFileSync(join('resources', 'samples', 'invoice_recon.csv')) });
    await de.getByRole('button', { name: 'Import', exact: true }).click();
    const alert = de.locator('.bo-upload [role=alert]');
    await alert.waitFor();
    expect(await alert.innerText()).toBe(`Already imported: This file was imported in the last 24 hours (batch ${latest!.id}). Nothing was imported.`);
    expect(await alert.getByRole('link', { name: `batch ${latest!.id}` }).getAttribute('href')).toBe(`/app/imports/${latest!.id}`);
    // The list names the batches the same way.
    const rows = de.getByRole('table', { name: 'Batches' }).locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.first().innerText()).toContain(`#${latest!.id}`);
    expect(await de.getByRole('table', { name: 'Batches' }).getByRole('row').filter({ hasText: `#${held}` }).innerText()).toContain('Closing held back');
  });
});
