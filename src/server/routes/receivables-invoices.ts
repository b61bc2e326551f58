import { Type, type Static } from '@sinclair/typebox';
import type { Response } from 'express';
import { defineRoute } from '../route';
import { exportParams } from '../exports';
import { EXPORT_CHUNK, sendExportChunks, type InvoiceFeed } from '../../engine/receivables/fast-export';
import type { Engine } from '../../engine';
import type { Reply } from '../route';
import { ErrorBody, ExportPage } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { InvoiceExportQuery } from '../../shared/schemas/receivables-common';
import { AttachmentBody, InvoiceImport, InvoiceImportQuery, InvoiceImportResult, InvoiceView, InvoiceViewQuery, invoiceViewOption } from '../../shared/schemas/receivables-invoices';

const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const TAGS = ['Invoices'];

export const importInvoice = defineRoute({
  method: 'post',
  path: '/api/imports/invoice',
  nullMeansAbsent: true,
  operationId: 'importInvoice',
  tags: TAGS,
  summary: 'Create and update an invoice',
  description:
    'An existing number is updated. The amount is the line items plus subtotal_tax1/2 (adjustments are shown beside it, not added) unless amount_override (an annualized amount is pro-rated over its inclusive span instead); without line items it is `amount`. ' +
    'Owing is the amount less payments applied, or owing_cents under balance sync. The customer is created (named customer_name, else its identifier) or updated from customer_* attributes. ' +
    'Divisions: required when the account requires them, created on the fly with dynamic division creation, otherwise they must exist. Payment plan fields are required under payment plans; discount fields need the discounts capability. ' +
    'Any broken rule answers 412 naming each field, and nothing changes. `?create_only=true` (ours, what the back office\'s New invoice sends) refuses a number already used instead of updating it; `?customer_on_file=true` refuses an unknown customer instead of creating it.',
  body: InvoiceImport,
  query: InvoiceImportQuery,
  invalidKind: 'precondition',
  bodyLimit: '36mb',
  responses: {
    201: { description: 'Created or updated', schema: InvoiceImportResult },
    412: err('A field rule failed (with create_only, `invoice_exists` for a number already used; with customer_on_file, `customer_not_found`)'),
    413: err('An attachment over 25 MB'),
  },
  async handler({ engine, body, query, publicUrl }) {
    const r = await engine.receivables.importInvoice(body, { createOnly: query.create_only === true, customerOnFile: query.customer_on_file === true });
    const base = publicUrl;
    const reply: Static<typeof InvoiceImportResult> = { identifier: r.identifier, message: r.message };
    if (r.pay) {
      reply.pay_url = base + r.pay.url;
      reply.pay_urls = Object.fromEntries(Object.entries(r.pay.urls).map(([email, path]) => [email, base + path]));
    }
    return { status: 201, body: reply };
  },
});

export const addInvoiceAttachment = defineRoute({
  method: 'post',
  path: '/api/imports/invoice/:invoice_number/attachment',
  operationId: 'addInvoiceAttachment',
  tags: TAGS,
  summary: 'Add or replace an invoice attachment (PDF)',
  description:
    'The content must be a base64 PDF (padded or not) of at most 25 MB decoded, with a file name of at most 255 characters that has an extension. invoice_display true (the default) makes it the invoice\'s primary document (a previous primary stays as supplementary). The same file name replaces its earlier version.',
  params: Type.Object({ invoice_number: Type.String({ minLength: 1, maxLength: 100 }) }),
  body: AttachmentBody,
  invalidKind: 'precondition',
  bodyLimit: '36mb',
  responses: {
    200: { description: 'Stored', schema: Type.Object({ message: Type.String(), identifier: Type.String({ description: 'The file name.' }) }) },
    404: err('No such invoice'),
    412: err('Not a PDF, bad base64 or file name, or an ambiguous display_number'),
    413: err('Over 25 MB decoded'),
  },
  async handler({ engine, params, body }) {
    return { body: await engine.receivables.addAttachment(body.find_by, params.invoice_number, body) };
  },
});

