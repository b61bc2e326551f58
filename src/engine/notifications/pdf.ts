import { loadPdfKit } from '../pdf-kit';
import { recordsByRef } from '../records';
import type { EngineCore } from '../core';
import { formatMoney } from '../../shared/money';

export interface InvoiceForPdf {
  id: number;
  number: string;
  customer_identifier: string;
  currency: string;
  amount_cents: number;
  owing_cents: number;
  date?: string | null;
  due_date?: string | null;
}

interface StoredAttachment {
  invoice: string;
  file_name: string;
  invoice_display: boolean;
  content_base64: string;
}

/**
 * The invoice's PDF for an email: its stored primary attachment (what the supplier uploaded as the
 * invoice document), else a plain rendering of the invoice made here.
 */
export async function invoicePdf(core: EngineCore, invoiceKey: string, view: InvoiceForPdf, supplier: string): Promise<{ file_name: string; content: Buffer }> {
  const stored = (await recordsByRef<StoredAttachment>(core, 'invoice_attachment', invoiceKey)).map((r) => r.data).find((a) => a.invoice_display);
  if (stored) return { file_name: stored.file_name, content: Buffer.from(stored.content_base64, 'base64') };
  return { file_name: `invoice-${view.number.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`, content: await renderInvoicePdf(view, supplier) };
}

export async function renderInvoicePdf(view: InvoiceForPdf, supplier: string): Promise<Buffer> {
  const PDFDocument = await loadPdfKit();
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'LETTER', margin: 54, info: { Title: `Invoice ${view.number}`, Author: supplier } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    const money = (cents: number) => formatMoney(cents, view.currency.toUpperCase());
    doc.fontSize(20).text(supplier);
    doc.moveDown().fontSize(16).text(`Invoice ${view.number}`);
    doc.moveDown().fontSize(11);
    doc.text(`Customer: ${view.customer_identifier}`);
    if (view.date) doc.text(`Date: ${view.date}`);
    if (view.due_date) doc.text(`Due: ${view.due_date}`);
    doc.moveDown();
    doc.text(`Amount: ${money(view.amount_cents)}`);
    doc.text(`Balance owing: ${money(view.owing_cents)}`);
    doc.end();
  });
}
