import { openPdf, drawTableRow, tableRowHeight, MARGIN, ROW, type Align, type Column, type RowStyle } from '../pdf-kit';
import type { GlyphLog, PdfText } from '../pdf-text';
import { recordsByRef } from '../records';
import type { EngineCore } from '../core';
import type { AccountProfile } from '../account/profile';
import { addressLines, type InvoiceDocument } from '../receivables/invoice-document';
import { defaultLocale, formatMoney } from '../../shared/money';

/** Who the invoice is from, as the account's profile has it. */
export interface Supplier {
  name: string;
  address: string[];
  business_number: string | null;
}

export const supplierOf = (profile: AccountProfile): Supplier => ({ name: profile.name, address: addressLines(profile), business_number: profile.business_number });

interface StoredAttachment {
  invoice: string;
  file_name: string;
  invoice_display: boolean;
  content_base64: string;
}

/**
 * The invoice's PDF for an email or the back office: its stored primary attachment (what the
 * supplier uploaded as the invoice document), else a rendering of the invoice made here.
 */
export async function invoicePdf(core: EngineCore, invoice: InvoiceDocument, supplier: Supplier): Promise<{ file_name: string; content: Buffer }> {
  const stored = (await recordsByRef<StoredAttachment>(core, 'invoice_attachment', invoice.number)).map((r) => r.data).find((a) => a.invoice_display);
  if (stored) return { file_name: stored.file_name, content: Buffer.from(stored.content_base64, 'base64') };
  return { file_name: `invoice-${invoice.number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`, content: await renderInvoicePdf(invoice, supplier, core.logger) };
}

const MUTED = '#555';

/**
 * The invoice as a customer files it: who it is from and to, its dates and numbers, every line,
 * the sums down to the balance owing, then what the supplier noted. The lines break across pages
 * and repeat their header; every page carries the invoice number and its page number. Amounts are
 * in the customer's locale when it is on file; the figures are the document's, formatted only.
 * Every character of the supplier's and customer's text is drawn, in whatever script (pdf-text.ts).
 */
export async function renderInvoicePdf(inv: InvoiceDocument, supplier: Supplier, log?: GlyphLog): Promise<Buffer> {
  const { doc, text: t, done } = await openPdf({ info: { Title: `Invoice ${inv.display_number}`, Author: supplier.name }, log });
  const money = (cents: number) => formatMoney(cents, inv.currency, { locale: inv.locale });
  const width = doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - MARGIN - 20;

  header(t, inv, supplier, money, width);
  parties(t, inv, width);
  if (inv.lines.length > 0) lines(t, inv, money, width, bottom);
  totals(t, inv, money, width, bottom);
  remarks(t, inv, money, width, bottom);

  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    // Writing below the bottom margin would start a new page: lift it for the footer.
    const saved = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    t.text(`${supplier.name} · Invoice ${inv.display_number} · Page ${i + 1} of ${range.count}`, { x: MARGIN, y: doc.page.height - MARGIN + 10, width, align: 'center', lineBreak: false }, { size: 8, color: MUTED });
    doc.page.margins.bottom = saved;
  }
  doc.end();
  return done;
}

function header(t: PdfText, inv: InvoiceDocument, supplier: Supplier, money: (c: number) => string, width: number): void {
  const { doc } = t;
  const left = width * 0.55;
  const small = { size: 9, color: '#333' };
  t.text(supplier.name, { x: MARGIN, y: MARGIN, width: left }, { size: 16, face: 'bold' });
  for (const line of supplier.address) t.text(line, { width: left }, small);
  if (supplier.business_number) t.text(`Business number: ${supplier.business_number}`, { width: left }, small);
  const leftEnd = doc.y;

  const right = { width, align: 'right' as const };
  t.text(inv.deleted ? 'Invoice (cancelled)' : 'Invoice', { x: MARGIN, y: MARGIN, ...right }, { size: 20, face: 'bold' });
  const facts: Array<[string, string | null]> = [
    ['Invoice number', inv.display_number],
    ['Invoice date', inv.date],
    ['Due date', inv.due_date],
    ['Order date', inv.order_date],
    ['PO number', inv.purchase_order_number],
    ['Currency', inv.currency],
  ];
  for (const [label, value] of facts) if (value) t.text(`${label}: ${value}`, right, small);
  doc.moveDown(0.3);
  t.text(`Balance owing: ${money(inv.owing_cents)}`, right, { size: 11, face: 'bold' });
  doc.y = Math.max(leftEnd, doc.y) + 10;
  doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + width, doc.y).lineWidth(1).strokeColor('#000').stroke();
  doc.moveDown(0.8);
}