export const viewInvoice = defineRoute({
  method: 'get',
  path: '/api/exports/invoice/:number_or_id',
  operationId: 'viewInvoice',
  tags: TAGS,
  summary: 'Export/view an invoice',
  description: 'Matched against number, then display_number, then the numeric id. options[payments]=true appends `payments` (with line_item_transactional_amounts under line-item short pay). Open invoices in an owing position carry pay_url and pay_urls.',
  params: Type.Object({ number_or_id: Type.String({ minLength: 1, maxLength: 100 }) }),
  query: InvoiceViewQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'The invoice', schema: ref(InvoiceView) }, 404: err('No such invoice') },
  async handler({ engine, params, query, publicUrl }) {
    const view = await engine.receivables.viewInvoice(params.number_or_id, { payments: invoiceViewOption(query.options, 'payments') });
    const base = publicUrl;
    if (typeof view.pay_url === 'string') view.pay_url = base + view.pay_url;
    if (view.pay_urls) view.pay_urls = Object.fromEntries(Object.entries(view.pay_urls).map(([e, p]) => [e, base + p]));
    return { body: view };
  },
});

const invoicesPage = Type.Object({ invoices: ExportPage(ref(InvoiceView)) });
const includeDeleted = (q: { options?: { include_deleted_invoices?: boolean } }) => q.options?.include_deleted_invoices === true;

/** Invoice pages are sent as the stored renderings, spliced, chunk by chunk (see engine/receivables/fast-export). */
async function sendInvoicesPage(engine: Engine, res: Response, feed: InvoiceFeed, p: ReturnType<typeof exportParams>, withDeleted: boolean): Promise<Reply> {
  const { records } = engine.receivables.exportInvoicesJsonChunks(feed, p, { includeDeleted: withDeleted, chunk: EXPORT_CHUNK });
  await sendExportChunks(res, 'invoices', p.list, records);
  return {};
}

export const exportInvoicesRecent = defineRoute({
  method: 'get',
  path: '/api/exports/invoices/recent',
  operationId: 'exportInvoicesRecent',
  tags: TAGS,
  summary: 'Export invoices updated in the past 7 days',
  query: InvoiceExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: invoicesPage } },
  streams: true,
  async handler({ engine, query, res }) {
    const p = exportParams(query);
    return sendInvoicesPage(engine, res, 'recent', p, includeDeleted(query));
  },
});

export const exportOpenInvoices = defineRoute({
  method: 'get',
  path: '/api/exports/open_invoices',
  operationId: 'exportOpenInvoices',
  tags: TAGS,
  summary: 'Export open invoices',
  description: 'Invoices whose owing is not zero (credit memos included), changed after `watermark`. With options[include_deleted_invoices]=true deleted invoices are included and every record carries `deleted`.',
  query: InvoiceExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: invoicesPage } },
  streams: true,
  async handler({ engine, query, res }) {
    const p = exportParams(query);
    return sendInvoicesPage(engine, res, 'open', p, includeDeleted(query));
  },
});

export const exportInvoices = defineRoute({
  method: 'get',
  path: '/api/exports/invoices',
  operationId: 'exportInvoices',
  tags: TAGS,
  summary: 'Export every invoice changed after the watermark (Laneway)',
  description: 'Laneway\'s addition to the reference (which has only the recent and open exports): a complete feed for ERP sync. Same shapes and options as /api/exports/invoices/recent.',
  query: InvoiceExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: invoicesPage } },
  streams: true,
  async handler({ engine, query, res }) {
    const p = exportParams(query);
    return sendInvoicesPage(engine, res, 'all', p, includeDeleted(query));
  },
});

export const invoiceRoutes = [importInvoice, addInvoiceAttachment, viewInvoice, exportInvoicesRecent, exportOpenInvoices, exportInvoices];
