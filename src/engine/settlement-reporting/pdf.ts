import { loadPdfKit, drawTableRow, tableRowHeight, MARGIN, ROW, type Align, type Column, type RowStyle } from '../pdf-kit';
import { formatMoney } from '../../shared/money';
import { brandName, tenderGroupName } from '../../shared/card-brands';
import type { Statement } from './statements';

/**
 * The statement as a PDF a bookkeeper files: the shop's name and address, the period, the summary,
 * a chart of daily volume, then the tables (daily deposits, fees, exceptions, volume by brand and by
 * tender). Tables break across pages and repeat their header row; every page carries the
 * statement's identifier and page number. The figures are the JSON's, formatted here only.
 */

export async function renderStatementPdf(s: Statement): Promise<Buffer> {
  const PDFDocument = await loadPdfKit();
  const doc = new PDFDocument({ size: 'LETTER', margin: MARGIN, bufferPages: true, info: { Title: `Statement ${s.identifier} ${s.start_date} to ${s.end_date}`, Author: s.merchant.name } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  const money = (cents: number) => formatMoney(cents, s.currency);
  const width = doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - MARGIN - 20;

  header(doc, s, width);
  summary(doc, s, money, width);
  chart(doc, s, money, width);

  const table = (title: string, columns: Column[], rows: string[][], totals?: string[]) => {
    if (doc.y + 3 * ROW + 20 > bottom()) doc.addPage();
    doc.moveDown(0.8).font('Helvetica-Bold').fontSize(11).fillColor('#000').text(title, MARGIN, doc.y);
    doc.moveDown(0.3);
    const head = () => drawRow(doc, columns, columns.map((c) => c.title), { bold: true, shade: '#e8ecf1' });
    head();
    rows.forEach((r, i) => {
      if (doc.y + rowHeight(doc, columns, r) > bottom()) {
        doc.addPage();
        doc.font('Helvetica-Oblique').fontSize(8).fillColor('#555').text(`${title} (continued)`, MARGIN, doc.y);
        doc.moveDown(0.2);
        head();
      }
      drawRow(doc, columns, r, { shade: i % 2 ? '#f7f7f7' : undefined });
    });
    if (rows.length === 0) drawRow(doc, columns, [`None this period`, ...columns.slice(1).map(() => '')], {});
    if (totals) {
      if (doc.y + ROW > bottom()) doc.addPage();
      drawRow(doc, columns, totals, { bold: true, rule: true });
    }
  };

  const t = s.totals;
  const c = (w: number, title: string, align: Align = 'right'): Column => ({ title, width: w * width, align });
  table(
    'Daily deposits',
    [c(0.17, 'Processing day', 'left'), c(0.08, 'Count'), c(0.16, 'Sales'), c(0.14, 'Refunds'), c(0.12, 'Fees'), c(0.17, 'Deposit'), c(0.16, 'Deposited on')],
    s.daily.map((d) => [String(d.date), String(d.transaction_count), money(Number(d.sales_cents)), money(Number(d.refunds_cents)), money(Number(d.fees_cents)), money(Number(d.deposit_cents)), String(d.deposit_date)]),
    ['Total', String(t.transaction_count), money(t.sales_cents), money(t.refunds_cents), money(t.fees_cents), money(t.net_cents), ''],
  );
  table(
    'Batch deposits',
    [c(0.17, 'Processing day', 'left'), c(0.1, 'Tender', 'left'), c(0.07, 'Count'), c(0.14, 'Sales'), c(0.12, 'Refunds'), c(0.1, 'Fees'), c(0.15, 'Deposit'), c(0.15, 'Deposited on')],
    s.batches.map((x) => [x.processing_date, tenderShort(x.tender), String(x.transaction_count), money(x.sales_cents), money(x.refunds_cents), money(x.fees_cents), money(x.deposit_cents), x.deposit_date]),
    ['Total', '', String(t.transaction_count), money(t.sales_cents), money(t.refunds_cents), money(t.fees_cents), money(t.net_cents), ''],
  );
  table('Fees by kind', [c(0.6, 'Fee', 'left'), c(0.4, 'Amount')], s.fees.map((f) => [feeName(f.fee_type), money(f.amount_cents)]), ['Total fees', money(t.fees_cents)]);
  table(
    'Exceptions (returns and chargebacks)',
    [c(0.11, 'Date', 'left'), c(0.115, 'Type', 'left'), c(0.335, 'Reason', 'left'), c(0.19, 'Transaction', 'left'), c(0.13, 'Order', 'left'), c(0.12, 'Amount')],
    s.exceptions.map((e) => [e.date, e.exception_type, e.description, e.transaction, e.order ?? '', money(e.amount_cents)]),
    ['Total', '', '', '', '', money(t.exceptions_cents)],
  );
  const volume = (key: string) => [c(0.28, key, 'left'), c(0.14, 'Count'), c(0.2, 'Sales'), c(0.18, 'Refunds'), c(0.2, 'Net')];
  const volumeTotal = ['Total', String(t.transaction_count), money(t.sales_cents), money(t.refunds_cents), money(t.net_sales_cents)];
  table('Volume by card brand', volume('Brand'), s.volume_by_brand.map((v) => [brandName(v.brand), String(v.count), money(v.sales_cents), money(v.refunds_cents), money(v.net_cents)]), volumeTotal);
  table('Volume by tender', volume('Tender'), s.volume_by_tender.map((v) => [tenderGroupName(v.tender), String(v.count), money(v.sales_cents), money(v.refunds_cents), money(v.net_cents)]), volumeTotal);

  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    // Writing below the bottom margin would start a new page: lift it for the footer.
    const saved = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('Helvetica').fontSize(8).fillColor('#555').text(`${s.merchant.name} · Statement ${s.identifier} · ${s.start_date} to ${s.end_date} · Page ${i + 1} of ${range.count}`, MARGIN, doc.page.height - MARGIN + 10, { width, align: 'center', lineBreak: false });
    doc.page.margins.bottom = saved;
  }
  doc.end();
  return done;
}

/** The statement's tables, in 8.5-point type (more columns than an invoice's). */
const rowHeight = (doc: PDFKit.PDFDocument, columns: Column[], cells: string[], bold?: boolean) => tableRowHeight(doc, columns, cells, { size: 8.5, bold });
const drawRow = (doc: PDFKit.PDFDocument, columns: Column[], cells: string[], style: Omit<RowStyle, 'size'>) => drawTableRow(doc, columns, cells, { ...style, size: 8.5 });

function header(doc: PDFKit.PDFDocument, s: Statement, width: number): void {
  doc.font('Helvetica-Bold').fontSize(16).fillColor('#000').text(s.merchant.name, MARGIN, MARGIN);
  doc.font('Helvetica').fontSize(9).fillColor('#333');
  for (const line of s.merchant.address) doc.text(line);
  const top = MARGIN;
  doc.font('Helvetica-Bold').fontSize(13).fillColor('#000').text('Monthly settlement statement', MARGIN, top, { width, align: 'right' });
  doc.font('Helvetica').fontSize(9).fillColor('#333');
  doc.text(`Period: ${s.start_date} to ${s.end_date}`, { width, align: 'right' });
  doc.text(`Statement date: ${s.statement_date}`, { width, align: 'right' });
  doc.text(`Merchant ID: ${s.merchant_account_identifier}`, { width, align: 'right' });
  doc.text(`Merchant account: ${s.merchant_account_token}`, { width, align: 'right' });
  doc.text(`Statement: ${s.identifier} · Currency: ${s.currency.toUpperCase()}`, { width, align: 'right' });
  doc.y = Math.max(doc.y, MARGIN + 14 + 11 * s.merchant.address.length) + 10;
  doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + width, doc.y).lineWidth(1).strokeColor('#000').stroke();
  doc.moveDown(0.6);
}

