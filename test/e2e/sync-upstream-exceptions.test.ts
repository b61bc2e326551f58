import { afterAll, describe, expect, it } from 'vitest';
import { screenshot } from '../helpers/browser';
import { upload } from '../imports/upload';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { fakeService, type FakeService } from '../sync/fake-service';

/**
 * The back office's Sync section in Debian's Chromium against `npm run serve`, with an upstream
 * played by a small HTTP server on loopback: an invoice the hub sent up, then deleted on the hub
 * (by a reconciliation import), which the upstream still shows owing, is listed under Exceptions
 * with the amount the upstream still counts and what the operator has to do there.
 * Screenshot: test-output/screenshots/backoffice-sync-exception.png.
 */
const TOKEN = 'SYNCEXCEPTIONS01';
const KEY = 'sync-exceptions-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

let bo: BackofficeInstall;
let service: FakeService;
let url = '';
const api = apiOf(() => url, TOKEN, KEY);

afterAll(async () => {
  await bo?.close();
  await service?.close();
});

describe('the Sync section: what the upstream still counts', { timeout: 120_000 }, () => {
  it('lists an invoice deleted on the hub that the upstream still has owing, with its amount', async () => {
    service = await fakeService(({ method, path }) => {
      if (method === 'POST') return [201, { identifier: 'x', message: 'ok' }];
      if (path === '/api/exports/invoice/HDEL1') return [200, { number: 'HDEL1', customer_identifier: 'HC1', owing_cents: 4500, currency: 'usd', status: 'CURRENT' }];
      if (['/api/exports/invoices', '/api/exports/customers', '/api/exports/payments'].includes(path)) return [200, { [path.split('/').pop()!]: [] }];
      return [404, { error: 'not found' }];
    });
    const sent = () => service.posted.map((p) => String(p.body.number ?? p.body.identifier));
    const upstreamUrl = service.url;

    bo = await startBackoffice('sync-exc', { token: TOKEN, key: KEY }, ['--sync-poll-ms', '300']);
    url = bo.url;

    await api('POST', '/api/imports/invoice', { number: 'HDEL1', customer_identifier: 'HC1', customer_name: 'Hub Customer', amount: 4500, currency: 'USD', date: '2026-02-01' });
    await api('POST', '/api/imports/invoice', { number: 'HKEEP1', customer_identifier: 'HC1', amount: 1000, currency: 'USD', date: '2026-02-02' });
    await api('PUT', '/api/sync/upstream', { url: upstreamUrl, token: 'UPTOKEN', key: 'up-key' });
    await until(async () => sent().includes('HDEL1'), 'the invoice sent up');
    // The ERP's list of open invoices leaves HDEL1 out: deleted on the hub.
    const recon = await upload(url, 'number,customer_number,balance_in_source_system\nHKEEP1,HC1,1000\n', { force: true, auth: `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}` });
    expect(recon.status).toBe(201);
    await until(async () => (await api<{ deleted?: boolean }>('GET', '/api/exports/invoice/HDEL1')).deleted === true, 'the deletion on the hub');
    await until(async () => (await api<{ exceptions: Array<{ document: string }> }>('GET', '/api/sync/resolutions')).exceptions.some((e) => e.document === 'invoices/HDEL1'), 'the exception');

    const page = await bo.newPage('en-US');
    await bo.claimOwner(page, OWNER);
    await page.goto(`${url}/app/sync`);
    const item = page.getByRole('table', { name: 'Sync exceptions' }).getByRole('row').filter({ hasText: 'invoices/HDEL1' });
    await item.waitFor({ timeout: 20_000 });
    const text = await item.innerText();
    expect(text).toContain('Upstream, invoices/HDEL1 ($45.00 upstream)');
    expect(text).toContain('delete or void it on the upstream');
    expect(text).not.toContain('from lane');
    expect(text).toMatch(/[A-Z][a-z]{2} \d{1,2}, \d{4}/);
    await screenshot(page, 'backoffice-sync-exception');
    // The amount is written as the reader writes money, as every other amount of the back office.
    const fr = await bo.newPage('fr-CA');
    await bo.signIn(fr, OWNER);
    await fr.goto(`${url}/app/sync`);
    const frItem = fr.getByRole('table', { name: 'Sync exceptions' }).getByRole('row').filter({ hasText: 'invoices/HDEL1' });
    await frItem.waitFor({ timeout: 20_000 });
    expect((await frItem.innerText()).replace(/\s/g, ' ')).toContain('Upstream, invoices/HDEL1 (45,00 $ US upstream)');

    // Once voided upstream by hand, the owner marks it handled: it leaves the open list, kept with who and when.
    await item.getByRole('button', { name: 'Mark handled' }).click();
    await page.getByText('Nothing open: every exception has been handled.').waitFor();
    const [stored] = (await api<{ exceptions: Array<Record<string, unknown>> }>('GET', '/api/sync/resolutions')).exceptions.filter((e) => e.document === 'invoices/HDEL1');
    expect(stored).toMatchObject({ handled_by: expect.stringContaining(OWNER.email) });
    expect(typeof stored!.handled_at).toBe('string');
    await page.getByRole('button', { name: 'Show handled (1)' }).click();
    const handled = page.getByRole('table', { name: 'Sync exceptions' }).getByRole('row').filter({ hasText: 'invoices/HDEL1' });
    expect(await handled.innerText()).toMatch(new RegExp(`Handled .+ by .*${OWNER.email}`));
    await screenshot(page, 'backoffice-sync-exception-handled');
  });
});
