import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import PDFDocument from 'pdfkit';
import type { Page } from 'playwright-core';
import { screenshot } from '../helpers/browser';
import { card, VISA } from '../helpers/cards';
import { apiOf, until } from './processes';
import { startBackoffice, type BackofficeInstall } from './backoffice-install';
import { formatMoney } from '../../src/shared/money';

/**
 * The back office's detail views in Debian's Chromium against `npm run serve` with data (issue
 * 19), in en-US and in fr-CA: a customer's notes saved (and a field error beside the field), an
 * invitation sent and cancelled, its child accounts, its masked card and autopay; the customer
 * list sorted by balance by the server; an invoice's attached PDF in the page, a reminder's counts
 * in words, a dispute opened and closed, a comment added; a payment's tree. Screenshots:
 * test-output/screenshots/backoffice-detail-{customer,invoice,payment}-{en-US,fr-CA}.png.
 */
const TOKEN = 'BACKOFFICEDETAIL1';
const KEY = 'back-office-details-key-0123456789';
const OWNER = { email: 'owner@example.com', password: 'owner password 1' };
const LOCALES = [
  { locale: 'en-US', p: 'EN' },
  { locale: 'fr-CA', p: 'FR' },
] as const;

let bo: BackofficeInstall;
let url: string;
const pages = new Map<string, Page>();
const api = apiOf(() => url, TOKEN, KEY);
const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
/** What the screen must show for an amount in its locale ("$1,234.50", "1 234,50 $ US"). */
const shown = (cents: number, locale: string) => spaces(formatMoney(cents, 'USD', { locale }));
/** Today as the screen writes a day in its locale ("Mar 5, 2026", "5 mars 2026"). */
const today = (locale: string) => spaces(new Date().toLocaleDateString(locale, { dateStyle: 'medium' }));

function invoicePdf(title: string): Promise<string> {
  return new Promise((resolve) => {
    const doc = new PDFDocument({ size: 'LETTER', margin: 54 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks).toString('base64')));
    doc.fontSize(22).text('Acme Supplies', { continued: false }).moveDown();
    doc.fontSize(14).text(title).moveDown();
    doc.fontSize(11).text('Widgets, 10 x 123.45').text('Total due: 1,234.50 USD');
    doc.end();
  });
}

async function seed(p: string) {
  const customer = (identifier: string, extra: Record<string, unknown> = {}) => api('POST', '/api/imports/customer', { identifier, name: `${identifier} Inc`, ...extra });
  await customer(`${p}-ACME`, { url: `www.${p.toLowerCase()}-acme.test`, contacts: [{ email: `billing@${p.toLowerCase()}-acme.test`, first_name: 'Bea', last_name: 'Billing' }] });
  await customer(`${p}-ACME-EAST`, { parent_identifier: `${p}-ACME` });
  await customer(`${p}-QUIET`);
  // Not due yet: the customer test turns autopay on and off, and a tick between the two would charge a due invoice (it did once, under load).
  await api('POST', '/api/imports/invoice', { number: `${p}-INV-1`, customer_identifier: `${p}-ACME`, amount: 123450, date: '2026-01-05', due_date: '2099-02-04' });
  await api('POST', `/api/imports/invoice/${p}-INV-1/attachment`, { find_by: 'number', file_name: `${p}-INV-1.pdf`, content: await invoicePdf(`Invoice ${p}-INV-1`) });
  await api('POST', '/api/imports/invoice', { number: `${p}-INV-2`, customer_identifier: `${p}-QUIET`, amount: 5000, subtotal_tax1: 100050, date: '2026-01-06', due_date: '2026-02-05' });
  await api('POST', '/api/gateway/v1/wallets', { customer: `${p}-ACME`, credit_card: card(VISA) });
}

/**
 * A full-page screenshot with the whole page in the view: Chromium paints a frame's PDF viewer
 * only while it is in view, and the shell's bar is sticky, so the view is made as tall as the page.
 */
async function shot(p: Page, name: string) {
  const size = p.viewportSize()!;
  const height = Number(await p.evaluate('document.documentElement.scrollHeight'));
  await p.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
  await p.evaluate('window.scrollTo(0, 0)');
  await p.waitForTimeout(1500);
  await screenshot(p, name);
  await p.setViewportSize(size);
}