function summary(doc: PDFKit.PDFDocument, s: Statement, money: (c: number) => string, width: number): void {
  const t = s.totals;
  const lines: Array<[string, string, boolean?]> = [
    ['Add: in transit at the start of the period', money(s.opening_in_transit_cents)],
    [`Sales and captures (${t.sales_count})`, money(t.sales_cents)],
    [`Refunds and credits (${t.refunds_count})`, money(-t.refunds_cents)],
    ['Fees', money(-t.fees_cents)],
    ["Net deposits for the period's processing days", money(t.net_cents), true],
    ['Less: in transit at the end of the period', money(-s.closing_in_transit_cents)],
    ['Deposited to your bank during the period', money(s.deposited_in_period_cents), true],
    [`Exceptions (${t.exceptions_count}): returns and chargebacks`, money(-t.exceptions_cents)],
    ['Net deposits less exceptions', money(t.net_after_exceptions_cents), true],
  ];
  doc.font('Helvetica-Bold').fontSize(11).fillColor('#000').text('Summary', MARGIN, doc.y);
  doc.moveDown(0.3);
  const w = width * 0.62;
  for (const [label, value, bold] of lines) {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9).fillColor('#000');
    doc.text(label, MARGIN, y, { width: w * 0.7, lineBreak: false });
    doc.text(value, MARGIN + w * 0.7, y, { width: w * 0.3, align: 'right', lineBreak: false });
    doc.y = y + 14;
  }
  doc.x = MARGIN;
}

