import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';

/**
 * The back office's Gift cards section in Debian's Chromium against `npm run serve`: the owner finds
 * it in the side bar, looks a card up (unknown, then loaded), activates and loads one with an amount
 * typed in the locale after a confirmation stating it, and reads the balance the engine answers;
 * the card number is cleared after each action and only its last four are shown; the engine's
 * refusals (a wrong PIN, a number too short, an amount over what one load may be) show beside
 * their field in words. The same in fr-CA ("12,50"); a clerk is not offered the section.
 * Screenshot: test-output/screenshots/backoffice-gift-cards.png.
 */
const TOKEN = 'BOGIFTCARDS01';
const KEY = 'back-office-gift-cards-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const CARD = '6277000012345678';

let bo: BackofficeInstall;
let page: Page;
let fr: Page | undefined;
let manager: Page | undefined;
let clerk: Page | undefined;
let url: string;
const api = apiOf(() => url, TOKEN, KEY);
const balance = async () => (await api<{ balance: number }>('POST', '/api/gateway/v1/gift_card/read', { card_number: CARD, pin: '2468' })).balance;
/** What the page shows, its spaces of any kind as one. */
const shown = async (p: Page, testid: string) => (await p.getByTestId(testid).innerText()).replace(/\s+/g, ' ').trim();

beforeAll(async () => {
  bo = await startBackoffice('backoffice-gift', { token: TOKEN, key: KEY });
  url = bo.url;
  page = await bo.newPage('en-US', { viewport: { width: 1024, height: 768 } });
  await bo.claimOwner(page, OWNER);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name, [['owner', page], ['fr', fr], ['manager', manager], ['clerk', clerk]]));

afterAll(async () => {
  await bo?.close();
});