beforeAll(async () => {
  bo = await startBackoffice('bo-details', { token: TOKEN, key: KEY });
  url = bo.url;
  for (const { p } of LOCALES) await seed(p);
  const en = await bo.newPage('en-US');
  await bo.claimOwner(en, OWNER);
  pages.set('en-US', en);
  const fr = await bo.newPage('fr-CA');
  await bo.signIn(fr, OWNER);
  pages.set('fr-CA', fr);
}, 120_000);

afterEach((ctx) => bo.onFailure(ctx.task.result?.state, ctx.task.name.slice(0, 30), [...pages]));

afterAll(() => bo?.close());

for (const { locale, p } of LOCALES) {
  const owing = shown(123450, locale);
  describe(`the back office's detail views in ${locale}`, { timeout: 120_000 }, () => {
    const page = () => pages.get(locale)!;
    const seen = (text: string | RegExp) => page().getByText(text).first().waitFor({ state: 'visible', timeout: 20_000 });
    const field = (label: string) => page().getByLabel(label, { exact: true });

    it('opens a customer: child accounts, notes saved, a field error beside its field, an invitation, the masked card', async () => {
      // The balance comes with a second read (the list row): held back here, the card says so
      // ("…") while the customer's name is shown, never a zero the customer does not owe.
      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      await page().route('**/api/backoffice/customers?**', async (route) => {
        await held;
        await route.continue();
      });
      await page().goto(`${url}/app/customers/${p}-ACME`);
      await seen(`${p}-ACME Inc`);
      expect(await page().getByLabel('Balance').innerText()).toBe('…');
      release();
      const balance = await until(async () => {
        const text = spaces(await page().getByLabel('Balance').innerText());
        return text === '…' ? undefined : text;
      }, 'the balance read', 20_000);
      expect(balance).toBe(owing);
      await page().unroute('**/api/backoffice/customers?**');
      // The web site, sent as the reference writes it (no scheme), links over https.
      const site = page().getByRole('link', { name: `www.${p.toLowerCase()}-acme.test`, exact: true });
      expect(await site.getAttribute('href')).toBe(`https://www.${p.toLowerCase()}-acme.test/`);
      // Hierarchy: the child account, and a parent that does not exist refused beside the field.
      await page().getByRole('table', { name: 'Child accounts' }).getByText(`${p}-ACME-EAST`, { exact: true }).waitFor();
      await field('Parent customer').fill('NOBODY-HERE');
      await page().getByRole('button', { name: 'Set parent' }).click();
      const parentError = page().locator('#field-parent_identifier-error');
      await parentError.waitFor();
      expect(await parentError.innerText()).toBe("Names no existing customer (NOBODY-HERE)");
      expect(await field('Parent customer').getAttribute('aria-invalid')).toBe('true');
      // Notes: edited and saved through the customer import; the engine has them.
      await field('Notes about this customer').fill(`Prefers e-mail. Net 30 agreed (${locale}).`);
      await page().getByRole('button', { name: 'Save notes' }).click();
      await seen('Notes saved.');
      await until(async () => (await api<{ notes: string }>('GET', `/api/exports/customer/${p}-ACME`)).notes.includes(locale), 'the notes stored');
      // Invitations: one sent to a new address, then cancelled; the stored contact says so.
      const email = `ap@${p.toLowerCase()}-acme.test`;
      await field('Invite someone by e-mail').fill(email);
      await page().getByRole('button', { name: 'Send invitation' }).click();
      // No relay here (sandbox): the invitation is kept in the outbox, and the screen does not call it sent.
      await seen(`Invitation to ${email} kept in the Outbox, not e-mailed: no mail relay is set (sandbox mode).`);
      const row = page().getByRole('table', { name: 'Contacts' }).getByRole('row', { name: new RegExp(email) });
      await until(async () => spaces(await row.innerText()).includes(`invited ${today(locale)}`), 'the invited pill, its day in the locale');
      await row.getByRole('button', { name: 'Cancel invitation' }).click();
      await seen(`Invitation to ${email} cancelled.`);
      await until(async () => /not invited/.test(await row.innerText()), 'the cancelled invitation');
      const stored = await api<{ contacts: Array<{ email: string; invited_at: string | null }> }>('GET', `/api/exports/customer/${p}-ACME`);
      expect(stored.contacts.find((c) => c.email === email)?.invited_at).toBeNull();
      // The billing contact's invitation stays, so a reminder can reach someone.
      const billing = page().getByRole('table', { name: 'Contacts' }).getByRole('row', { name: /billing@/ });
      await billing.getByRole('button', { name: 'Invite' }).click();
      await until(async () => spaces(await billing.innerText()).includes(`invited ${today(locale)}`), "the billing contact's invitation");
      expect(await row.getByRole('button', { name: 'Cancel invitation' }).count()).toBe(0);
      // Wallet: the card shows masked (brand and last four), never its number; autopay can be turned on.
      const methods = page().getByRole('list', { name: 'Payment methods' });
      await methods.getByText(/\*\*0006/).waitFor();
      expect(await page().content()).not.toContain(VISA);
      await seen(/Autopay is off/);
      await shot(page(), `backoffice-detail-customer-${locale}`);
      // Autopay on with the card, then off; the engine's agreements follow.
      await page().getByRole('button', { name: 'Turn autopay on' }).click();
      await seen('Autopay turned on.');
      await seen(/Autopay is on: due invoices are charged to Visa \*\*0006/);
      await until(async () => (await api<{ autopays: unknown[] }>('GET', `/api/autopay?customer_identifier=${p}-ACME`)).autopays.length === 1, 'the agreement');
      await page().getByRole('button', { name: 'Turn autopay off' }).click();
      await seen('Autopay turned off.');
      await seen(/Autopay is off/);
      expect((await api<{ autopays: unknown[] }>('GET', `/api/autopay?customer_identifier=${p}-ACME`)).autopays).toEqual([]);
      if (p !== 'FR') return;
      // Removing a card asks first, naming it; then it is gone from the wallet.
      await methods.getByRole('button', { name: 'Remove' }).click();
      const dialog = page().getByRole('dialog', { name: 'Remove this payment method?' });
      expect(await dialog.innerText()).toContain('Visa **0006 will no longer be able to pay');
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await seen('No saved payment method.');
      const wallets = await api<{ wallets: Array<{ credit_cards: unknown[] }> }>('GET', `/api/gateway/v1/wallets/search?type=customer&locator=${p}-ACME`);
      expect(wallets.wallets.flatMap((w) => w.credit_cards)).toEqual([]);
    });

    it('sorts the customer list by balance on the server, largest first', async () => {
      await page().goto(`${url}/app/customers?q=${p}-`);
      const table = page().getByRole('table', { name: 'Customers' });
      await table.getByText(`${p}-QUIET`, { exact: true }).waitFor();
      const sorted = page().waitForRequest((r) => r.url().includes('/api/backoffice/customers') && r.url().includes('sort=balance'));
      // From the keyboard: the header is a button that takes the focus.
      await table.getByRole('columnheader', { name: /Balance/ }).getByRole('button').focus();
      await page().keyboard.press('Enter');
      await sorted;
      await page().waitForURL(/sort=balance/);
      await until(async () => /▼/.test(await table.getByRole('columnheader', { name: /Balance/ }).innerText()), 'the sort mark');
      expect(await table.getByRole('columnheader', { name: /Balance/ }).getAttribute('aria-sort')).toBe('descending');
      const first = table.getByRole('row').nth(1);
      await until(async () => new RegExp(`^${p}-ACME\\s`).test(await first.innerText()), 'the largest balance first');
      // The money columns have room for the amount ("1 234,50 $ US" in fr-CA): whole, right-aligned, digits lined up.
      const balance = first.getByRole('cell').nth(3);
      expect(spaces(await balance.innerText())).toBe(shown(123450, locale));
      const fit = await balance.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        const text = el.querySelector('span')!.getBoundingClientRect();
        const box = el.getBoundingClientRect();
        return { align: style.textAlign, numerals: style.fontVariantNumeric, inside: text.left >= box.left - 0.5 && text.right <= box.right + 0.5 };
      });
      expect(fit).toEqual({ align: 'right', numerals: 'tabular-nums', inside: true });
      // Its header stands over it: the head row's columns are as wide as the rows' (the same `ch`).
      const head = (await table.getByRole('columnheader', { name: /Balance/ }).boundingBox())!;
      const cell = (await balance.boundingBox())!;
      expect(Math.abs(head.x + head.width - (cell.x + cell.width))).toBeLessThan(1);
      await shot(page(), `backoffice-detail-customers-by-balance-${locale}`);
    });

    it('opens an invoice: its PDF in the page, a reminder in words, a dispute opened and closed, a comment', async () => {
      const pdf = page().waitForResponse((r) => r.url().includes(`/api/backoffice/invoices/${p}-INV-1/document`));
      await page().goto(`${url}/app/invoices/${p}-INV-1`);
      const res = await pdf;
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toMatch(/^application\/pdf/);
      expect(await res.request().headerValue('authorization')).toMatch(/^Bearer /);
      const frame = page().getByTitle(`Invoice ${p}-INV-1 (PDF)`);
      await frame.waitFor();
      expect(await frame.getAttribute('src')).toMatch(/^blob:/);
      expect(spaces(await page().getByLabel('Owing').innerText())).toBe(owing);
      // The customer by name, linked to its page, the ERP's identifier beside it.
      await page().getByRole('link', { name: `${p}-ACME Inc`, exact: true }).waitFor();
      // The customer's payment link, to copy into a message: it opens the click-to-pay page of this invoice.
      const payLink = await page().getByRole('link', { name: 'payment link' }).getAttribute('href');
      expect(payLink).toMatch(/\/pay\/[0-9]+-[A-Z0-9]+$/);
      const opened = await page().request.get(`${payLink}`);
      expect(opened.status()).toBe(200);
      // serve runs on 127.0.0.1 without --public-url here: the page says customers cannot open such a link.
      expect(await page().getByLabel('Payment link warning').innerText()).toContain('--public-url');
      // A reminder: the engine's counts, in words, and what became of its e-mail (sandbox: kept in the outbox).
      await page().getByRole('button', { name: 'Send a reminder' }).click();
      await until(async () => (await page().getByLabel('Reminder result').count()) > 0, 'the reminder result');
      await until(async () => /kept in the Outbox/.test(await page().getByLabel('Reminder result').innerText()), 'the reminder kept in the outbox');
      expect(await page().getByLabel('Reminder result').innerText()).toBe('Reminder for 1 invoice of 1 kept in the Outbox, not e-mailed: no mail relay is set (sandbox mode). Open the Outbox');
      // Once from this page: no second e-mail by a second press.
      expect(await page().getByRole('button', { name: 'Reminder kept (sandbox)' }).isDisabled()).toBe(true);
      // A dispute opened, then closed with a comment; then a plain comment.
      await field('Comment, or what the customer disputes').fill('The quantity is wrong: 8 widgets came, not 10.');
      await field('Raised by (to open a dispute)').fill(`billing@${p.toLowerCase()}-acme.test`);
      await page().getByRole('button', { name: 'Open a dispute' }).click();
      await seen(/disputed since/);
      await field('Comment, or how the dispute was resolved').fill('Credit note for 2 widgets sent.');
      await page().getByRole('button', { name: 'Close the dispute' }).click();
      await seen('no open dispute');
      await field('Comment, or what the customer disputes').fill('Called Bea: she agrees with the credit note.');
      await page().getByRole('button', { name: 'Add comment' }).click();
      const comments = page().getByRole('list', { name: 'Comments' });
      await comments.getByText('Called Bea: she agrees with the credit note.').waitFor();
      expect((await comments.getByRole('listitem').allInnerTexts()).map((t) => t.split('\n').pop())).toEqual([
        'The quantity is wrong: 8 widgets came, not 10.',
        'Credit note for 2 widgets sent.',
        'Called Bea: she agrees with the credit note.',
      ]);
      const disputes = await api<{ disputes: Array<{ invoice_number: string; closed_at: string | null }> }>('GET', '/api/exports/disputes?list=true');
      expect(disputes.disputes.filter((d) => d.invoice_number === `${p}-INV-1`).map((d) => d.closed_at !== null)).toEqual([true]);
      await page().waitForTimeout(800);
      expect(bo.pageErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
      await shot(page(), `backoffice-detail-invoice-${locale}`);
    });

    it('says why no reminder went out for a customer nobody was invited for', async () => {
      await page().goto(`${url}/app/invoices/${p}-INV-2`);
      // The API words taxes in English ("$1,000.50"); the screen shows them in its own locale.
      expect(spaces(await page().getByLabel('Taxes').innerText())).toBe(`Tax 1: ${shown(100050, locale)} · Tax 2: ${shown(0, locale)}`);
      await page().getByRole('button', { name: 'Send a reminder' }).click();
      await until(async () => (await page().getByLabel('Reminder result').count()) > 0, 'the reminder result');
      expect(await page().getByLabel('Reminder result').innerText()).toBe('No reminder sent: no contact of the customer has been invited yet.');
    });

    it("opens a payment and draws its tree: the invoice it paid and the credit it left", async () => {
      await api('POST', '/api/imports/payment', { identifier: `${p}-CHQ-1`, customer_identifier: `${p}-ACME`, amount_cents: 150000, external_payment_type: 'cheque', external_payment_number: '1042', payment_amounts_attributes: [{ invoice_number: `${p}-INV-1`, amount: 123450 }] });
      await page().goto(`${url}/app/payments/${p}-CHQ-1`);
      const tree = page().getByRole('tree', { name: 'Payment tree' });
      await tree.waitFor();
      const node = (kind: string) => tree.getByRole('treeitem', { name: kind });
      await node('Invoice').waitFor();
      expect(spaces(await node('Payment').innerText())).toContain(shown(150000, locale));
      // The method as the Record a payment form names it, not the stored value ("cheque").
      expect(spaces(await node('Payment').innerText())).toContain(' · Cheque 1042 · ');
      await page().getByText(/ · Cheque 1042$/).first().waitFor();
      expect(spaces(await node('Invoice').innerText())).toContain(`Invoice ${p}-INV-1`);
      expect(spaces(await node('Invoice').innerText())).toContain(shown(123450, locale));
      expect(spaces(await node('Credit').innerText())).toContain(shown(26550, locale));
      // The status in words; the reference's value (what an ERP reads) is its title.
      expect(await page().locator('.pill[title="PAID"]').innerText()).toBe('Paid');
      await shot(page(), `backoffice-detail-payment-${locale}`);

      // The credit it left goes on another open invoice, typed in the screen's locale.
      await api('POST', '/api/imports/invoice', { number: `${p}-INV-C`, customer_identifier: `${p}-ACME`, amount: 10000, date: '2026-01-07' });
      const form = page().getByRole('form', { name: 'Apply the credit' });
      const onC = form.getByLabel(`Apply to ${p}-INV-C`);
      await onC.waitFor();
      await onC.fill(locale === 'fr-CA' ? '100,01' : '100.01');
      await form.getByText(/More than .*INV-C owes/).waitFor();
      await onC.fill(locale === 'fr-CA' ? '99,50' : '99.50');
      expect(spaces(await form.getByLabel('Credit summary').innerText())).toBe(`Credit ${shown(26550, locale)} · applying ${shown(9950, locale)} · left ${shown(16600, locale)}`);
      await form.getByRole('button', { name: `Apply ${shown(9950, locale)}` }).click();
      await form.getByRole('status').getByText(`${shown(9950, locale)} applied.`).waitFor();
      await until(async () => spaces(await node('Credit').innerText()).includes(shown(16600, locale)), 'the credit left in the tree');
      expect((await api<{ owing_cents: number }>('GET', `/api/exports/invoice/${p}-INV-C`)).owing_cents).toBe(50);

      // A paid invoice with lines (no line-item short pay here): no line shown still owed, no reminder offered.
      await api('POST', '/api/imports/invoice', { number: `${p}-INV-L`, customer_identifier: `${p}-ACME`, date: '2026-01-05', line_item_attributes: [{ number: '1', description: 'Widget', quantity: 2, unit_cost_cents: 1500 }] });
      await api('POST', '/api/imports/payment', { identifier: `${p}-CHQ-L`, customer_identifier: `${p}-ACME`, amount_cents: 3000, invoice_number: `${p}-INV-L` });
      await page().goto(`${url}/app/invoices/${p}-INV-L`);
      await seen('Widget');
      // The line's quantity, unit price and amount, right-aligned as figures are.
      const line = page().getByRole('row', { name: /Widget/ });
      expect((await line.getByRole('cell').allInnerTexts()).map(spaces)).toEqual(['1', 'Widget', '2', shown(1500, locale), shown(3000, locale)]);
      expect(await line.getByRole('cell').nth(4).evaluate((td) => (globalThis as unknown as { getComputedStyle(e: unknown): { textAlign: string } }).getComputedStyle(td).textAlign)).toBe('right');
      expect(spaces(await page().getByLabel('Owing').innerText())).toBe(shown(0, locale));
      expect(await page().getByRole('columnheader', { name: 'Balance' }).count()).toBe(0);
      expect(await page().getByRole('button', { name: 'Send a reminder' }).count()).toBe(0);
    });
  });
}

