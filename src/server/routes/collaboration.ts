import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { ErrorBody, ExportPage, ExportQuery } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { exportParams, exportShape } from '../exports';
import { Comment, CommentCreate, Dispute, DisputeClose, DisputeOpen, DisputesQuery, IdentifierMessage } from '../../shared/schemas/collaboration';

const TAGS = ['Collaboration'];
const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const OURS = 'Ours: the real service takes disputes and comments in its buyer portal, which this product does not have; the back office records them here.';

export const closeDispute = defineRoute({
  method: 'post',
  path: '/api/invoices/:invoice_number/disputes/close',
  operationId: 'closeDispute',
  tags: TAGS,
  summary: 'Close a Dispute',
  description: 'Closes the open dispute of the invoice; with none, `0 disputes closed` (not an error). `comment` also records a closing comment.',
  params: Type.Object({ invoice_number: Type.String({ minLength: 1, maxLength: 100 }) }),
  body: DisputeClose,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Closed (or none open)', schema: IdentifierMessage }, 412: err('`invoice_not_found`') },
  async handler({ engine, params, body }) {
    return { status: 201, body: await engine.collaboration.closeDispute(params.invoice_number, body) };
  },
});

export const openDispute = defineRoute({
  method: 'post',
  path: '/api/invoices/:invoice_number/disputes',
  operationId: 'openDispute',
  tags: TAGS,
  summary: 'Open a dispute on an invoice (ours)',
  description: `${OURS} The opening comment is recorded as a dispute comment.`,
  params: Type.Object({ invoice_number: Type.String({ minLength: 1, maxLength: 100 }) }),
  body: DisputeOpen,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Opened', schema: Type.Object({ identifier: Type.String(), message: Type.String(), dispute_id: Type.Integer() }) }, 412: err('`invoice_not_found`, `dispute_already_open`') },
  async handler({ engine, params, body }) {
    return { status: 201, body: await engine.collaboration.openDispute(params.invoice_number, body) };
  },
});

export const commentOnInvoice = defineRoute({
  method: 'post',
  path: '/api/invoices/:invoice_number/comments',
  operationId: 'commentOnInvoice',
  tags: TAGS,
  summary: 'Comment on an invoice (ours)',
  description: OURS,
  params: Type.Object({ invoice_number: Type.String({ minLength: 1, maxLength: 100 }) }),
  body: CommentCreate,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Recorded', schema: Type.Object({ identifier: Type.String() }) }, 412: err('`invoice_not_found`') },
  async handler({ engine, params, body }) {
    return { status: 201, body: await engine.collaboration.commentOnInvoice(params.invoice_number, body) };
  },
});

export const commentOnCustomer = defineRoute({
  method: 'post',
  path: '/api/customers/:identifier/comments',
  operationId: 'commentOnCustomer',
  tags: TAGS,
  summary: 'Comment on a customer (ours)',
  description: OURS,
  params: Type.Object({ identifier: Type.String({ minLength: 1, maxLength: 100 }) }),
  body: CommentCreate,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Recorded', schema: Type.Object({ identifier: Type.String() }) }, 412: err('`customer_not_found`') },
  async handler({ engine, params, body }) {
    return { status: 201, body: await engine.collaboration.commentOnCustomer(params.identifier, body) };
  },
});

export const exportDisputes = defineRoute({
  method: 'get',
  path: '/api/exports/disputes',
  operationId: 'exportDisputes',
  tags: TAGS,
  summary: 'Export Open and Closed Disputes',
  description:
    'Up to 100 open disputes opened since `watermark` and up to 100 closed disputes closed since it (oldest first in each). `watermark` is a date or date and time in the account\'s time zone; the keys (or, with list=true, each item\'s `watermark`) are the dispute ids, not watermarks to send back: send the date of the latest change you saw.',
  query: DisputesQuery,
  responses: { 200: { description: 'Disputes', schema: Type.Object({ disputes: ExportPage(ref(Dispute)) }) }, 400: err('`invalid_watermark`') },
  async handler({ engine, query }) {
    const rows = await engine.collaboration.exportDisputes(query.watermark);
    return { body: { disputes: exportShape(rows, query.list === true) } };
  },
});

export const exportComments = defineRoute({
  method: 'get',
  path: '/api/exports/comments',
  operationId: 'exportComments',
  tags: TAGS,
  summary: 'Export Customer and Invoice Comments',
  description: 'Customer and invoice comments, dispute comments included, changed after `watermark`, 100 at a time unless `limit` says.',
  query: ExportQuery,
  responses: { 200: { description: 'Comments', schema: Type.Object({ comments: ExportPage(ref(Comment)) }) }, 400: err('Invalid query') },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { comments: exportShape(await engine.collaboration.exportComments(p.after, p.limit), p.list) } };
  },
});

/** Close before open: `/disputes/close` must not be read as a dispute path of its own. */
export const collaborationRoutes = [closeDispute, openDispute, commentOnInvoice, commentOnCustomer, exportDisputes, exportComments];
