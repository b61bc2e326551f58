import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { card, VISA } from '../helpers/cards';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office's confirmations, keyboard only, in Debian's Chromium against `npm run serve`:
 * one for a destructive or irreversible action (disable a user, remove a card, move the sandbox
 * clock) opens on Cancel, so Enter, Enter changes nothing; one that is neither (a clerk's role)
 * opens on its confirm button; and Esc, or Cancel, gives the focus back to the button that opened
 * it, never to the page's body. Screenshots: test-output/screenshots/dialog-focus-*.png.
 */
const TOKEN = 'DIALOGFOCUS01';
const KEY = 'dialog-focus-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };

let bo: BackofficeInstall;
let url: string;
let page: Page;
const api = apiOf(() => url, TOKEN, KEY);

/** The text of what has the focus ('BODY' when nothing does). */
const focused = async () => (await page.evaluate("document.activeElement === document.body ? 'BODY' : (document.activeElement?.textContent ?? '').trim()")) as string;
const isFocused = (l: Locator) => l.evaluate((el) => el === el.ownerDocument.activeElement);

/** The button focused from the keyboard and pressed with Enter: the dialog it opens is up. */
async function openWithKeyboard(button: Locator, dialog: Locator): Promise<void> {
  await button.focus();
  await page.keyboard.press('Enter');
  await dialog.waitFor();
}

beforeAll(async () => {
  bo = await startBackoffice('dialog-focus', { token: TOKEN, key: KEY });
  url = bo.url;
  await api('POST', '/api/users', { email: 'temp@example.com', role: 'clerk', name: 'Tess Temp' });
  await api('POST', '/api/imports/customer', { identifier: 'FOCUS-1', name: 'Focus Foods' });
  await api('POST', '/api/gateway/v1/wallets', { customer: 'FOCUS-1', credit_card: card(VISA) });
  page = await bo.newPage('en-US');
  await bo.claimOwner(page, OWNER);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [['', page]]));

afterAll(() => bo?.close());

describe('confirmations: the safe choice first, the focus back where it was', { timeout: 90_000 }, () => {
  it('Disable a user: Cancel has the focus, Enter, Enter disables nobody; Esc gives the focus back to Disable', async () => {
    await page.goto(`${url}/app/users`);
    const disable = page.getByRole('row', { name: /temp@example\.com/ }).getByRole('button', { name: 'Disable' });
    const dialog = page.getByRole('dialog', { name: 'Disable Tess Temp (temp@example.com)?' });
    await openWithKeyboard(disable, dialog);
    expect(await focused()).toBe('Cancel');
    await screenshot(page, 'dialog-focus-disable');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(await isFocused(disable), 'Disable has the focus again after Cancel').toBe(true);
    const users = await api<{ users: Array<{ email: string; enabled: boolean }> }>('GET', '/api/users');
    expect(users.users.find((u) => u.email === 'temp@example.com')?.enabled).toBe(true);
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await isFocused(disable), 'Disable has the focus again after Esc').toBe(true);
  });

  it('Remove a card: Cancel has the focus; Esc gives the focus back to Remove, the card stays', async () => {
    await page.goto(`${url}/app/customers/FOCUS-1`);
    const methods = page.getByRole('list', { name: 'Payment methods' });
    await methods.getByText(/\*\*0006/).waitFor();
    const remove = methods.getByRole('button', { name: 'Remove' });
    const dialog = page.getByRole('dialog', { name: 'Remove this payment method?' });
    await openWithKeyboard(remove, dialog);
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await isFocused(remove), 'Remove has the focus again').toBe(true);
    const wallets = await api<{ wallets: Array<{ credit_cards: unknown[] }> }>('GET', '/api/gateway/v1/wallets/search?type=customer&locator=FOCUS-1');
    expect(wallets.wallets.flatMap((w) => w.credit_cards)).toHaveLength(1);
  });

  it('Advance the sandbox clock (it cannot be put back): Cancel has the focus, Enter, Enter moves nothing', async () => {
    await page.goto(`${url}/app/settlement`);
    const advance = page.getByRole('button', { name: 'Advance 1 day' });
    const dialog = page.getByRole('dialog', { name: 'Move the sandbox clock 1 day ahead?' });
    await openWithKeyboard(advance, dialog);
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(await isFocused(advance), 'Advance 1 day has the focus again').toBe(true);
    expect((await api<{ clock_offset_seconds: number }>('GET', '/api/status')).clock_offset_seconds).toBe(0);
  });

  it('a change that is neither (a clerk made a manager) opens on its confirm button; Esc gives the focus back to the role', async () => {
    await page.goto(`${url}/app/users`);
    const role = page.getByLabel('Role of temp@example.com');
    await role.focus();
    await role.selectOption('manager');
    const dialog = page.getByRole('dialog', { name: 'Make Tess Temp (temp@example.com) manager?' });
    await dialog.waitFor();
    expect(await focused()).toBe('Make manager');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await isFocused(role), 'the role has the focus again').toBe(true);
  });
});
