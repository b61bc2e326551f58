import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatMoney } from '../../src/shared/money';
import { VISA } from '../helpers/cards';

/**
 * A card sale that paid an invoice through its pay link, refunded in part through the gateway, then
 * charged back (the sandbox charges back an amount ending in .66 ten processing days after it
 * settles), in Debian's Chromium against `npm run serve`: the payment page shows what was received,
 * the refund and the chargeback taken off it, each named for what it is, and that it keeps nothing.
 */
const TOKEN = 'CHARGEBACKVIEW01';
const KEY = 'chargeback-view-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALE = 'en-US';

let bo: BackofficeInstall;
let url: string;
let page: Page;
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const shown = (cents: number) => spaces(formatMoney(cents, 'USD', { locale: LOCALE }));
const text = async (selector: string) => spaces(await page.locator(selector).innerText());

type Payment = { status: string; payment_amount: string; refunds: Array<{ kind: string; amount: string; transaction_token: string | null }> };

beforeAll(async () => {
  bo = await startBackoffice('chargeback-view', { token: TOKEN, key: KEY }, [], { LANEWAY_TICK_MS: '1000' });
  url = bo.url;
  page = await bo.newPage(LOCALE);
  await bo.claimOwner(page, OWNER);
  await api('POST', '/api/imports/customer', { identifier: 'CBVIEW', name: 'Chargeback Co' });
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [['page', page]]));

afterAll(() => bo?.close());

describe('a chargeback of a card sale that paid an invoice', { timeout: 120_000 }, () => {
  it('shows the chargeback among what was taken off the payment, named a chargeback', async () => {
    const made = await api<{ pay_url: string }>('POST', '/api/imports/invoice', { number: 'CBV-1', customer_identifier: 'CBVIEW', amount: 20_066, date: '2026-01-05', due_date: '2099-02-04', echo: 'pay_urls' });
    const key = new URL(made.pay_url).pathname.replace('/pay/', '');
    const res = await fetch(`${url}/api/pay/${key}/payments`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'creditCard', amount_cents: 20_066, name: 'Pat Payer', card_number: VISA, expiry_month: 12, expiry_year: 2031, cvv: '123', postal_code: 'K1C2N6', attempt: 'attempt-CBV-1' }),
    });
    const sale = ((await res.json()) as { transaction: string }).transaction;
    await api('POST', '/api/gateway/v1/orders/refund', { transaction: sale, amount_cents: 5_000 });
    await api('POST', '/api/sandbox/v1/clock/advance', { by: 'P16D' });
    // The returns rule runs with the cut-offs crossed, or at the next tick.
    await expect.poll(async () => (await api<Payment>('GET', `/api/exports/payment/${sale}`)).refunds.map((r) => r.kind), { timeout: 40_000, interval: 500 }).toEqual(['refund', 'chargeback']);

    await page.goto(`${url}/app/payments/${sale}`);
    await expect.poll(() => text('[aria-label="Received"]'), { timeout: 20_000 }).toBe(shown(20_066));
    expect(await text('[aria-label="Kept"]')).toBe(`Refunded and charged back ${shown(-20_066)} · kept ${shown(0)}`);
    const tree = page.getByRole('tree', { name: 'Payment tree' });
    expect(await tree.locator('[aria-label="Invoice"]').count()).toBe(0);
    const refund = spaces(await tree.locator('[aria-label="Refund"]').innerText());
    expect(refund).toContain(shown(-5_000));
    const chargeback = spaces(await tree.locator('[aria-label="Chargeback"]').innerText());
    expect(chargeback).toContain(`Chargeback of transaction ${sale}`);
    expect(chargeback).toContain(shown(-15_066));
    expect(chargeback).toContain("charged back by the cardholder's bank, taken off this payment");
  });
});
