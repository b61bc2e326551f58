import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatAmount, formatMoney } from '../../src/shared/money';

/**
 * The back office's Record a payment and Apply the credit forms, and the customer list, in
 * Debian's Chromium against `npm run serve`, in en-US and fr-CA: an empty form records no payment
 * of nothing (said beside the amount); an amount that could mean two is said at once, with how to
 * type it; the day received defaults to today in the shop and is recorded as chosen; a credit
 * applied beyond itself is held with the reason beside the button. The customer list says there
 * are none yet (and how to add one) when nothing is searched, and finds a name sorted by balance.
 * Screenshots: test-output/screenshots/payment-forms-*.png.
 */
const TOKEN = 'PAYMENTFORMS0001';
const KEY = 'payment-forms-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  { locale: 'en-US', p: 'EN' },
  { locale: 'fr-CA', p: 'FR' },
] as const;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
/** An amount as the screen writes it in its locale ("$100.00", "100,00 $ US"). */
const shown = (cents: number, locale: string) => spaces(formatMoney(cents, 'USD', { locale }));
/** An amount as a person types it in that locale ("25.00", "25,00"). */
const typed = (cents: number, locale: string) => formatAmount(cents, 'USD', locale);
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
/** The text said beside a field (its error, else its hint): what its aria-describedby names. */
const besideField = async (page: Page, label: string) => {
  const id = await field(page, label).getAttribute('aria-describedby');
  return id ? spaces(await page.locator(`[id="${id}"]`).innerText()) : '';
};
const paymentStatus = async (reference: string) => (await fetch(`${url}/api/exports/payment/${reference}`, { headers: { Authorization: auth } })).status;

