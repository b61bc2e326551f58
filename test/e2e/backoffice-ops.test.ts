import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office's Imports and Webhooks-and-e-mail sections in Debian's Chromium against
 * `npm run serve` (issue 19): a refused file dropped on the page (its message, the file kept), a
 * customer CSV with one bad line (progress, completion, the error row, the errors as CSV), an
 * endpoint pointing at a loopback receiver answering 500 (the failed attempt in the log), then 200
 * and Resend. Screenshots: test-output/screenshots/backoffice-imports.png, backoffice-webhooks.png.
 */
const TOKEN = 'BACKOFFICEOPS001';
const KEY = 'back-office-ops-key-0123456789';
const LINES = 12_000;
const BAD_LINE = 1502;

let bo: BackofficeInstall;
let page: Page;
let url: string;
let receiver: Server;
let receiverUrl: string;
let answer = 500;
const received: string[] = [];
const api = apiOf(() => url, TOKEN, KEY);

const spaced = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const seen = (text: string | RegExp) => page.getByText(text).first().waitFor({ state: 'visible', timeout: 30_000 });

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['x-service-event']));
      res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer === 200 ? 'ok, thanks' : 'receiver is down for maintenance');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  bo = await startBackoffice('backoffice-ops', { token: TOKEN, key: KEY });
  url = bo.url;
  page = await bo.newPage('en-US', { acceptDownloads: true });
  await bo.claimOwner(page, { email: 'owner@example.com', password: 'owner password 1' });
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['', page]]));

afterAll(async () => {
  await bo?.close();
  await new Promise((r) => receiver?.close(r));
});

function customersCsv(): string {
  const rows = ['identifier,name,email'];
  for (let line = 2; line <= LINES; line++) rows.push(`IMP-${line},Imported customer ${line},${line === BAD_LINE ? 'not-an-email' : `ap${line}@example.com`}`);
  return `${rows.join('\n')}\n`;
}

