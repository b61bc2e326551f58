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

const divisions = (n: number) => `code,name\nLIST${n},Branch ${n}\n`;
async function importDivisions(n: number): Promise<number> {
  const res = await upload(bo.url, divisions(n), { filename: `branches-${n}.csv`, auth });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  bo = await startBackoffice('imports-lists', { token: TOKEN, key: KEY });
  page = await bo.newPage('fr-CA');
  await bo.claimOwner(page, OWNER);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['', page]]));

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