beforeAll(async () => {
  bo = await startBackoffice('payment-forms', { token: TOKEN, key: KEY });
  url = bo.url;
  // The smallest window the back office is made for.
  const en = await bo.newPage('en-US', { viewport: { width: 1024, height: 768 } });
  await bo.claimOwner(en, OWNER);
  pages.set('en-US', en);
  const fr = await bo.newPage('fr-CA', { viewport: { width: 1024, height: 768 } });
  await bo.signIn(fr, OWNER);
  pages.set('fr-CA', fr);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

describe('the customer list', { timeout: 90_000 }, () => {
  it('says there are no customers yet, and how to add one, when nothing is searched', async () => {
    const page = pages.get('en-US')!;
    await page.goto(`${url}/app/customers`);
    const table = page.getByRole('table', { name: 'Customers' });
    await table.getByText('No customers yet').waitFor();
    expect(await table.locator('.bo-empty').innerText()).toBe('No customers yet. Add one with New customer, or import your customer list in Imports.');
    await page.getByRole('button', { name: 'New customer' }).waitFor();
    // A search that finds nothing is said so: the list is not empty, the search is.
    await page.goto(`${url}/app/customers?q=nobody`);
    await table.getByText('No customer matches.').waitFor();
    await page.goto(`${url}/app/customers`);
    await table.getByRole('link', { name: 'Imports' }).click();
    await page.waitForURL(/\/app\/imports$/);
  });

  it('finds a customer by name while sorted by balance, as it does sorted by identifier', async () => {
    await api('POST', '/api/imports/customer', { identifier: 'C-100', name: 'Boulangerie Côté' });
    await api('POST', '/api/imports/customer', { identifier: 'C-200', name: 'Côté Électrique' });
    await api('POST', '/api/imports/customer', { identifier: 'C-300', name: 'Quincaillerie Nord' });
    await api('POST', '/api/imports/invoice', { number: 'C-200-1', customer_identifier: 'C-200', amount: 90000, date: '2026-01-05', due_date: '2099-02-04' });
    const page = pages.get('en-US')!;
    await page.goto(`${url}/app/customers?sort=balance&q=cote`);
    const rows = page.getByRole('table', { name: 'Customers' }).getByRole('row');
    await until(async () => (await rows.count()) === 3, 'two customers named Côté, under the header');
    expect(await rows.nth(1).getByRole('cell').first().innerText()).toBe('C-200');
    expect(await rows.nth(2).getByRole('cell').first().innerText()).toBe('C-100');
  });
});

for (const { locale, p } of LOCALES) {
  describe(`Record a payment and Apply the credit in ${locale}`, { timeout: 90_000 }, () => {
    const page = () => pages.get(locale)!;

    it('records no payment of nothing: an empty form says beside the amount that one is needed, keeping what was typed', async () => {
      await page().goto(`${url}/app/payments/new?customer=C-100`);
      await field(page(), 'Cheque number').fill(`${p}-0`);
      const record = page().getByRole('button', { name: /^Record/ });
      // No "Record $0.00" offered for nothing typed.
      expect(await record.innerText()).toBe('Record the payment');
      await record.click();
      await expect.poll(() => field(page(), 'Amount received (USD)').getAttribute('aria-invalid')).toBe('true');
      expect(await besideField(page(), 'Amount received (USD)')).toBe(`Type the amount received, for example ${typed(125050, locale)}, or amounts to apply below`);
      expect(page().url()).toMatch(/\/app\/payments\/new/);
      expect(await field(page(), 'Cheque number').inputValue()).toBe(`${p}-0`);
      // A fixed field loses its error at once.
      await field(page(), 'Amount received (USD)').fill(typed(1000, locale));
      await expect.poll(() => field(page(), 'Amount received (USD)').getAttribute('aria-invalid')).not.toBe('true');
      // Zero typed is nothing too: refused, and the 0 stays in the field.
      await field(page(), 'Amount received (USD)').fill('0');
      await record.click();
      await until(async () => (await besideField(page(), 'Amount received (USD)')) === `The amount received must be more than ${shown(0, locale)}`, 'the zero refused');
      expect(await field(page(), 'Amount received (USD)').inputValue()).toBe('0');
      expect(page().url()).toMatch(/\/app\/payments\/new/);
      expect(await paymentStatus(`CHQ-C-100-${p}-0`)).toBe(404);
      await screenshot(page(), `payment-forms-empty-${locale}`);
    });

    it('says at once, beside the amount, why an amount that could mean two is not read, and how to type it', async () => {
      await page().goto(`${url}/app/payments/new?customer=C-100`);
      // "1,234" in fr-CA: a thousand written the en-US way, or 1,23 mistyped? "12,50" in en-US: cents, or 1,250?
      const ambiguous = locale === 'fr-CA' ? '1,234' : '12,50';
      await field(page(), 'Amount received (USD)').fill(ambiguous);
      await expect.poll(() => field(page(), 'Amount received (USD)').getAttribute('aria-invalid')).toBe('true');
      const said = await besideField(page(), 'Amount received (USD)');
      expect(said).toContain(`"${ambiguous}" could mean two amounts here.`);
      // What to type: the cents after the locale's decimal separator, its thousands as it groups them.
      expect(said).toContain(locale === 'fr-CA' ? 'Type the cents after "," (12,50), thousands with a space or nothing (1 234).' : 'Type the cents after "." (12.50), thousands with "," or nothing (1,234).');
      expect(await page().getByLabel('Payment summary').innerText()).toContain('cannot be read yet');
      await screenshot(page(), `payment-forms-ambiguous-${locale}`);
      // Typed again the locale's way: read, the problem gone.
      await field(page(), 'Amount received (USD)').fill(typed(123400, locale));
      await until(async () => spaces(await page().getByLabel('Payment summary').innerText()).includes(`Payment ${shown(123400, locale)}`), 'the amount read');
      expect(await field(page(), 'Amount received (USD)').getAttribute('aria-invalid')).toBeNull();
    });

    it('records the day the cheque was received: today in the shop unless another day is chosen', async () => {
      const status = await api<{ now: string }>('GET', '/api/status');
      // The shop's time zone is UTC here (startBackoffice): today is the engine's date in UTC.
      const today = status.now.slice(0, 10);
      const lastWeek = new Date(Date.parse(`${today}T00:00:00Z`) - 7 * 86_400_000).toISOString().slice(0, 10);
      await page().goto(`${url}/app/payments/new?customer=C-100`);
      await expect.poll(() => field(page(), 'Date received').inputValue()).toBe(today);
      await field(page(), 'Cheque number').fill(`${p}-1`);
      await field(page(), 'Date received').fill(lastWeek);
      await field(page(), 'Amount received (USD)').fill(typed(2500, locale));
      await page().getByRole('button', { name: `Record ${shown(2500, locale)}` }).click();
      await page().waitForURL(new RegExp(`/app/payments/CHQ-C-100-${p}-1$`));
      expect(await api<{ date: string; payment_amount: string }>('GET', `/api/exports/payment/CHQ-C-100-${p}-1`)).toMatchObject({ date: lastWeek, payment_amount: '25.00' });
      await page().getByText(spaces(new Date(`${lastWeek}T00:00:00Z`).toLocaleDateString(locale, { dateStyle: 'medium', timeZone: 'UTC' }))).first().waitFor();
      // No day (emptied): said beside the field, not recorded as today.
      await page().goto(`${url}/app/payments/new?customer=C-100`);
      await expect.poll(() => field(page(), 'Date received').inputValue()).toBe(today);
      await field(page(), 'Cheque number').fill(`${p}-2`);
      await field(page(), 'Date received').fill('');
      await field(page(), 'Amount received (USD)').fill(typed(2500, locale));
      await page().getByRole('button', { name: `Record ${shown(2500, locale)}` }).click();
      await until(async () => (await besideField(page(), 'Date received')) === 'Type the day it was received', 'the missing day said');
      expect(await paymentStatus(`CHQ-C-100-${p}-2`)).toBe(404);
    });

    it('makes the clerk pick one customer (by name or identifier): the invoices offered and the payment recorded are that customer’s', async () => {
      // Two customers whose names start alike: part of a name is not one customer.
      const [stem, one, two] = locale === 'fr-CA' ? ['Gagn', { id: 'GG-FR-1', name: 'Gagnon Quincaillerie' }, { id: 'GG-FR-2', name: 'Gagné Électrique' }] : ['Kowal', { id: 'KW-EN-1', name: 'Kowalski Hurtownia' }, { id: 'KW-EN-2', name: 'Kowalczyk Serwis' }];
      for (const c of [one, two]) await api('POST', '/api/imports/customer', { identifier: c.id, name: c.name });
      await api('POST', '/api/imports/invoice', { number: `${one.id}-A`, customer_identifier: one.id, amount: 30000, date: '2026-01-05', due_date: '2099-02-04' });
      await api('POST', '/api/imports/invoice', { number: `${one.id}-B`, customer_identifier: one.id, amount: 12000, date: '2026-01-05', due_date: '2099-02-04' });
      await api('POST', '/api/imports/invoice', { number: `${two.id}-A`, customer_identifier: two.id, amount: 50000, date: '2026-01-05', due_date: '2099-02-04' });
      await page().goto(`${url}/app/payments/new`);
      const customer = page().getByRole('combobox', { name: 'Customer' });
      const options = page().getByRole('listbox').getByRole('option');

      // Text matching no customer is said at once, beside the field, before any amount is typed.
      await customer.fill('Zzyzx');
      await until(async () => (await besideField(page(), 'Customer')).startsWith('No customer matches “Zzyzx”'), 'no customer matching said');
      expect(await customer.getAttribute('aria-invalid')).toBe('true');

      // Part of a name: the customers it matches, each with its name and identifier, and no invoice until one is picked.
      await customer.fill(stem);
      await until(async () => (await options.count()) === 2, 'the two customers offered');
      expect((await options.allInnerTexts()).map(spaces)).toEqual([`${one.name} ${one.id}`, `${two.name} ${two.id}`]);
      expect(await customer.getAttribute('aria-expanded')).toBe('true');
      expect(await page().getByLabel(/^Apply to /).count()).toBe(0);
      await screenshot(page(), `payment-forms-pick-customer-${locale}`);
      // Part of an identifier, in lower case, finds them too.
      await customer.fill(one.id.slice(0, 5).toLowerCase());
      await until(async () => (await options.count()) === 2, 'the two customers found by identifier');

      await customer.fill(stem);
      await options.filter({ hasText: one.id }).click();
      expect(await besideField(page(), 'Customer')).toBe(`${one.name} · ${one.id}`);
      expect(await customer.inputValue()).toBe(one.name);
      await field(page(), `Apply to ${one.id}-A`).fill(typed(10000, locale));
      expect(await page().getByLabel(`Apply to ${two.id}-A`).count()).toBe(0);
      await field(page(), 'Cheque number').fill(`${p}-K`);

      // Typed again and the same customer picked (keyboard): the amounts typed stay.
      await customer.fill(stem);
      await until(async () => (await options.count()) === 2, 'the customers offered again');
      expect(await page().getByLabel(/^Apply to /).count()).toBe(0);
      await customer.press('ArrowDown');
      await customer.press('ArrowUp');
      await customer.press('Enter');
      await until(async () => (await besideField(page(), 'Customer')) === `${one.name} · ${one.id}`, 'the same customer picked');
      expect(await field(page(), `Apply to ${one.id}-A`).inputValue()).toBe(typed(10000, locale));
      expect(page().url()).toMatch(/\/app\/payments\/new$/);

      await page().getByRole('button', { name: `Record ${shown(10000, locale)}` }).click();
      await page().waitForURL(new RegExp(`/app/payments/CHQ-${one.id}-${p}-K$`));
      expect(await api<{ customer_identifier: string; payment_amount: string }>('GET', `/api/exports/payment/CHQ-${one.id}-${p}-K`)).toMatchObject({ customer_identifier: one.id, payment_amount: '100.00' });
      // Applied to the invoice picked beside it: it owes the rest.
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${one.id}-A`)).owing_cents).toBe(20000);
      expect(await paymentStatus(`CHQ-${stem}-${p}-K`)).toBe(404);
    });

    it('records a payment in the currency of the invoices it pays: yen read without decimals, the dollar invoice not offered with them', async () => {
      const who = `${p}-YEN`;
      await api('POST', '/api/imports/customer', { identifier: who, name: `Tanaka ${p}` });
      await api('POST', '/api/imports/invoice', { number: `${who}-J`, customer_identifier: who, amount: 123456, currency: 'JPY', date: '2026-01-05', due_date: '2099-02-04' });
      await api('POST', '/api/imports/invoice', { number: `${who}-U`, customer_identifier: who, amount: 5000, date: '2026-01-05', due_date: '2099-02-04' });
      // The invoices page's aging says what is owed in yen too, and shows its buckets when asked.
      const yenOwed = spaces(formatMoney(123456, 'JPY', { locale }));
      await page().goto(`${url}/app/invoices`);
      const aging = page().getByLabel('Aging summary');
      await until(async () => spaces(await aging.innerText()).includes(`Also owed: ${yenOwed} by 1 customer`), 'the yen owed said beside the aging');
      await aging.getByLabel('Aging currency').selectOption('jpy');
      await until(async () => spaces(await aging.getByRole('heading').innerText()).includes(`${yenOwed} owed by 1 customer`), 'the yen aging shown');
      await page().goto(`${url}/app/payments/new?customer=${who}`);
      const currency = page().getByLabel('Currency', { exact: true });
      await currency.waitFor();
      // Owing in two currencies: the shop's is offered first, with its own invoice only.
      expect(await currency.inputValue()).toBe('USD');
      await field(page(), `Apply to ${who}-U`).waitFor();
      expect(await page().getByLabel(`Apply to ${who}-J`).count()).toBe(0);
      await currency.selectOption('JPY');
      await field(page(), `Apply to ${who}-J`).waitFor();
      expect(await page().getByLabel(`Apply to ${who}-U`).count()).toBe(0);
      await field(page(), 'Cheque number').fill(`${p}-Y`);
      // ¥123,456 as the locale writes it: the whole owing, no decimals.
      await field(page(), `Apply to ${who}-J`).fill(formatAmount(123456, 'JPY', locale));
      const yen = spaces(formatMoney(123456, 'JPY', { locale }));
      await until(async () => spaces(await page().getByLabel('Payment summary').innerText()).includes(`Payment ${yen}`), 'the yen amount read');
      await page().getByRole('button', { name: `Record ${yen}` }).click();
      await page().waitForURL(new RegExp(`/app/payments/CHQ-${who}-${p}-Y$`));
      expect(await api<{ currency: string; payment_amount: string }>('GET', `/api/exports/payment/CHQ-${who}-${p}-Y`)).toMatchObject({ currency: 'jpy', payment_amount: '123456' });
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${who}-J`)).owing_cents).toBe(0);
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${who}-U`)).owing_cents).toBe(5000);
      await screenshot(page(), `payment-forms-yen-${locale}`);
    });

    it('holds Apply while the amounts come to more than the credit, saying why beside it', async () => {
      const who = `${p}-CREDIT`;
      await api('POST', '/api/imports/customer', { identifier: who, name: `Credit ${p}` });
      await api('POST', '/api/imports/invoice', { number: `${who}-1`, customer_identifier: who, amount: 123456, date: '2026-01-05', due_date: '2099-02-04' });
      await api('POST', '/api/imports/invoice', { number: `${who}-2`, customer_identifier: who, amount: 50000, date: '2026-01-05', due_date: '2099-02-04' });
      // Due earlier, imported last: offered first (the credit goes on the oldest debt first).
      await api('POST', '/api/imports/invoice', { number: `${who}-0`, customer_identifier: who, amount: 1000, date: '2026-01-05', due_date: '2099-01-04' });
      await api('POST', '/api/imports/payment', { identifier: `${who}-CHQ`, customer_identifier: who, amount_cents: 50000, external_payment_type: 'cheque', external_payment_number: '1' });
      await page().goto(`${url}/app/payments/${who}-CHQ`);
      const form = page().getByRole('form', { name: 'Apply the credit' });
      await field(page(), `Apply to ${who}-1`).waitFor();
      const offered = await form.getByLabel(/^Apply to /).evaluateAll((inputs) => inputs.map((i) => i.getAttribute('name')));
      expect(offered).toEqual([`credit-${who}-0`, `credit-${who}-1`, `credit-${who}-2`]);
      // More than an invoice owes, marked beside it: Apply is held and says why, not left to do nothing.
      await field(page(), `Apply to ${who}-0`).fill(typed(2000, locale));
      await expect.poll(() => form.getByRole('button', { name: /^Apply/ }).isDisabled()).toBe(true);
      expect(spaces(await form.getByLabel('Credit summary').innerText())).toContain('an amount above cannot be applied: fix it beside its invoice');
      await field(page(), `Apply to ${who}-0`).fill('');
      await field(page(), `Apply to ${who}-1`).fill(typed(30000, locale));
      await field(page(), `Apply to ${who}-2`).fill(typed(30000, locale));
      const apply = form.getByRole('button', { name: `Apply ${shown(60000, locale)}` });
      await expect.poll(() => apply.isDisabled()).toBe(true);
      const reason = `${shown(10000, locale)} more than the credit: lower an amount to apply it`;
      expect(spaces(await form.getByLabel('Credit summary').innerText())).toContain(reason);
      // The reason is read with the button (a screen reader hears why it is held).
      const described = await apply.getAttribute('aria-describedby');
      expect(spaces(await page().locator(`[id="${described}"]`).innerText())).toContain(reason);
      await screenshot(page(), `payment-forms-over-credit-${locale}`);
      await field(page(), `Apply to ${who}-2`).fill(typed(20000, locale));
      const fits = form.getByRole('button', { name: `Apply ${shown(50000, locale)}` });
      await expect.poll(() => fits.isEnabled()).toBe(true);
      await fits.click();
      await until(async () => (await api<{ unapplied_amount: string }>('GET', `/api/exports/payment/${who}-CHQ`)).unapplied_amount === '0.00', 'the credit applied');
    });

    it('keeps an amount typed beside an invoice the ERP paid meanwhile: said with the invoice and the amount, Apply held until it is left out', async () => {
      const who = `${p}-RACE`;
      await api('POST', '/api/imports/customer', { identifier: who, name: `Race ${p}` });
      await api('POST', '/api/imports/invoice', { number: `${who}-1003`, customer_identifier: who, amount: 14825, date: '2026-01-05', due_date: '2099-01-04' });
      await api('POST', '/api/imports/invoice', { number: `${who}-DE`, customer_identifier: who, amount: 212625, date: '2026-01-05', due_date: '2099-02-04' });
      await api('POST', '/api/imports/payment', { identifier: `${who}-CHQ`, customer_identifier: who, amount_cents: 4676, external_payment_type: 'cheque', external_payment_number: '1' });
      await page().goto(`${url}/app/payments/${who}-CHQ`);
      const form = page().getByRole('form', { name: 'Apply the credit' });
      await field(page(), `Apply to ${who}-1003`).fill(typed(4000, locale));
      await field(page(), `Apply to ${who}-DE`).fill(typed(676, locale));
      await form.getByRole('button', { name: `Apply ${shown(4676, locale)}` }).waitFor();
      // The ERP pays the first invoice in full while the clerk is typing: the live update takes its row away.
      await api('POST', '/api/imports/payment', { identifier: `${who}-ERP`, customer_identifier: who, amount_cents: 14825, invoice_number: `${who}-1003`, amount: 14825 });
      await until(async () => (await page().getByLabel(`Apply to ${who}-1003`).count()) === 0, 'the paid invoice gone from the list');
      // The 40 typed is not dropped unsaid: the invoice and the amount are named, and Apply is held with the reason.
      const notice = form.getByRole('alert', { name: 'No longer open' });
      await until(async () => spaces(await notice.innerText()).includes(`${who}-1003 was paid or closed meanwhile: the ${shown(4000, locale)} typed for it will not be applied.`), 'the dropped amount said');
      const apply = form.getByRole('button', { name: `Apply ${shown(676, locale)}` });
      await expect.poll(() => apply.isDisabled()).toBe(true);
      expect(spaces(await page().locator(`[id="${await apply.getAttribute('aria-describedby')}"]`).innerText())).toContain('no longer open: leave it out above to apply the rest');
      await screenshot(page(), `payment-forms-paid-meanwhile-${locale}`);
      expect((await api<{ unapplied_amount: string }>('GET', `/api/exports/payment/${who}-CHQ`)).unapplied_amount).toBe('46.76');
      // Left out knowingly: the rest applies.
      await notice.getByRole('button', { name: 'Leave it out' }).click();
      await expect.poll(() => apply.isEnabled()).toBe(true);
      await apply.click();
      await until(async () => (await api<{ unapplied_amount: string }>('GET', `/api/exports/payment/${who}-CHQ`)).unapplied_amount === '40.00', 'the rest applied');
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${who}-DE`)).owing_cents).toBe(212625 - 676);
    });
  });
}