describe('a clerk on the detail views', { timeout: 120_000 }, () => {
  it('sees invitations, reminders and comments, but not notes, parent, card removal or autopay', async () => {
    const owner = pages.get('en-US')!;
    const clerk = await bo.addUser(owner, { email: 'clerk@example.com', role: 'clerk', password: 'clerk password 1' });
    await clerk.goto(`${url}/app/customers/EN-ACME`);
    await clerk.getByRole('list', { name: 'Payment methods' }).getByText(/\*\*0006/).waitFor();
    await clerk.getByRole('button', { name: 'Send invitation' }).waitFor();
    for (const hidden of ['Save notes', 'Set parent', 'Remove', 'Turn autopay on', 'Turn autopay off']) expect(await clerk.getByRole('button', { name: hidden }).count(), hidden).toBe(0);
    expect(await clerk.getByText('Prefers e-mail. Net 30 agreed (en-US).').count()).toBe(1);
    // EN-INV-2 still owes (EN-INV-1 was paid above: no reminder is offered for it).
    await clerk.goto(`${url}/app/invoices/EN-INV-2`);
    await clerk.getByRole('button', { name: 'Send a reminder' }).waitFor();
    await clerk.getByRole('button', { name: 'Add comment' }).waitFor();
    // The edit form's address, opened anyway: said at once, no form that can only fail once filled in.
    await clerk.goto(`${url}/app/customers/EN-ACME/edit`);
    await clerk.getByText('Your role (clerk) may not edit a customer. Ask the owner or a manager.').waitFor();
    expect(await clerk.getByRole('button', { name: 'Save customer' }).count()).toBe(0);
  });
});

