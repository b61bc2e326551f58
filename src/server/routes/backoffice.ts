import { defineRoute } from '../route';
import { AgingQuery, AgingSummary, CustomerListQuery, CustomerPage, InvoiceListQuery, InvoicePage, OrderListQuery, OrderPage, PaymentListQuery, PaymentPage, SearchQuery, SearchResult, TransactionListQuery, TransactionPage } from '../../shared/schemas/backoffice';
import { ref } from '../../shared/schemas/components';

const TAGS = ['Back office lists'];
const OURS = "Laneway's own operation (not in the reference API), for the back-office screens: ";

export const listInvoices = defineRoute({
  method: 'get',
  path: '/api/backoffice/invoices',
  operationId: 'backofficeListInvoices',
  tags: TAGS,
  summary: 'Invoices, newest first, filtered by status, due date, division, date and amount',
  description: `${OURS}read on the [feed, watermark] or [customer, watermark] index in windows; a page stops at \`limit\` rows or after 20,000 read (follow \`next\`).`,
  query: InvoiceListQuery,
  responses: { 200: { description: 'A page', schema: InvoicePage } },
  handler: async ({ engine, query }) => ({ body: await engine.backoffice.invoices(query) }),
});

export const listCustomers = defineRoute({
  method: 'get',
  path: '/api/backoffice/customers',
  operationId: 'backofficeListCustomers',
  tags: TAGS,
  summary: 'Customers in identifier or balance order, with balance and aging; `q` is an identifier prefix or words of a name',
  description: `${OURS}read on the identifier index.`,
  query: CustomerListQuery,
  responses: { 200: { description: 'A page', schema: CustomerPage } },
  handler: async ({ engine, query }) => ({ body: await engine.backoffice.customers(query) }),
});

export const listPayments = defineRoute({
  method: 'get',
  path: '/api/backoffice/payments',
  operationId: 'backofficeListPayments',
  tags: TAGS,
  summary: 'Invoicing payments, newest first, optionally of one customer',
  description: OURS.replace(/: $/, '.'),
  query: PaymentListQuery,
  responses: { 200: { description: 'A page', schema: PaymentPage } },
  handler: async ({ engine, query }) => ({ body: await engine.backoffice.payments(query) }),
});

export const listOrders = defineRoute({
  method: 'get',
  path: '/api/backoffice/orders',
  operationId: 'backofficeListOrders',
  tags: TAGS,
  summary: 'Orders, newest first',
  description: OURS.replace(/: $/, '.'),
  query: OrderListQuery,
  responses: { 200: { description: 'A page', schema: OrderPage } },
  handler: async ({ engine, query }) => ({ body: await engine.backoffice.orders(query) }),
});

export const listTransactions = defineRoute({
  method: 'get',
  path: '/api/backoffice/transactions',
  operationId: 'backofficeListTransactions',
  tags: TAGS,
  summary: 'Gateway transactions made without an order, newest first',
  description: `${OURS}card sales and other gateway transactions sent without an order (orders list the others), read on the [order_id, watermark] index in windows; follow \`next\`.`,
  query: TransactionListQuery,
  responses: { 200: { description: 'A page', schema: TransactionPage } },
  handler: async ({ engine, query }) => ({ body: await engine.backoffice.transactions(query) }),
});

export const agingSummary = defineRoute({
  method: 'get',
  path: '/api/backoffice/aging',
  operationId: 'backofficeAgingSummary',
  tags: TAGS,
  summary: "Receivables aging over all customers, in one currency (the account's by default), as of today",
  description: `${OURS}summed from every customer's ledger; kept until the next write or the next day. \`currencies\` lists what is owed in each currency, so a shop owed in several sees them all.`,
  query: AgingQuery,
  responses: { 200: { description: 'Aging', schema: ref(AgingSummary) } },
  handler: async ({ engine, query }) => ({ body: await engine.backoffice.aging(query.currency) }),
});

export const search = defineRoute({
  method: 'get',
  path: '/api/backoffice/search',
  operationId: 'backofficeSearch',
  tags: TAGS,
  summary: 'Find a customer, invoice number, payment, order, transaction token or receipt',
  description: `${OURS}one index lookup per kind.`,
  query: SearchQuery,
  responses: { 200: { description: 'Hits', schema: SearchResult } },
  handler: async ({ engine, query }) => ({ body: { hits: await engine.backoffice.search(query.q) } }),
});

export const backofficeRoutes = [listInvoices, listCustomers, listPayments, listOrders, listTransactions, agingSummary, search];