function chart(doc: PDFKit.PDFDocument, s: Statement, money: (c: number) => string, width: number): void {
  const h = 150;
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(11).fillColor('#000').text('Daily sales volume', MARGIN, doc.y);
  const top = doc.y + 6;
  const left = MARGIN + 60;
  const plotW = width - 60;
  const days = Number(s.end_date.slice(8, 10));
  const byDay = new Map(s.daily.map((d) => [Number(String(d.date).slice(8, 10)), Number(d.sales_cents)]));
  const step = niceStep(Math.max(1, ...byDay.values()) / 4);
  const max = step * Math.max(1, Math.ceil(Math.max(1, ...byDay.values()) / step));
  doc.font('Helvetica').fontSize(7).fillColor('#555');
  for (let v = 0; v <= max; v += step) {
    const y = top + h - (v / max) * h;
    doc.moveTo(left, y).lineTo(left + plotW, y).lineWidth(0.3).strokeColor('#bbb').stroke();
    doc.text(money(v), MARGIN - 5, y - 4, { width: 62, align: 'right', lineBreak: false });
  }
  const slot = plotW / days;
  for (let d = 1; d <= days; d++) {
    const v = byDay.get(d) ?? 0;
    const bh = (v / max) * h;
    if (bh > 0) doc.rect(left + (d - 1) * slot + slot * 0.15, top + h - bh, slot * 0.7, bh).fill('#2f6db5');
    if (d === 1 || d % 5 === 0) doc.fillColor('#555').text(String(d), left + (d - 1) * slot, top + h + 3, { width: slot, align: 'center', lineBreak: false });
  }
  doc.fillColor('#555').text('Sales and captures by processing day (day of the month)', left, top + h + 13, { width: plotW, align: 'center', lineBreak: false });
  doc.x = MARGIN;
  doc.y = top + h + 28;
}

/** A 1, 2 or 5 times a power of ten at least `raw` minor units: gridlines a reader can add up. */
function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, raw)));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

const feeName = (t: string) => ({ interchange: 'Interchange (1.50% of card sales)', processor: 'Processor (per transaction)', network: 'Network', payfac: 'Payment facilitator' })[t] ?? t;
const tenderShort = (t: string) => ({ card: 'Card', terminal: 'Lanes', bank: 'ACH/EFT' })[t] ?? t;