describe('the back office: gift cards', { timeout: 120_000 }, () => {
  it('looks a card up, activates and loads it with the amount typed, shows the balance and never keeps the number', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Gift cards' }).click();
    await page.getByRole('heading', { name: 'Gift cards', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/gift_cards');
    const lookup = page.getByRole('form', { name: 'Look up a balance' });
    const load = page.getByRole('form', { name: 'Activate or load a card' });

    // Not known yet: said so, by its last four, the field emptied.
    await lookup.getByLabel('Card number').fill(CARD);
    await lookup.getByRole('button', { name: 'Look up' }).click();
    expect(await shown(page, 'gift-balance')).toBe('No card •••• 5678 is known here: nothing is on it. Check the number, or activate and load it below.');
    expect(await lookup.getByLabel('Card number').inputValue()).toBe('');

    // An amount that could mean two amounts in en-US is refused before anything is sent.
    await load.getByLabel('Card number').fill(CARD);
    await load.getByLabel('PIN').fill('2468');
    await load.getByLabel('Amount to load').fill('12,50');
    await load.getByRole('button', { name: 'Load card' }).click();
    expect(await load.locator('#field-load_amount_cents-error').innerText()).toMatch(/could mean two amounts/);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // Typed as en-US writes it: asked first, with the amount and the last four only.
    await load.getByLabel('Amount to load').fill('50.00');
    await load.getByRole('button', { name: 'Load card' }).click();
    const dialog = page.getByRole('dialog', { name: 'Load $50.00 onto card •••• 5678 and activate it?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Load $50.00' }).click();
    expect(await shown(page, 'gift-loaded')).toBe('Loaded $50.00 onto card •••• 5678: $50.00 on it now, active.');
    expect(await balance()).toBe(5000);
    for (const label of ['Card number', 'PIN', 'Amount to load']) expect(await load.getByLabel(label).inputValue(), label).toBe('');
    expect(await page.locator('body').innerText()).not.toContain(CARD);
    await screenshot(page, 'backoffice-gift-cards');

    // The balance read by number and PIN.
    await lookup.getByLabel('Card number').fill(CARD);
    await lookup.getByLabel('PIN').fill('2468');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await page.getByTestId('gift-balance').filter({ hasText: '$50.00 left' }).waitFor();
    expect(await shown(page, 'gift-balance')).toBe('Card •••• 5678: $50.00 left, active.');
    expect(await lookup.getByLabel('Card number').inputValue()).toBe('');
  });

  it("shows each of the engine's refusals beside its field, in words, and changes nothing", async () => {
    const load = page.getByRole('form', { name: 'Activate or load a card' });
    const lookup = page.getByRole('form', { name: 'Look up a balance' });
    // A wrong PIN: beside the PIN (typed again), the number kept to correct.
    await load.getByLabel('Card number').fill(CARD);
    await load.getByLabel('PIN').fill('1111');
    await load.getByLabel('Amount to load').fill('10');
    await load.getByRole('button', { name: 'Load card' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Load $10.00' }).click();
    const pinError = load.locator('#field-pin-error');
    await pinError.waitFor();
    expect(await pinError.innerText()).toBe('The PIN does not match this gift card');
    expect(await load.getByLabel('PIN').getAttribute('aria-invalid')).toBe('true');
    expect(await load.getByLabel('PIN').inputValue()).toBe('');
    expect(await balance()).toBe(5000);

    // More than one load may be: the engine's bound, in money.
    await load.getByLabel('PIN').fill('2468');
    await load.getByLabel('Amount to load').fill('2,000,000.00');
    await load.getByRole('button', { name: 'Load card' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Load $2,000,000.00' }).click();
    const amountError = load.locator('#field-load_amount_cents-error');
    await amountError.waitFor();
    expect(await amountError.innerText()).toBe('The amount must be from $0.00 to $1,000,000.00.');
    // Over what a card may hold, with this load.
    await load.getByLabel('PIN').fill('2468');
    await load.getByLabel('Amount to load').fill('999,990.00');
    await load.getByRole('button', { name: 'Load card' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Load $999,990.00' }).click();
    await amountError.filter({ hasText: 'holds at most' }).waitFor();
    expect(await amountError.innerText()).toBe('A gift card holds at most $1,000,000.00; with this load it would hold $1,000,040.00');
    expect(await balance()).toBe(5000);

    // A number too short, read by the engine: beside the number.
    await lookup.getByLabel('Card number').fill('1234');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    const numberError = lookup.locator('#field-lookup_card_number-error');
    await numberError.waitFor();
    expect(await numberError.innerText()).toBe('A gift card number is 6 to 19 digits (spaces and dashes aside)');
    // A wrong PIN on a read, beside that form's PIN.
    await lookup.getByLabel('Card number').fill(CARD);
    await lookup.getByLabel('PIN').fill('9999');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await lookup.locator('#field-lookup_pin-error').filter({ hasText: 'The PIN does not match this gift card' }).waitFor();
    expect(await page.getByTestId('gift-balance').count()).toBe(0);
  });

  it('takes and writes amounts the fr-CA way', async () => {
    fr = await bo.newPage('fr-CA');
    await bo.signIn(fr, OWNER);
    await fr.goto(`${url}/app/gift_cards`);
    const load = fr.getByRole('form', { name: 'Activate or load a card' });
    await load.getByLabel('Card number').fill(CARD);
    await load.getByLabel('PIN').fill('2468');
    await load.getByLabel('Amount to load').fill('12,50');
    await load.getByRole('button', { name: 'Load card' }).click();
    await fr.getByRole('dialog').getByRole('button', { name: /^Load 12,50\s\$\sUS$/ }).click();
    expect(await shown(fr, 'gift-loaded')).toBe('Loaded 12,50 $ US onto card •••• 5678: 62,50 $ US on it now, active.');
    expect(await balance()).toBe(6250);
    const lookup = fr.getByRole('form', { name: 'Look up a balance' });
    await lookup.getByLabel('Card number').fill(CARD);
    await lookup.getByLabel('PIN').fill('2468');
    await lookup.getByRole('button', { name: 'Look up' }).click();
    await fr.getByTestId('gift-balance').waitFor();
    expect(await shown(fr, 'gift-balance')).toBe('Card •••• 5678: 62,50 $ US left, active.');
  });

  it('is offered to a manager, not to a clerk, whom the engine refuses it', async () => {
    manager = await bo.addUser(page, { email: 'manager@example.com', role: 'manager', password: 'manager password 1' });
    await manager.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Gift cards' }).click();
    await manager.getByRole('form', { name: 'Look up a balance' }).waitFor();
    clerk = await bo.addUser(page, { email: 'clerk@example.com', role: 'clerk', password: 'clerk password 1' });
    const nav = clerk.getByRole('navigation', { name: 'Sections' });
    await nav.getByRole('link', { name: 'Customers' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Gift cards' }).count()).toBe(0);
    // The address typed anyway leads elsewhere; the engine refuses the clerk the read itself.
    await clerk.goto(`${url}/app/gift_cards`);
    await clerk.waitForURL((u) => u.pathname !== '/app/gift_cards');
    const jwt = await clerk.evaluate(() => localStorage.getItem('laneway.user'));
    const res = await fetch(`${url}/api/gateway/v1/gift_card/read`, { method: 'POST', headers: { Authorization: `Bearer ${jwt}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ card_number: CARD, pin: '2468' }) });
    expect(res.status).toBe(403);
  });
});
