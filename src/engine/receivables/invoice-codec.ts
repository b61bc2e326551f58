import { invoiceBody, invoiceStatusOf, type StatusBasis } from './invoice-view';
import type { InvoiceData, InvoiceDoc } from './types';

/**
 * How an invoice rests in the store. Besides its indexed fields it keeps two strings: the record
 * (`doc`) and its export rendering (`view`, everything but what changes without a write: status,
 * watermark, deleted). Exports splice those three in and send the strings as they are, so a page
 * of 2,500 invoices costs no object parsing or serialising of invoices at all; only single reads
 * and writes decode `doc`.
 */
export interface InvoiceRow {
  id: string;
  watermark: number;
  display_number: string;
  customer: string;
  feed: 'open' | 'closed' | 'deleted';
  division: string;
  iid: number;
  data: { doc: string; view: string; u: number; st: StatusBasis };
}

export function decodeInvoice(row: InvoiceRow): InvoiceDoc {
  return {
    id: row.id,
    watermark: row.watermark,
    display_number: row.display_number,
    customer: row.customer,
    feed: row.feed,
    division: row.division,
    iid: row.iid,
    data: JSON.parse(row.data.doc) as InvoiceData,
  };
}

export function encodeInvoice(doc: InvoiceDoc, sender: string): InvoiceRow {
  const d = doc.data;
  return {
    id: doc.id,
    watermark: doc.watermark,
    display_number: d.display_number,
    customer: doc.customer,
    feed: d.deleted ? 'deleted' : d.owing_cents !== 0 ? 'open' : 'closed',
    division: d.division ?? '',
    iid: d.iid,
    data: {
      doc: JSON.stringify(d),
      view: JSON.stringify(invoiceBody(doc, sender)),
      u: d.updated_ms,
      st: [d.amount_cents, d.owing_cents, d.due_date ?? d.date, d.deleted ? 1 : 0],
    },
  };
}

/** The export JSON of one stored invoice as of `today`. */
export function invoiceJson(row: InvoiceRow, today: string, includeDeleted: boolean): string {
  const head = `{"status":"${invoiceStatusOf(row.data.st, today)}","watermark":${row.watermark}${includeDeleted ? `,"deleted":${row.data.st[3] === 1}` : ''},`;
  return head + row.data.view.slice(1);
}
