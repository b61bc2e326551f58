/**
 * Invoice PDF benchmark: the same invoice with Latin text only and with its customer, lines and
 * notes in other scripts (Japanese, Chinese, Korean, Cyrillic, Greek, Arabic, Hebrew, Thai,
 * Devanagari). The first rendering of a process pays for loading pdfkit and the fonts; the others
 * are what a reminder run or the back office pays per invoice.
 *
 *   npm run bench:pdf -- --runs 50
 */
import { renderInvoicePdf } from '../src/engine/notifications/pdf';
import type { InvoiceDocument } from '../src/engine/receivables/invoice-document';
import { arg } from './args';

const RUNS = arg('runs', 50);

const supplier = { name: 'Laneway Coffee Roasters', address: ['12 Bank Street', 'Ottawa, ON K1P 5N2', 'Canada'], business_number: '123456789RT0001' };

function invoice(name: string, descriptions: string[], notes: string): InvoiceDocument {
  const lines = Array.from({ length: 20 }, (_, i) => ({ number: String(i + 1), description: descriptions[i % descriptions.length]!, purchase_order_number: null, quantity: i + 1, unit_cost_cents: 1250 + i, amount_cents: (i + 1) * (1250 + i) }));
  const subtotal = lines.reduce((s, l) => s + l.amount_cents, 0);
  return {
    number: 'INV-1001', display_number: 'INV-1001', currency: 'USD', locale: undefined, date: '2026-03-01', due_date: '2026-03-31', order_date: null, purchase_order_number: 'PO-7781',
    customer: { identifier: 'C-1', name, address: ['1-2-3 Marunouchi', 'Tokyo 100-0005', 'Japan'] }, ship_to: null, lines,
    subtotal_cents: subtotal, taxes: [{ label: 'Tax', amount_cents: 0 }], adjustments: [], total_cents: subtotal, paid_cents: 0, owing_cents: subtotal, early_discount: null, notes, deleted: false,
  };
}

const cases: Array<[string, InvoiceDocument]> = [
  ['latin', invoice('Épicerie Côté Ltée', ['Espresso beans, 1 kg bag', 'Oat milk, case of 6', 'Grinder service call'], 'Thank you for your order. Deliveries on Tuesdays.')],
  [
    'scripts',
    invoice(
      '田中コーヒー 3 (本店)',
      ['コーヒー豆 1kg', '北京烤鸭 礼盒', '臺灣烏龍茶', '서울 커피 원두', 'Кофе в зёрнах', 'Καφές φίλτρου', 'قهوة عربية 250 غ', 'קפה טחון', 'กาแฟคั่วเข้ม', 'कॉफ़ी बीन्स'],
      '毎週火曜日に配送します。 谢谢惠顾。 감사합니다. Спасибо. Ευχαριστούμε. شكرا لكم.',
    ),
  ],
];

async function main(): Promise<void> {
  const first = new Map<string, { ms: number; bytes: number }>();
  for (const [name, doc] of cases) {
    const t = performance.now();
    const pdf = await renderInvoicePdf(doc, supplier);
    first.set(name, { ms: performance.now() - t, bytes: pdf.length });
  }
  for (const [name, doc] of cases) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < RUNS; i++) await renderInvoicePdf(doc, supplier);
    const each = (performance.now() - t) / RUNS;
    const used = process.cpuUsage(cpu);
    // CPU time as well: on a shared machine the wall time moves with the neighbours' load.
    const cpuEach = (used.user + used.system) / 1000 / RUNS;
    const f = first.get(name)!;
    console.log(`invoice PDF, ${name.padEnd(8)} ${(f.bytes / 1024).toFixed(1).padStart(6)} KB   first ${f.ms.toFixed(0).padStart(5)} ms   then ${each.toFixed(1).padStart(6)} ms each, ${cpuEach.toFixed(1).padStart(6)} ms CPU (${RUNS} runs)`);
  }
}

await main();
