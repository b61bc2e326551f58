import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { tempDir } from '../helpers/tmp';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { startInstall, type Install } from '../sync/rig';

/**
 * Pairing a lane PC from the back office's Sync section, in Debian's Chromium against two `npm run
 * serve` (the hub, and a lane PC started with the very command the screen shows): the owner
 * chooses the lane, gets its code once with its expiry and the command; the lane pairs with it and
 * is listed with its last contact; pairing the same lane again is refused beside the field;
 * Revoke asks first, the safe answer focused, says what it does, and disables the lane's
 * credential at once (the lane's next pull is refused). A manager reads the list and is told who
 * pairs. Screenshot: test-output/screenshots/backoffice-sync-pairing.png.
 */
const TOKEN = 'SYNCPAIRING01';
const KEY = 'sync-pairing-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

let bo: BackofficeInstall;
let lane: Install | undefined;
let page: Page;
let manager: Page | undefined;
let url: string;
const laneDir = tempDir();
const api = apiOf(() => url, TOKEN, KEY);
type Paired = { lanes: Array<{ laneid: string; name: string; revoked_at: string | null }> };

beforeAll(async () => {
  bo = await startBackoffice('sync-pairing', { token: TOKEN, key: KEY }, ['--sync-poll-ms', '300']);
  url = bo.url;
  page = await bo.newPage('en-US', { viewport: { width: 1280, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  await bo.claimOwner(page, OWNER);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['owner', page], ['manager', manager]]));

afterAll(async () => {
  await lane?.proc.stop();
  await bo?.close();
  laneDir.cleanup();
});

describe('the Sync section: pairing and revoking lane PCs', { timeout: 180_000 }, () => {
  it('makes a pairing code for the lane chosen, shown once with its expiry and the command the lane PC runs', async () => {
    await page.goto(`${url}/app/sync`);
    await page.getByRole('heading', { name: 'Sync', level: 2 }).waitFor();
    // No peer yet: says how.
    expect(await page.getByTestId('sync-no-peers').innerText()).toContain('use Pair a lane PC below');
    await page.getByTestId('no-paired-lanes').waitFor();
    const form = page.getByRole('form', { name: 'Pair a lane PC' });

    // The engine's refusal of a lane id, beside the field.
    await form.getByLabel('Lane id').fill('2 x');
    await form.getByRole('button', { name: 'Make a pairing code' }).click();
    await form.locator('#field-laneid-error').waitFor();
    expect(await form.locator('#field-laneid-error').innerText()).toMatch(/laneid must match pattern/);

    await form.getByLabel('Lane id').fill('2');
    await form.getByLabel('Lane name').fill('Front till');
    await form.getByRole('button', { name: 'Make a pairing code' }).click();
    const shown = page.getByTestId('pairing-code');
    await shown.waitFor();
    const code = (await page.getByTestId('pairing-code-value').innerText()).trim();
    expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    const text = await shown.innerText();
    // Its expiry, in the reader's locale and the shop's time (UTC here), 15 minutes on.
    expect(text).toMatch(/It works once, until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M \(15 minutes\)/);
    const command = (await page.getByTestId('pairing-command').innerText()).trim();
    expect(command).toBe(`npm run serve -- --hub ${url} --pairing-code ${code}`);
    // Opened at 127.0.0.1: how a lane PC on the network reaches this hub.
    expect(await page.getByTestId('pairing-loopback').innerText()).toContain('--host 0.0.0.0');
    expect(await form.getByLabel('Lane id').inputValue()).toBe('');
    await screenshot(page, 'backoffice-sync-pairing');

    // The lane PC runs that command: it pairs, and is listed with its last contact.
    const [, hub, pairingCode] = /--hub (\S+) --pairing-code (\S+)/.exec(command)!;
    lane = await startInstall('pairlane', laneDir.dir, ['--hub', hub!, '--pairing-code', pairingCode!, '--sync-poll-ms', '300']);
    const row = page.getByTestId('paired-lane-2');
    await row.waitFor({ timeout: 30_000 });
    await until(async () => /[A-Z][a-z]{2} \d{1,2}, \d{4}/.test((await row.locator('td').nth(2).innerText()) ?? ''), 'the lane\'s last contact', 30_000);
    expect((await row.innerText()).replace(/\s+/g, ' ')).toMatch(/^2 Front till .+ Paired/);
    // The code is gone once done with.
    await page.getByRole('button', { name: 'Done: hide the code' }).click();
    expect(await page.getByTestId('pairing-code').count()).toBe(0);
    expect(await page.locator('body').innerText()).not.toContain(code);

    // Lane 2 again, while paired: refused beside the lane id, in the engine's words.
    await form.getByLabel('Lane id').fill('2');
    await form.getByRole('button', { name: 'Make a pairing code' }).click();
    await form.locator('#field-laneid-error').filter({ hasText: 'paired already' }).waitFor();
    expect(await form.locator('#field-laneid-error').innerText()).toBe('Lane 2 is paired already: revoke it first to pair another machine as that lane');
    expect(await page.getByTestId('pairing-code').count()).toBe(0);
  });

  it('revokes a lane after a confirmation that says what it does, the safe answer first: its credential fails at once', async () => {
    const row = page.getByTestId('paired-lane-2');
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke lane 2?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('is disabled at once');
    // Enter by reflex keeps the lane.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Keep it paired');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect((await api<Paired>('GET', '/api/sync/lanes')).lanes[0]!.revoked_at).toBeNull();

    await row.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke lane' }).click();
    await page.getByRole('status').filter({ hasText: 'Lane 2 is revoked' }).waitFor();
    await row.getByText(/^Revoked /).waitFor();
    expect(await row.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
    expect((await api<Paired>('GET', '/api/sync/lanes')).lanes[0]!.revoked_at).not.toBeNull();
    // The lane's next pull is refused: its sync says so.
    await until(async () => {
      const peers = (await lane!.api<{ peers: Array<{ peer: string; last_error: string | null }> }>('GET', '/api/sync/status')).peers;
      return peers.find((p) => p.peer === 'hub')?.last_error;
    }, 'the lane to be refused by the hub', 30_000);
  });

  it('shows a manager the paired lanes without pairing or revoking, and says who does', async () => {
    manager = await bo.addUser(page, { email: 'manager@example.com', role: 'manager', password: 'manager password 1' });
    await manager.goto(`${url}/app/sync`);
    await manager.getByTestId('paired-lane-2').waitFor();
    expect(await manager.getByTestId('pairing-owner-only').innerText()).toContain('Only the owner');
    expect(await manager.getByRole('form', { name: 'Pair a lane PC' }).count()).toBe(0);
    expect(await manager.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
  });
});
