import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { basicAuth, useHarness } from '../helpers/harness';
import { pdfLayoutText } from '../helpers/pdf';
import { uid, withCapabilities } from '../helpers/receivables';

/**
 * The invoice's own rendering (what a reminder attaches and the back office opens when the ERP
 * sent no PDF), read back with pdftotext: who it is from and to, its numbers and dates, each
 * line, the sums to the balance owing, in the customer's locale; a long invoice over several
 * pages. Pages are written to test-output/invoice-pdf/ as PNG to look at.
 */
const h = useHarness({ api: true });

const OUT = join(process.cwd(), 'test-output', 'invoice-pdf');

async function documentOf(number: string, name: string): Promise<{ text: string; pages: number }> {
  const res = await fetch(`${h.api.url}/api/backoffice/invoices/${encodeURIComponent(number)}/document`, { headers: { Authorization: basicAuth() } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/pdf');
  const pdf = Buffer.from(await res.arrayBuffer());
  mkdirSync(OUT, { recursive: true });
  for (const f of readdirSync(OUT).filter((f) => f.startsWith(`${name}`))) rmSync(join(OUT, f));
  writeFileSync(join(OUT, `${name}.pdf`), pdf);
  execFileSync('pdftoppm', ['-png', '-r', '70', join(OUT, `${name}.pdf`), join(OUT, name)]);
  return pdfLayoutText(pdf);
}

async function customer(fields: Record<string, unknown>): Promise<string> {
  const identifier = uid('C');
  const res = await h.api.post('/api/imports/customer', { identifier, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return identifier;
}

async function invoice(fields: Record<string, unknown>): Promise<string> {
  const number = uid('INV-');
  const res = await h.api.post('/api/imports/invoice', { number, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return number;
}

describe('the invoice PDF', () => {
  it('is a real invoice: supplier, customer, numbers and dates, every line, the sums to the balance, in the customer’s locale', async () => {
    await h.t.engine.account.update({ name: 'Laneway Coffee Roasters', address_1: '12 Bank Street', city: 'Ottawa', province: 'ON', postal_code: 'K1P 5N2', country: 'CA', business_number: '123456789RT0001' });
    const c = await customer({ name: 'Épicerie Côté Ltée', locale: 'fr', country: 'CA', address_1: '350 rue Saint-Paul', city: 'Montréal', province: 'QC', postal_code: 'H2Y 1H2' });
    const number = await invoice({
      customer_identifier: c,
      currency: 'cad',
      date: '2026-03-01',
      due_date: '2026-03-31',
      purchase_order_number: 'PO-7781',
      shipping_name: 'Café Côté, back door',
      shipping_address_1: '12 rue de la Commune',
      shipping_city: 'Montréal',
      shipping_province: 'QC',
      shipping_postal_code: 'H2Y 2C6',
      shipping_country: 'CA',
      subtotal_tax1: 8410,
      subtotal_tax2: 16778,
      adjustments_attributes: [{ label: 'Fuel surcharge', amount: 1500 }],
      notes_text: 'Thank you for your order. Deliveries on Tuesdays.',
      line_item_attributes: [
        { description: 'Espresso beans, 1 kg bag', quantity: 60, unit_cost_cents: 2450 },
        { description: 'Oat milk, case of 6', quantity: 3, unit_cost_cents: 1899 },
        { description: 'Paper cups, 12 oz (sleeve of 50)', quantity: 2.5, unit_cost_cents: 1200, purchase_order_number: 'PO-7790' },
        { description: 'Grinder service call', quantity: 1, unit_cost_cents: 12500 },
      ],
    });
    expect((await h.api.post('/api/imports/payment', { identifier: uid('P'), invoice_number: number, amount_cents: 50000, currency: 'cad', date: '2026-03-10' })).status).toBe(201);

    const { text, pages } = await documentOf(number, 'several-lines');
    expect(pages).toBe(1);
    // Who it is from: the account's profile.
    for (const s of ['Laneway Coffee Roasters', '12 Bank Street', 'Ottawa, ON K1P 5N2', 'Canada', 'Business number: 123456789RT0001']) expect(text).toContain(s);
    // Its numbers and dates.
    for (const s of [`Invoice number: ${number}`, 'Invoice date: 2026-03-01', 'Due date: 2026-03-31', 'PO number: PO-7781', 'Currency: CAD']) expect(text).toContain(s);
    // Who it is to: the customer on file, and where it ships.
    for (const s of ['BILL TO', 'Épicerie Côté Ltée', `Customer ID: ${c}`, '350 rue Saint-Paul', 'Montréal, QC H2Y 1H2', 'SHIP TO', 'Café Côté, back door', '12 rue de la Commune']) expect(text).toContain(s);
    // Every line with its quantity, unit price and amount, in fr-CA ("1 470,00 $", "2,5"); a line's own PO.
    expect(text).toMatch(/Description\s+Quantity\s+Unit price\s+Amount/);
    expect(text).toMatch(/Espresso beans, 1 kg bag\s+60\s+24,50 \$\s+1 470,00 \$/);
    expect(text).toMatch(/Oat milk, case of 6\s+3\s+18,99 \$\s+56,97 \$/);
    expect(text).toMatch(/Paper cups, 12 oz \(sleeve of 50\)\s+2,5\s+12,00 \$\s+30,00 \$/);
    expect(text).toContain('PO PO-7790');
    expect(text).toMatch(/Grinder service call\s+1\s+125,00 \$\s+125,00 \$/);
    // The sums: lines 1 681,97 + taxes 84,10 and 167,78 = 1 933,85; 500,00 paid leaves 1 433,85.
    expect(text).toMatch(/Subtotal\s+1 681,97 \$/);
    expect(text).toMatch(/Tax 1\s+84,10 \$/);
    expect(text).toMatch(/Tax 2\s+167,78 \$/);
    expect(text).toMatch(/Total \(CAD\)\s+1 933,85 \$/);
    expect(text).toMatch(/Amount paid\s+500,00 \$/);
    expect(text).toMatch(/Balance owing\s+1 433,85 \$/);
    expect(text).toContain('Balance owing: 1 433,85 $');
    // Adjustments beside the total, not in it; the supplier's notes; the page's footer.
    expect(text).toContain('Adjustments (shown with the invoice, not included in the total)');
    expect(text).toContain('Fuel surcharge: 15,00 $');
    expect(text).toContain('Thank you for your order. Deliveries on Tuesdays.');
    expect(text).toContain(`Laneway Coffee Roasters · Invoice ${number} · Page 1 of 1`);
    expect(text).not.toContain('The total is the invoice amount as issued');
  });

  it('flows a 60-line invoice onto more pages, the lines’ header on each, the sums once at the end', async () => {
    const c = await customer({ name: 'Northwind Traders', address_1: '1 Harbour Road', city: 'Halifax', province: 'NS', postal_code: 'B3J 1A1', country: 'CA' });
    const lines = Array.from({ length: 60 }, (_, i) => ({ description: `Item ${String(i + 1).padStart(2, '0')}: roasted coffee, blend ${i + 1}`, quantity: i + 1, unit_cost_cents: 1000 + i }));
    const number = await invoice({ customer_identifier: c, date: '2026-03-01', due_date: '2026-04-01', line_item_attributes: lines });
    const { text, pages } = await documentOf(number, 'sixty-lines');
    expect(pages).toBeGreaterThanOrEqual(2);
    for (let i = 1; i <= 60; i++) expect(text, `line ${i}`).toContain(`Item ${String(i).padStart(2, '0')}: roasted coffee, blend ${i}`);
    // In order, each once.
    const at = Array.from({ length: 60 }, (_, i) => text.indexOf(`Item ${String(i + 1).padStart(2, '0')}:`));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(text.match(/Description\s+Quantity\s+Unit price\s+Amount/g)?.length).toBe(pages);
    expect(text.match(/\(continued\)/g)?.length).toBe(pages - 1);
    for (let p = 1; p <= pages; p++) expect(text).toContain(`Invoice ${number} · Page ${p} of ${pages}`);
    // No customer locale on file: the currency's home format (USD, en-US). Σ (i+1)(1000+i) for i < 60.
    const subtotal = lines.reduce((s, l) => s + l.quantity * l.unit_cost_cents, 0);
    const dollars = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    expect(text).toMatch(new RegExp(`Item 60: roasted coffee, blend 60\\s+60\\s+\\$10\\.59\\s+\\$635\\.40`));
    expect(text).toMatch(new RegExp(`Subtotal\\s+${dollars(subtotal).replace(/[$.]/g, '\\$&')}`));
    expect(text).toMatch(/Tax\s+\$0\.00/);
    expect(text).toMatch(new RegExp(`Balance owing\\s+${dollars(subtotal).replace(/[$.]/g, '\\$&')}`));
    // The sums come after the last line, on the last page.
    expect(text.lastIndexOf('Balance owing')).toBeGreaterThan(text.indexOf('Item 60:'));
    expect(text.slice(text.lastIndexOf('\f', text.indexOf('Subtotal')) + 1)).toContain(`Page ${pages} of ${pages}`);
  });

  it('goes on with a description longer than a page in rows of its own, every word kept', async () => {
    const c = await customer({ name: 'Long Winded Ltd.' });
    // 3,841 characters: taller than a page in the description column.
    const words = Array.from({ length: 790 }, (_, i) => `w${i + 1}`);
    const number = await invoice({ customer_identifier: c, date: '2026-03-01', line_item_attributes: [{ description: words.join(' '), quantity: 1, unit_cost_cents: 5000 }, { description: 'After the long one', quantity: 2, unit_cost_cents: 100 }] });
    const { text, pages } = await documentOf(number, 'long-line');
    expect(pages).toBeGreaterThanOrEqual(2);
    const seen = text.match(/\bw\d+\b/g) ?? [];
    expect(seen).toEqual(words);
    // It starts on the first page, under the header, with its figures; the rest follows on the next.
    const first = text.slice(0, text.indexOf('\f'));
    expect(first).toMatch(/^\s*w1 w2 .*\s1\s+\$50\.00\s+\$50\.00/m);
    expect(text.indexOf('(continued)')).toBeGreaterThan(first.length);
    expect(text).toMatch(/After the long one\s+2\s+\$1\.00\s+\$2\.00/);
    expect(text).toMatch(/Total \(USD\)\s+\$52\.00/);
  });

  it('prints Latin letters beyond WinAnsi as typed (Zakład Łódź, −), and fr-FR amounts with their spaces', async () => {
    const c = await customer({ name: 'Zakład Łódź 東京', locale: 'fr', country: 'FR', city: 'Paris' });
    const number = await invoice({ customer_identifier: c, currency: 'eur', date: '2026-03-01', line_item_attributes: [{ description: 'Café crème − grande', quantity: 1000, unit_cost_cents: 123 }] });
    const { text } = await documentOf(number, 'fonts');
    expect(text).toContain('Zakład Łódź 東京');
    expect(text).toContain('Paris');
    expect(text).toMatch(/Café crème − grande\s+1 000\s+1,23 €\s+1 230,00 €/);
    expect(text).toMatch(/Balance owing\s+1 230,00 €/);
  });

  it('prints a customer, lines and notes in Japanese, Chinese, Korean, Cyrillic, Greek, Arabic and Hebrew: every character comes back from the PDF', async () => {
    const name = '田中コーヒー 3 (本店)';
    const address = '丸の内1-2-3';
    const c = await customer({ name, country: 'JP', address_1: address, city: '千代田区' });
    const descriptions = ['コーヒー豆 ブレンド 1kg', '北京烤鸭礼盒，两只装', '서울 커피 원두 500g', 'Кофе в зёрнах, Эфиопия', 'Καφές φίλτρου, Ελλάδα', 'قهوة عربية بالهيل', 'קפה טחון דק'];
    const notes = ['毎週火曜日に配送します。', '谢谢惠顾，欢迎再来。', '주문해 주셔서 감사합니다.', 'Спасибо за заказ!', 'Ευχαριστούμε πολύ!', 'شكرا لكم على طلبكم'];
    const number = await invoice({
      customer_identifier: c,
      currency: 'jpy',
      date: '2026-03-01',
      notes_text: notes.join('\n'),
      line_item_attributes: descriptions.map((description, i) => ({ description, quantity: i + 1, unit_cost_cents: 1250 })),
    });
    const { text } = await documentOf(number, 'scripts');
    // Each once, where it belongs: the name in the Bill to block (the footer carries the supplier's).
    for (const s of [name, address, ...descriptions, ...notes]) expect(text.split(s).length - 1, s).toBe(1);
    // The defect drew each of them as "?": none is left, nor any character marked as missing.
    expect(text).not.toContain('?');
    expect(text).not.toContain('[U+');
  });

  it('offers an early-payment discount still open, and says the total is the amount as issued when the ERP set it', async () => {
    await withCapabilities(h, { discounts: true }, async () => {
      const c = await customer({ name: 'Acme Inc.' });
      const number = await invoice({
        customer_identifier: c,
        date: '2026-03-01',
        amount: 45000,
        amount_override: true,
        discount_amount_cents: 900,
        discount_expiry_date: '2026-03-15',
        line_item_attributes: [{ description: 'Consulting, March', quantity: 4, unit_cost_cents: 10000 }],
      });
      const { text } = await documentOf(number, 'discount');
      expect(text).toMatch(/Subtotal\s+\$400\.00/);
      expect(text).toMatch(/Total \(USD\)\s+\$450\.00/);
      expect(text).toContain('The total is the invoice amount as issued, not the lines and taxes added up.');
      expect(text).toContain('Pay $441.00 in full by 2026-03-15 and $9.00 is taken off.');
    });
  });
});
