import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiOf } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatAmount, formatMoney } from '../../src/shared/money';
import { VISA } from '../helpers/cards';

/**
 * A card sale that paid an invoice through its pay link, then refunded in part on the transaction
 * page, in Debian's Chromium against `npm run serve`, in en-US and de-DE: the transaction names the
 * payment, customer and invoice it paid; the refund's confirmation says which invoice owes again and
 * how much; the payment page shows what was received (the settlement's sale), the refund taken off
 * it (day, amount, transaction) and what it keeps, each in the reader's locale.
 */
const TOKEN = 'REFUNDVIEW000001';
const KEY = 'refund-view-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  { locale: 'en-US', invoice: 'RE-2026-001' },
  { locale: 'de-DE', invoice: 'RE-2026-002' },
] as const;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
const shown = (cents: number, locale: string) => spaces(formatMoney(cents, 'USD', { locale }));
const typed = (cents: number, locale: string) => formatAmount(cents, 'USD', locale);
const dayShown = (iso: string, locale: string) => new Date(`${iso}T00:00:00Z`).toLocaleDateString(locale, { dateStyle: 'medium', timeZone: 'UTC' });
const text = async (page: Page, selector: string) => spaces(await page.locator(selector).innerText());

type Payment = { payment_amount: string; received_amount: string; refunds: Array<{ kind: string; date: string; amount: string; transaction_token: string | null; sale_transaction_token: string }> };

/** An invoice of 106.20 paid by card through its pay link, as the customer does: the sale's token. */
async function paidThroughPayLink(number: string): Promise<string> {
  const made = await api<{ pay_url: string }>('POST', '/api/imports/invoice', { number, customer_identifier: 'MUELLER', amount: 10_620, date: '2026-01-05', due_date: '2099-02-04', echo: 'pay_urls' });
  const key = new URL(made.pay_url).pathname.replace('/pay/', '');
  const res = await fetch(`${url}/api/pay/${key}/payments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'creditCard', amount_cents: 10_620, name: 'Anna Müller', card_number: VISA, expiry_month: 12, expiry_year: 2031, cvv: '123', postal_code: 'K1C2N6', attempt: `attempt-${number}` }),
  });
  const paid = (await res.json()) as { status: string; transaction: string };
  expect(paid.status).toBe('approved');
  return paid.transaction;
}

beforeAll(async () => {
  bo = await startBackoffice('refund-view', { token: TOKEN, key: KEY });
  url = bo.url;
  const en = await bo.newPage('en-US');
  await bo.claimOwner(en, OWNER);
  pages.set('en-US', en);
  const de = await bo.newPage('de-DE');
  await bo.signIn(de, OWNER);
  pages.set('de-DE', de);
  await api('POST', '/api/imports/customer', { identifier: 'MUELLER', name: 'Müller GmbH' });
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

describe('a refund of a card sale that paid an invoice', { timeout: 120_000 }, () => {
  for (const { locale, invoice } of LOCALES) {
    it(`names the invoice owed again before, and shows received, refunded and kept after (${locale})`, async () => {
      const page = pages.get(locale)!;
      const sale = await paidThroughPayLink(invoice);

      await page.goto(`${url}/app/orders/transactions/${sale}`);
      const paidCard = page.getByLabel('Invoices paid');
      await paidCard.getByRole('link', { name: `Invoice ${invoice}` }).waitFor();
      expect(spaces(await paidCard.innerText())).toContain(`Payment ${sale} from Müller GmbH: Invoice ${invoice} ${shown(10_620, locale)}`);

      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Amount').fill(typed(1_250, locale));
      // The whole amount first, then what is typed: the note follows the amount.
      await expect.poll(async () => spaces(await dialog.getByLabel('Owed again').innerText()), { timeout: 20_000 }).toBe(`Invoice ${invoice} (Müller GmbH) will owe ${shown(1_250, locale)} again.`);
      expect(spaces(await dialog.innerText())).toContain(`the card holder sees ${shown(1_250, locale)}`);
      await dialog.getByRole('button', { name: `Refund ${shown(1_250, locale)}` }).click();
      await expect.poll(() => text(page, 'p.notice[role="status"]'), { timeout: 20_000 }).toBe(`Refunded ${shown(1_250, locale)}.`);

      const p = await api<Payment>('GET', `/api/exports/payment/${sale}`);
      expect([p.received_amount, p.payment_amount, p.refunds.map((r) => [r.kind, r.amount, r.sale_transaction_token])]).toEqual(['106.20', '93.70', [['refund', '12.50', sale]]]);
      const refund = p.refunds[0]!;
      expect(refund.transaction_token).toMatch(/\S/);

      await page.goto(`${url}/app/payments/${sale}`);
      await expect.poll(() => text(page, '[aria-label="Received"]'), { timeout: 20_000 }).toBe(shown(10_620, locale));
      expect(await text(page, '[aria-label="Kept"]')).toBe(`Refunded ${shown(-1_250, locale)} · kept ${shown(9_370, locale)}`);
      const tree = page.getByRole('tree', { name: 'Payment tree' });
      expect(spaces(await tree.locator('[aria-label="Payment"]').innerText())).toContain(shown(10_620, locale));
      expect(spaces(await tree.locator('[aria-label="Invoice"]').innerText())).toContain(`Invoice ${invoice}`);
      expect(spaces(await tree.locator('[aria-label="Invoice"]').innerText())).toContain(shown(9_370, locale));
      const node = spaces(await tree.locator('[aria-label="Refund"]').innerText());
      expect(node).toContain(`Transaction ${refund.transaction_token}`);
      expect(node).toContain(shown(-1_250, locale));
      expect(node).toContain(dayShown(refund.date, locale));
      await tree.getByRole('link', { name: `Transaction ${refund.transaction_token}` }).click();
      await page.waitForURL(new RegExp(`/app/orders/transactions/${refund.transaction_token}$`));
    });
  }
});
