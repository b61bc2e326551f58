import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { exportParams, exportShape } from '../exports';
import { notFound } from '../../engine/errors';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { Order, OrderExportPage, OrderExportQuery, OrderImportResponse, OrderInput, PublishedOrderExportQuery } from '../../shared/schemas/orders';
import '../../shared/schemas/gateway';

const precondition = { 412: { description: 'Precondition failed: invalid order, unknown order (PATCH), existing order with other content (POST), orders not enabled', schema: ref(ErrorBody) } };
const notFoundReplies = { 400: { description: 'Malformed identifier', schema: ref(ErrorBody) }, 404: { description: 'No such order', schema: ref(ErrorBody) } };

const IMPORT_RULES = `Fields as in the reference's Order, all optional. \`identifier\` is generated when absent. \`amount_cents\` and item cents
accept integers or digit strings. Keys not listed (\`order_att1\`, \`orderitem_attr1\`) are kept as extended attributes and returned as sent.
\`draft: true\` keeps the order out of the published export; \`false\` or absent publishes it. A published order cannot become a draft again.
\`order_items\`, when sent, replaces the whole list. \`settlement_token\` must be one of the processor tokens of GET /api/whoami.
\`watermark\`, \`transactions\`, \`created_at\` and \`updated_at\` (read-only: what GET answers) are accepted and ignored, so an order
read can be edited and sent back.`;

/** An order of up to 1,000 items, each with its free-form attributes: more than the 1 MB of one record. */
const ORDER_BODY_LIMIT = '5mb';

export const createOrder = defineRoute({
  method: 'post',
  path: '/api/imports/order',
  bodyLimit: ORDER_BODY_LIMIT,
  operationId: 'createOrder',
  tags: ['Orders'],
  summary: 'Create an order',
  description: `${IMPORT_RULES}\n\nAn order with the same identifier and the same content (a retried request) is answered as created again, unchanged; an existing identifier with other content is 412 \`order_exists\`: update it with PATCH.`,
  body: OrderInput,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Created: the order and its items', schema: OrderImportResponse }, ...precondition },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.orders.create(body) };
  },
});

export const updateOrder = defineRoute({
  method: 'patch',
  path: '/api/imports/order',
  bodyLimit: ORDER_BODY_LIMIT,
  operationId: 'updateOrder',
  tags: ['Orders'],
  summary: 'Update an order identified by its identifier',
  description: `${IMPORT_RULES}\n\nFields sent replace the stored ones (null clears); fields not sent are kept. Unknown identifier: 412 \`order_not_found\`.`,
  body: OrderInput,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Updated: the order and its items', schema: OrderImportResponse }, ...precondition },
  async handler({ engine, body }) {
    return { status: 201, body: await engine.orders.update(body) };
  },
});

export const exportOrders = defineRoute({
  method: 'get',
  path: '/api/exports/orders',
  operationId: 'exportOrders',
  tags: ['Orders'],
  summary: 'Export orders created or changed since the watermark',
  description: 'Orders (with items and transactions) whose watermark is above `watermark`, oldest first, `limit` at a time (default 100).',
  query: OrderExportQuery,
  responses: { 200: { description: 'Orders keyed by watermark, or a list', schema: OrderExportPage() }, 400: { description: 'Bad query', schema: ref(ErrorBody) }, 412: precondition[412] },
  async handler({ engine, query }) {
    engine.account.require('orders');
    const p = exportParams(query);
    const rows = await engine.orders.exportOrders({ after: p.after, limit: p.limit });
    return { body: { orders: exportShape(rows, p.list) } };
  },
});

export const exportPublishedOrders = defineRoute({
  method: 'get',
  path: '/api/exports/orders/published',
  operationId: 'exportPublishedOrders',
  tags: ['Orders'],
  summary: 'Export published (non-draft) orders since the watermark',
  description:
    'Like the orders export, drafts excluded. `options[extended_attributes][key]=value` (repeatable) keeps only orders whose extended attribute `key` (in `attributes` or a top-level extra key) equals `value` as text.',
  query: PublishedOrderExportQuery,
  responses: { 200: { description: 'Orders keyed by watermark, or a list', schema: OrderExportPage() }, 400: { description: 'Bad query', schema: ref(ErrorBody) }, 412: precondition[412] },
  async handler({ engine, query }) {
    engine.account.require('orders');
    const p = exportParams(query);
    const attributes = query.options?.extended_attributes;
    const rows = await engine.orders.exportPublished({ after: p.after, limit: p.limit, ...(attributes ? { attributes } : {}) });
    return { body: { orders: exportShape(rows, p.list) } };
  },
});

const IdentifierParams = Type.Object({ identifier: Type.String({ minLength: 1, maxLength: 100 }) });

async function viewOrder(engine: Parameters<typeof createOrder.handler>[0]['engine'], identifier: string) {
  engine.account.require('orders');
  const order = await engine.orders.view(identifier);
  if (!order) throw notFound('order_not_found', `No order ${identifier}`);
  return { body: order };
}

export const viewOrderRoute = defineRoute({
  method: 'get',
  path: '/api/exports/order/:identifier',
  operationId: 'viewOrder',
  tags: ['Orders'],
  summary: 'Export/view an order with its items and transactions',
  description: 'Matched by the order identifier (the `order` token gateway operations return).',
  params: IdentifierParams,
  responses: { 200: { description: 'The order', schema: ref(Order) }, ...notFoundReplies, 412: precondition[412] },
  handler: ({ engine, params }) => viewOrder(engine, params.identifier),
});

export const viewOrderDetail = defineRoute({
  method: 'get',
  path: '/api/gateway/v1/orders/:token',
  operationId: 'viewOrderDetail',
  tags: ['Settlement Reporting'],
  summary: 'View order detail (alias of GET /api/exports/order/{identifier})',
  params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }),
  responses: { 200: { description: 'The order', schema: ref(Order) }, ...notFoundReplies, 412: precondition[412] },
  handler: ({ engine, params }) => viewOrder(engine, params.token),
});

export const orderRoutes = [createOrder, updateOrder, exportOrders, exportPublishedOrders, viewOrderRoute];
/** Registered after the gateway's POST /api/gateway/v1/orders/{action} routes. */
export const orderAliasRoutes = [viewOrderDetail];