/** Bill to (the customer on file), and Ship to beside it when the invoice names one. */
function parties(t: PdfText, inv: InvoiceDocument, width: number): void {
  const { doc } = t;
  const top = doc.y;
  const column = width / 2 - 10;
  const block = (x: number, title: string, name: string | null, rest: string[]) => {
    t.text(title.toUpperCase(), { x, y: top, width: column }, { size: 8, face: 'bold', color: MUTED });
    if (name) t.text(name, { x, width: column }, { size: 11, face: 'bold' });
    for (const line of rest) t.text(line, { x, width: column }, { size: 9, color: '#333' });
    return doc.y;
  };
  const billed = block(MARGIN, 'Bill to', inv.customer.name, [`Customer ID: ${inv.customer.identifier}`, ...inv.customer.address]);
  const shipped = inv.ship_to ? block(MARGIN + width / 2 + 10, 'Ship to', inv.ship_to.name, inv.ship_to.address) : top;
  doc.x = MARGIN;
  doc.y = Math.max(billed, shipped) + 14;
}

function lines(t: PdfText, inv: InvoiceDocument, money: (c: number) => string, width: number, bottom: () => number): void {
  const { doc } = t;
  const c = (w: number, title: string, align: Align = 'right'): Column => ({ title, width: w * width, align });
  const columns = [c(0.5, 'Description', 'left'), c(0.12, 'Quantity'), c(0.18, 'Unit price'), c(0.2, 'Amount')];
  const quantity = new Intl.NumberFormat(inv.locale ?? defaultLocale(inv.currency), { maximumFractionDigits: 4 });
  const head = () => drawRow(t, columns, columns.map((x) => x.title), { bold: true, shade: '#e8ecf1' });
  if (doc.y + 2 * ROW > bottom()) doc.addPage();
  head();
  // The tallest row a fresh page holds under its "(continued)" line and the header row.
  const tallest = bottom() - MARGIN - 3 * ROW;
  inv.lines.forEach((l, i) => {
    // A line's own PO is said when it is not the invoice's.
    const po = l.purchase_order_number && l.purchase_order_number !== inv.purchase_order_number ? `\nPO ${l.purchase_order_number}` : '';
    const description = `${l.description ?? `Line ${l.number}`}${po}`;
    const figures = [l.quantity === null ? '' : quantity.format(l.quantity), l.unit_cost_cents === null ? '' : money(l.unit_cost_cents), money(l.amount_cents)];
    // A description longer than a page (the API takes 4,000 characters) goes on in rows of its own,
    // starting in what is left of this page.
    const room = bottom() - doc.y - 5;
    const parts = splitToHeight(t, description, columns[0]!.width - 6, room > 2 * ROW ? room : tallest, tallest);
    parts.forEach((part, at) => {
      const cells = [part, ...(at === 0 ? figures : ['', '', ''])];
      if (doc.y + rowHeight(t, columns, cells) > bottom()) {
        doc.addPage();
        t.text(`Invoice ${inv.display_number} (continued)`, { x: MARGIN, width }, { size: 8, face: 'oblique', color: MUTED });
        doc.moveDown(0.2);
        head();
      }
      drawRow(t, columns, cells, { shade: i % 2 ? '#f7f7f7' : undefined });
    });
  });
  doc.moveDown(0.6);
}

