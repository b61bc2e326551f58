import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { fakeService, type FakeService } from '../sync/fake-service';

/**
 * The back office's Sync section in Debian's Chromium against `npm run serve`, with more open
 * exceptions than it reads at once: an upstream (a small HTTP server on loopback) refuses every
 * invoice the hub sends up. The section says more are open and shows them on request.
 */
const TOKEN = 'SYNCEXCMANY00001';
const KEY = 'sync-exceptions-many-key-0123';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const INVOICES = 60;

let bo: BackofficeInstall;
let service: FakeService;
let page: Page | undefined;
let url = '';
const api = apiOf(() => url, TOKEN, KEY);

afterEach((ctx) => bo?.onFailure(ctx.task.result?.state, ctx.task.name, [['', page]]));

afterAll(async () => {
  await bo?.close();
  await service?.close();
});

describe('the Sync section: many open exceptions, a lane\'s lag', { timeout: 150_000 }, () => {
  it('says more are open than shown, and shows them on request', async () => {
    service = await fakeService(({ method, path }) => {
      if (method === 'POST' && path === '/api/imports/invoice') return [412, { error: 'division id not specified' }];
      if (method === 'POST') return [201, { identifier: 'x', message: 'ok' }];
      if (['/api/exports/invoices', '/api/exports/customers', '/api/exports/payments'].includes(path)) return [200, { [path.split('/').pop()!]: [] }];
      return [404, { error: 'not found' }];
    });
    bo = await startBackoffice('sync-exc-many', { token: TOKEN, key: KEY }, ['--sync-poll-ms', '300']);
    url = bo.url;
    for (let n = 1; n <= INVOICES; n++) await api('POST', '/api/imports/invoice', { number: `MANY${n}`, customer_identifier: 'MC1', amount: 1000 + n, currency: 'USD', date: '2026-02-01' });
    await api('PUT', '/api/sync/upstream', { url: service.url, token: 'UPTOKEN', key: 'up-key' });
    type Resolutions = { exceptions: Array<{ reason: string; handled_at: string | null }> };
    await until(async () => (await api<Resolutions>('GET', '/api/sync/resolutions?limit=1000')).exceptions.filter((e) => e.reason === 'upstream_refused').length === INVOICES, `${INVOICES} refusals`, 90_000);

    page = await bo.newPage('en-US');
    await bo.claimOwner(page, OWNER);
    await page.goto(`${url}/app/sync`);
    const rows = page.getByRole('table', { name: 'Sync exceptions' }).locator('tbody tr');
    await until(async () => (await rows.count()) === 50, 'the first 50 exceptions');
    // Not "50 open": that many are shown, more are open.
    expect(await page.getByText('50+ open', { exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Show more' }).click();
    await until(async () => (await rows.count()) === INVOICES, `all ${INVOICES} exceptions`);
    expect(await page.getByText(`${INVOICES} open`, { exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
  });

  it("writes a lane's lag in the reader's locale", async () => {
    const { code } = await api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '7' });
    const res = await fetch(`${url}/api/sync/pair`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
    const lane = (await res.json()) as { token: string; key: string };
    const pulled = await fetch(`${url}/api/sync/pull/customers`, { headers: { Authorization: `Basic ${Buffer.from(`${lane.token}:${lane.key}`).toString('base64')}` } });
    expect(pulled.status).toBe(200);
    // An hour without a word from the lane, on the sandbox's clock.
    await api('POST', '/api/sandbox/v1/clock/advance', { by: 'PT1H' });
    const fr = await bo.newPage('fr-CA');
    await bo.signIn(fr, OWNER);
    await fr.goto(`${url}/app/sync`);
    const row = fr.getByTestId('sync-peer-lane:7');
    await row.waitFor();
    const lag = (await row.locator('td').nth(3).innerText()).replace(/\s/g, ' ');
    expect(lag).toMatch(/^3 6\d\d s$/);
  });
});