describe("autopay's held invoices on the customer page", { timeout: 120_000 }, () => {
  it('lists an invoice autopay leaves alone after its payment was refunded, with why and since when, in each locale', async () => {
    // Due before the engine's today: the next autopay run charges it.
    await api('POST', '/api/imports/customer', { identifier: 'HELD-1', name: 'Held Ltd' });
    await api('POST', '/api/imports/invoice', { number: 'HELD-INV-1', customer_identifier: 'HELD-1', amount: 4200, date: '2026-01-05', due_date: '2026-01-20' });
    const wallet = await api<{ fund_token: string }>('POST', '/api/gateway/v1/wallets', { customer: 'HELD-1', credit_card: card(VISA) });
    await api('POST', '/api/autopay', { customer_identifier: 'HELD-1', fund_token: wallet.fund_token });
    await api('POST', '/api/sandbox/v1/clock/advance', { by: 'P1D' });
    const paid = await api<{ owing_cents: number }>('GET', '/api/exports/invoice/HELD-INV-1');
    expect(paid.owing_cents).toBe(0);
    const { payments } = await api<{ payments: Array<{ customer_identifier: string; payment_transaction_token: string }> }>('GET', '/api/exports/payments?list=true&limit=1000');
    const sale = payments.find((x) => x.customer_identifier === 'HELD-1')!;
    expect((await api<{ success: boolean }>('POST', '/api/gateway/v1/orders/refund', { transaction: sale.payment_transaction_token })).success).toBe(true);
    // The next run takes the refund off the invoice and holds it rather than charge it again.
    await api('POST', '/api/sandbox/v1/clock/advance', { by: 'P1D' });
    expect((await api<{ owing_cents: number }>('GET', '/api/exports/invoice/HELD-INV-1')).owing_cents).toBe(4200);
    const { held_invoices: held } = await api<{ held_invoices: Array<{ invoice_number: string; held_at: string }> }>('GET', '/api/autopay?customer_identifier=HELD-1');
    expect(held.map((h) => h.invoice_number)).toEqual(['HELD-INV-1']);
    for (const [locale, p] of pages) {
      await p.goto(`${url}/app/customers/HELD-1`);
      const region = p.getByLabel('Invoices autopay leaves alone');
      await region.waitFor();
      const when = spaces(new Date(`${held[0]!.held_at.slice(0, 10)}T12:00:00`).toLocaleDateString(locale, { dateStyle: 'medium' }));
      expect(spaces(await region.innerText())).toContain(`HELD-INV-1: its payment was refunded (${when})`);
      expect(await region.innerText()).toContain('Turning autopay off and on again');
    }
  });
});