/** Subtotal, taxes, total, paid and owing, right-aligned and kept on one page. */
function totals(t: PdfText, inv: InvoiceDocument, money: (c: number) => string, width: number, bottom: () => number): void {
  const { doc } = t;
  const rows: Array<[string, string, 'bold' | 'rule' | '']> = [
    ...(inv.subtotal_cents === null ? [] : [['Subtotal', money(inv.subtotal_cents), ''] as [string, string, '']]),
    ...inv.taxes.map((t) => [t.label, money(t.amount_cents), ''] as [string, string, '']),
    [`Total (${inv.currency})`, money(inv.total_cents), 'rule'],
    ['Amount paid', money(inv.paid_cents), ''],
    ['Balance owing', money(inv.owing_cents), 'bold'],
  ];
  if (doc.y + rows.length * 15 + 10 > bottom()) doc.addPage();
  const w = width * 0.45;
  const x = MARGIN + width - w;
  for (const [label, value, style] of rows) {
    const y = doc.y;
    if (style === 'rule') doc.moveTo(x, y - 2).lineTo(x + w, y - 2).lineWidth(0.8).strokeColor('#000').stroke();
    const type = style ? { size: 10.5, face: 'bold' as const } : { size: 9.5 };
    t.text(label, { x, y, width: w * 0.5, lineBreak: false }, type);
    t.text(value, { x: x + w * 0.5, y, width: w * 0.5, align: 'right', lineBreak: false }, type);
    doc.y = y + 15;
  }
  doc.x = MARGIN;
  const added = (inv.subtotal_cents ?? 0) + inv.taxes.reduce((s, t) => s + t.amount_cents, 0);
  // An amount the ERP set (an override, a pro-rated amount) is the total: said, so the sums do not look wrong.
  if (inv.subtotal_cents !== null && added !== inv.total_cents) {
    t.text('The total is the invoice amount as issued, not the lines and taxes added up.', { x: MARGIN, width, align: 'right' }, { size: 8, face: 'oblique', color: MUTED });
  }
  doc.x = MARGIN;
  doc.moveDown(0.8);
}

/** The early-payment discount still open, adjustments, notes: each only when there is one. */
function remarks(t: PdfText, inv: InvoiceDocument, money: (c: number) => string, width: number, bottom: () => number): void {
  const { doc } = t;
  const paragraph = (title: string, text: string) => {
    const body = { size: 9, color: '#333' };
    if (doc.y + 14 + t.heightOf(text, width, body) > bottom()) doc.addPage();
    t.text(title, { x: MARGIN, width }, { size: 9, face: 'bold' });
    t.text(text, { x: MARGIN, width }, body);
    doc.moveDown(0.6);
  };
  const d = inv.early_discount;
  if (d) paragraph('Early-payment discount', `Pay ${money(inv.owing_cents - d.amount_cents)} in full by ${d.pay_by} and ${money(d.amount_cents)} is taken off.`);
  if (inv.adjustments.length > 0) {
    paragraph('Adjustments (shown with the invoice, not included in the total)', inv.adjustments.map((a) => `${a.label ?? 'Adjustment'}: ${money(a.amount_cents)}`).join('\n'));
  }
  if (inv.notes) paragraph('Notes', inv.notes);
}

/**
 * Text cut between its lines into parts in a column `width` wide: the first at most `first` tall,
 * the others `rest`; one part when the whole fits in `rest` (it then moves to the next page whole,
 * as any row).
 */
function splitToHeight(t: PdfText, text: string, width: number, first: number, rest: number): string[] {
  const type = { size: 9 };
  if (t.heightOf(text, width, type) <= rest) return [text];
  const lineHeight = t.heightOf('x', width, type);
  const parts: string[] = [];
  let current: string[] = [];
  for (const line of t.wrap(text, width, type)) {
    if (current.length > 0 && (current.length + 1) * lineHeight > (parts.length === 0 ? first : rest)) {
      parts.push(current.join('').trimEnd());
      current = [];
    }
    current.push(line);
  }
  if (current.join('').trim()) parts.push(current.join('').trimEnd());
  return parts;
}

/** The invoice's tables, in 9-point type. */
const rowHeight = (t: PdfText, columns: Column[], cells: string[], bold?: boolean) => tableRowHeight(t, columns, cells, { size: 9, bold });
const drawRow = (t: PdfText, columns: Column[], cells: string[], style: Omit<RowStyle, 'size'>) => drawTableRow(t, columns, cells, { ...style, size: 9 });
