import { openPdf, drawTableRow, tableRowHeight, MARGIN, ROW, type Align, type Column, type RowStyle } from '../pdf-kit';
import type { GlyphLog, PdfText } from '../pdf-text';
import { formatMoney } from '../../shared/money';
import { brandName, tenderGroupName } from '../../shared/card-brands';
import type { Statement } from './statements';

/**
 * The statement as a PDF a bookkeeper files: the shop's name and address, the period, the summary,
 * a chart of daily volume, then the tables (daily deposits, fees, exceptions, volume by brand and by
 * tender). Tables break across pages and repeat their header row; every page carries the
 * statement's identifier and page number. The figures are the JSON's, formatted here only; the
 * shop's name and address, and reasons, in whatever script they are written (pdf-text.ts).
 */

export async function renderStatementPdf(s: Statement, log?: GlyphLog): Promise<Buffer> {
  const { doc, text, done } = await openPdf({ info: { Title: `Statement ${s.identifier} ${s.start_date} to ${s.end_date}`, Author: s.merchant.name }, log });
  const money = (cents: number) => formatMoney(cents, s.currency);
  const width = doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - MARGIN - 20;

  header(text, s, width);
  summary(text, s, money, width);
  chart(text, s, money, width);

  const table = (title: string, columns: Column[], rows: string[][], totals?: string[]) => {
    if (doc.y + 3 * ROW + 20 > bottom()) doc.addPage();
    doc.moveDown(0.8);
    text.text(title, { x: MARGIN, width }, { size: 11, face: 'bold' });
    doc.moveDown(0.3);
    const head = () => drawRow(text, columns, columns.map((c) => c.title), { bold: true, shade: '#e8ecf1' });
    head();
    rows.forEach((r, i) => {
      if (doc.y + rowHeight(text, columns, r) > bottom()) {
        doc.addPage();
        text.text(`${title} (continued)`, { x: MARGIN, width }, { size: 8, face: 'oblique', color: '#555' });
        doc.moveDown(0.2);
        head();
      }
      drawRow(text, columns, r, { shade: i % 2 ? '#f7f7f7' : undefined });
    });
    if (rows.length === 0) drawRow(text, columns, [`None this period`, ...columns.slice(1).map(() => '')], {});
    if (totals) {
      if (doc.y + ROW > bottom()) doc.addPage();
      drawRow(text, columns, totals, { bold: true, rule: true });
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
    text.text(`${s.merchant.name} · Statement ${s.identifier} · ${s.start_date} to ${s.end_date} · Page ${i + 1} of ${range.count}`, { x: MARGIN, y: doc.page.height - MARGIN + 10, width, align: 'center', lineBreak: false }, { size: 8, color: '#555' });
    doc.page.margins.bottom = saved;
  }
  doc.end();
  return done;
}

/** The statement's tables, in 8.5-point type (more columns than an invoice's). */
const rowHeight = (t: PdfText, columns: Column[], cells: string[], bold?: boolean) => tableRowHeight(t, columns, cells, { size: 8.5, bold });
const drawRow = (t: PdfText, columns: Column[], cells: string[], style: Omit<RowStyle, 'size'>) => drawTableRow(t, columns, cells, { ...style, size: 8.5 });

function header(t: PdfText, s: Statement, width: number): void {
  const { doc } = t;
  const small = { size: 9, color: '#333' };
  t.text(s.merchant.name, { x: MARGIN, y: MARGIN, width }, { size: 16, face: 'bold' });
  for (const line of s.merchant.address) t.text(line, { width }, small);
  const top = MARGIN;
  const right = { width, align: 'right' as const };
  t.text('Monthly settlement statement', { x: MARGIN, y: top, ...right }, { size: 13, face: 'bold' });
  t.text(`Period: ${s.start_date} to ${s.end_date}`, right, small);
  t.text(`Statement date: ${s.statement_date}`, right, small);
  t.text(`Merchant ID: ${s.merchant_account_identifier}`, right, small);
  t.text(`Merchant account: ${s.merchant_account_token}`, right, small);
  t.text(`Statement: ${s.identifier} · Currency: ${s.currency.toUpperCase()}`, right, small);
  doc.y = Math.max(doc.y, MARGIN + 14 + 11 * s.merchant.address.length) + 10;
  doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + width, doc.y).lineWidth(1).strokeColor('#000').stroke();
  doc.moveDown(0.6);
}

function summary(text: PdfText, s: Statement, money: (c: number) => string, width: number): void {
  const { doc } = text;
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
  text.text('Summary', { x: MARGIN, width }, { size: 11, face: 'bold' });
  doc.moveDown(0.3);
  const w = width * 0.62;
  for (const [label, value, bold] of lines) {
    const y = doc.y;
    const type = { size: 9, face: bold ? ('bold' as const) : ('regular' as const) };
    text.text(label, { x: MARGIN, y, width: w * 0.7, lineBreak: false }, type);
    text.text(value, { x: MARGIN + w * 0.7, y, width: w * 0.3, align: 'right', lineBreak: false }, type);
    doc.y = y + 14;
  }
  doc.x = MARGIN;
}

function chart(t: PdfText, s: Statement, money: (c: number) => string, width: number): void {
  const { doc } = t;
  const h = 150;
  doc.moveDown(0.8);
  t.text('Daily sales volume', { x: MARGIN, width }, { size: 11, face: 'bold' });
  const top = doc.y + 6;
  const left = MARGIN + 60;
  const plotW = width - 60;
  const days = Number(s.end_date.slice(8, 10));
  const byDay = new Map(s.daily.map((d) => [Number(String(d.date).slice(8, 10)), Number(d.sales_cents)]));
  const step = niceStep(Math.max(1, ...byDay.values()) / 4);
  const max = step * Math.max(1, Math.ceil(Math.max(1, ...byDay.values()) / step));
  const label = { size: 7, color: '#555' };
  for (let v = 0; v <= max; v += step) {
    const y = top + h - (v / max) * h;
    doc.moveTo(left, y).lineTo(left + plotW, y).lineWidth(0.3).strokeColor('#bbb').stroke();
    t.text(money(v), { x: MARGIN - 5, y: y - 4, width: 62, align: 'right', lineBreak: false }, label);
  }
  const slot = plotW / days;
  for (let d = 1; d <= days; d++) {
    const v = byDay.get(d) ?? 0;
    const bh = (v / max) * h;
    if (bh > 0) doc.rect(left + (d - 1) * slot + slot * 0.15, top + h - bh, slot * 0.7, bh).fill('#2f6db5');
    if (d === 1 || d % 5 === 0) t.text(String(d), { x: left + (d - 1) * slot, y: top + h + 3, width: slot, align: 'center', lineBreak: false }, label);
  }
  t.text('Sales and captures by processing day (day of the month)', { x: left, y: top + h + 13, width: plotW, align: 'center', lineBreak: false }, label);
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