describe('the back office: imports, webhooks and e-mail', { timeout: 120_000 }, () => {
  it('refuses a dropped file with its message and keeps it; imports a CSV with live progress and shows the bad line', async () => {
    await page.goto(`${url}/app/imports`);
    await seen('Drop a CSV file here, or choose one.');
    // Dropped on the page: a header row alone is refused (412), nothing imported, the file still chosen.
    // (A string: this project's Node types have no DOM.)
    const dataTransfer = await page.evaluateHandle(`(() => { const dt = new DataTransfer(); dt.items.add(new File(['identifier,name\\n'], 'header-only.csv', { type: 'text/csv' })); return dt; })()`);
    await page.locator('.bo-drop').dispatchEvent('drop', { dataTransfer });
    await seen('header-only.csv');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/^Nothing to import: .+\. Nothing was imported\.$/);
    expect(await page.getByText('header-only.csv').count()).toBe(1);
    expect(await api<unknown[]>('GET', '/api/imports')).toEqual([]);

    // A header row that gives a column twice: refused before it is sent, in the API's words (the shared header rule), and Import is off.
    await page.getByLabel('CSV file').setInputFiles({ name: 'twice.csv', mimeType: 'text/csv', buffer: Buffer.from('identifier,name,name\nTWICE-1,Ann,Bob\n') });
    const twice = page.getByRole('alert', { name: 'Why this file cannot be imported' });
    await twice.waitFor();
    expect(await twice.innerText()).toBe(
      'Cannot be imported: The header row gives "name" (columns 2 and 3) more than once: a line would have two values for one field, and only one would be imported. Give each column once and upload the file again.',
    );
    expect(await page.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);
    expect(await page.getByLabel('What this file will do').count()).toBe(0);

    // Every value the bar takes, recorded by the page itself: on a quiet machine the batch ends
    // between two polls from here, and sampling would miss the values in between.
    await page.evaluate(`(() => {
      const seen = (window.progressSeen = []);
      const read = (bar) => seen.push(Number(bar.getAttribute('aria-valuenow')));
      new MutationObserver((changes) => {
        for (const c of changes) {
          if (c.target.getAttribute?.('role') === 'progressbar') read(c.target);
          if (c.type === 'childList') for (const bar of c.target.querySelectorAll?.('[role=progressbar]') ?? []) read(bar);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
    })()`);
    await page.getByLabel('CSV file').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(customersCsv()) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/app\/imports\/\d+$/);
    const bar = page.getByRole('progressbar');
    await bar.waitFor();
    const max = Number(await bar.getAttribute('aria-valuemax'));
    expect(max).toBe(LINES - 1);
    // Live: the bar follows import.progress until the batch completes, without a reload.
    const values = new Set<number>();
    await until(async () => {
      values.add(Number(await bar.getAttribute('aria-valuenow')));
      return (await page.getByText('Completed', { exact: true }).count()) > 0;
    }, 'the batch to complete', 90_000);
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBe(max);
    for (const v of await page.evaluate<number[]>('window.progressSeen')) values.add(v);
    expect([...values].some((v) => v > 0 && v < max), `progress seen: ${[...values].join(', ')}`).toBe(true);
    expect(await page.getByText(`${(LINES - 2).toLocaleString('en-US')} customers`).count()).toBeGreaterThan(0);
    const errorRow = page.getByRole('table', { name: 'Errors' }).getByRole('row', { name: new RegExp(`^${BAD_LINE}\\b`) });
    await errorRow.waitFor();
    expect(await errorRow.innerText()).toMatch(/email/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download errors (.csv)' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('line_number,field,code,error');
    expect(csv).toContain(`${BAD_LINE},email,`);
    await screenshot(page, 'backoffice-imports-batch');

    await page.getByRole('button', { name: '← Back' }).click();
    const listed = page.getByRole('table', { name: 'Batches' }).getByRole('row', { name: /customers\.csv/ });
    await listed.waitFor();
    expect(await listed.innerText()).toMatch(/Completed/);
    await screenshot(page, 'backoffice-imports');

    // A newcomer starts from a sample: the one offered is the documented file, and it imports as it is.
    const samples = page.getByRole('navigation', { name: 'Sample files' });
    expect(await samples.getByRole('link').allInnerTexts()).toEqual(['Customers', 'Invoices', 'Payments', 'Divisions', 'Credit cards', 'Invoice reconciliation', 'Payment reconciliation']);
    const [sample] = await Promise.all([page.waitForEvent('download'), samples.getByRole('link', { name: 'Invoices', exact: true }).click()]);
    expect(sample.suggestedFilename()).toBe('invoices.csv');
    const sampleCsv = readFileSync((await sample.path())!);
    expect(sampleCsv.toString('utf8')).toBe(readFileSync(join('resources', 'samples', 'invoices.csv'), 'utf8'));
    await page.getByLabel('CSV file').setInputFiles({ name: 'invoices.csv', mimeType: 'text/csv', buffer: sampleCsv });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/app\/imports\/\d+$/);
    await until(async () => (await page.getByText('Completed', { exact: true }).count()) > 0, 'the sample batch to complete', 60_000);
    const [sampleBatch] = await api<Array<{ id: number; file_name: string; file_errors_count: number; status: string }>>('GET', '/api/imports/completed');
    expect(sampleBatch).toMatchObject({ file_name: 'invoices.csv', file_errors_count: 0, status: 'completed' });

    // The same file again within 24 hours: the screen says so in its own words and offers the way on.
    await page.getByRole('button', { name: '← Back' }).click();
    await page.getByLabel('CSV file').setInputFiles({ name: 'invoices.csv', mimeType: 'text/csv', buffer: sampleCsv });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await alert.waitFor();
    expect(await alert.innerText()).toBe(`Already imported: This file was imported in the last 24 hours (batch ${sampleBatch!.id}). Nothing was imported.`);
    // The earlier batch is a link: the clerk can see whether it went through before importing again.
    expect(await alert.getByRole('link', { name: `batch ${sampleBatch!.id}` }).getAttribute('href')).toBe(`/app/imports/${sampleBatch!.id}`);
    await page.getByRole('button', { name: 'Import it again anyway' }).click();
    await page.waitForURL(/\/app\/imports\/\d+$/);
    expect((await api<unknown[]>('GET', '/api/imports')).length).toBe(3);
  });

  it('shows a failed webhook delivery in the log, then 200 after the receiver recovers and Resend', async () => {
    await page.getByRole('link', { name: 'Webhooks and e-mail' }).click();
    await page.waitForURL(/\/app\/developers\/webhook_responses$/);
    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    await page.getByLabel('URL', { exact: true }).fill('ftp://nowhere');
    await page.getByRole('form', { name: 'Add endpoint' }).getByRole('button', { name: 'Add endpoint' }).click();
    await until(async () => (await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')) === 'true', 'the URL refused beside the field');
    await seen('A webhook URL is http or https');
    await page.getByLabel('URL', { exact: true }).fill(receiverUrl);
    await page.getByLabel('Description').fill('ERP receiver');
    // Only customers.
    for (const kind of ['Invoice created', 'Invoice updated', 'Invoice deleted', 'Payment created', 'Payment updated', 'Order created', 'Order updated', 'Transaction created', 'Transaction declined', 'Transaction updated']) {
      await page.getByLabel(kind).uncheck();
    }
    await page.getByRole('form', { name: 'Add endpoint' }).getByRole('button', { name: 'Add endpoint' }).click();
    // The account's first endpoint makes the signing key: shown once, with a copy button.
    await seen(/Signing key \(shown this once\)/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await page.getByRole('button', { name: 'Done' }).click();
    await seen(receiverUrl);

    await api('POST', '/api/imports/customer', { identifier: 'HOOK-1', name: 'Hooked Ltd' });
    const log = page.getByRole('table', { name: 'Webhook deliveries' });
    await log.getByRole('row', { name: /customer\.created HOOK-1/ }).first().waitFor({ timeout: 30_000 });
    const failed = log.getByRole('row', { name: /customer\.created HOOK-1/ }).first();
    expect(await failed.innerText()).toMatch(/500/);
    expect(await failed.innerText()).toMatch(/receiver is down for maintenance/);

    answer = 200;
    await failed.getByRole('button', { name: /^Resend/ }).click();
    const status = page.getByRole('status').filter({ hasText: 'Sent customer.created HOOK-1 again' });
    await status.waitFor();
    expect(await status.innerText()).toMatch(/HTTP 200/);
    await until(async () => (await log.getByRole('row', { name: /customer\.created HOOK-1.*200.*resent/s }).count()) > 0, 'the resent attempt in the log');
    expect(received.filter((e) => e === 'customer.created').length).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'backoffice-webhooks');

    await page.getByRole('link', { name: 'E-mail', exact: true }).click();
    await page.waitForURL(/\/app\/developers\/mail$/);
    await seen('Sandbox: kept in the outbox');
    const relay = page.getByRole('form', { name: 'SMTP relay' });
    await relay.getByLabel('Host', { exact: true }).fill('smtp.example.com');
    await relay.getByLabel('From', { exact: true }).fill('Laneway Shop <shop@example.com>');
    await relay.getByLabel('Password', { exact: true }).fill('relay secret');
    await relay.getByRole('button', { name: 'Save relay' }).click();
    // Saving tries the relay: this one's name does not resolve, so it is saved with a warning, and its badge says so.
    await seen('Saved, but the relay is not reachable: The host name smtp.example.com does not resolve (DNS)');
    await until(async () => (await page.getByLabel('Relay state').textContent()) === 'Failing', 'the relay badge to say Failing');
    const settings = await api<{ mode: string; relay: { host: string; port: number; password_set: boolean } }>('GET', '/api/account/mail');
    expect(settings).toMatchObject({ mode: 'smtp', relay: { host: 'smtp.example.com', port: 587, password_set: true } });
    expect(JSON.stringify(settings)).not.toContain('relay secret');
    await seen('Set (never shown). Leave empty to keep it.');
    await screenshot(page, 'backoffice-mail');
    page.once('dialog', (d) => void d.accept());
    await relay.getByRole('button', { name: 'Remove relay' }).click();
    await seen('Removed: sandbox mode.');
    expect((await api<{ mode: string }>('GET', '/api/account/mail')).mode).toBe('sandbox');
  });

  it("a clerk sees the batches but not Upload, the webhook endpoints and their log, or the relay's Save; the API refuses the upload", async () => {
    const clerk = await bo.addUser(page, { email: 'clerk@example.com', role: 'clerk', password: 'clerk password 1' });

    await clerk.goto(`${url}/app/imports`);
    await clerk.getByRole('table', { name: 'Batches' }).getByRole('row', { name: /customers\.csv/ }).waitFor();
    expect(await clerk.getByText('Upload a CSV').count()).toBe(0);
    await clerk.goto(`${url}/app/developers/webhook_responses`);
    await clerk.getByText('Webhook endpoints and their delivery log are shown to managers and the owner.').waitFor();
    expect(await clerk.getByRole('table', { name: 'Webhook deliveries' }).count()).toBe(0);
    expect(await clerk.getByRole('button', { name: /Add endpoint|Roll signing key|Resend|Edit|Remove/ }).count()).toBe(0);
    await clerk.goto(`${url}/app/developers/mail`);
    await clerk.getByRole('form', { name: 'SMTP relay' }).waitFor();
    expect(await clerk.getByRole('button', { name: 'Save relay' }).count()).toBe(0);
    expect(await clerk.getByLabel('Host', { exact: true }).isDisabled()).toBe(true);

    const jwt = await clerk.evaluate(() => localStorage.getItem('laneway.user'));
    const form = new FormData();
    form.append('file', new Blob(['identifier,name\nCLERK-1,Refused\n'], { type: 'text/csv' }), 'clerk.csv');
    const refused = await fetch(`${url}/api/imports`, { method: 'POST', headers: { Authorization: `Bearer ${jwt}` }, body: form });
    expect(refused.status).toBe(403);
    await clerk.context().close();
  });

  // Last: the customers it uploads import in the background, and their events would reach the webhook above.
  it('shows how much of a file went out while it uploads, in the reader\'s locale', async () => {
    const fr = await bo.newPage('fr-CA');
    await bo.signIn(fr, { email: 'owner@example.com', password: 'owner password 1' });
    for (const [p, locale, pattern] of [[page, 'en-US', /^\d{1,2}% sent \(\d\.\d of 0\.5 MB\)$/], [fr, 'fr-CA', /^\d{1,2} % sent \(\d,\d of 0,5 MB\)$/]] as const) {
      await p.goto(`${url}/app/imports`);
      await p.getByText('Drop a CSV file here, or choose one.').waitFor();
      // A back-office server across the shop's network: the browser sends at 128 KB/s (Chromium's own throttling).
      const cdp = await p.context().newCDPSession(p);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 128 * 1024 });
      // Half a megabyte of customers: four seconds on the way.
      let csv = 'identifier,name\n';
      for (let i = 0; csv.length < 512 * 1024 - 100; i++) csv += `UP-${locale}-${String(i).padStart(6, '0')},Upload progress customer number ${i}\n`;
      await p.getByLabel('CSV file').setInputFiles({ name: `upload-${locale}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await p.getByRole('button', { name: 'Import', exact: true }).click();
      const bar = p.getByRole('progressbar', { name: 'Upload' });
      // Part of the file sent: the bar and the words say how much, the button says it is busy.
      await until(async () => {
        const now = Number((await bar.getAttribute('aria-valuenow', { timeout: 1_000 }).catch(() => null)) ?? 0);
        return now > 0 && now < 100;
      }, 'the upload under way', 20_000);
      expect(spaced(await bar.locator('xpath=..').innerText())).toMatch(pattern);
      expect(await p.getByRole('button', { name: 'Uploading…' }).isDisabled()).toBe(true);
      await screenshot(p, `backoffice-imports-uploading-${locale}`);
      await p.waitForURL(/\/app\/imports\/\d+$/, { timeout: 60_000 });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    }
    await fr.context().close();
  });

});
