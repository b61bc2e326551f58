import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { CustomerChildren, InvoiceDocumentQuery, InvoiceThread, OwedAgain, OwedAgainQuery } from '../../shared/schemas/backoffice-details';

const TAGS = ['Back office details'];
const OURS = "Laneway's own operation (not in the reference API), for the back-office screens: ";
const err = (description: string) => ({ description, schema: ref(ErrorBody) });

export const customerChildren = defineRoute({
  method: 'get',
  path: '/api/backoffice/customers/:identifier/children',
  operationId: 'backofficeCustomerChildren',
  tags: TAGS,
  summary: "A customer's child accounts (customers whose parent it is)",
  description: `${OURS}read on the customers' parent index. A parent is set with the customer import's \`parent_identifier\`.`,
  params: Type.Object({ identifier: Type.String({ minLength: 1, maxLength: 100 }) }),
  responses: { 200: { description: 'The children', schema: CustomerChildren }, 404: err('`customer_not_found`') },
  handler: async ({ engine, params }) => ({ body: await engine.backoffice.children(params.identifier) }),
});

export const invoiceThread = defineRoute({
  method: 'get',
  path: '/api/backoffice/invoices/:number_or_id/thread',
  operationId: 'backofficeInvoiceThread',
  tags: TAGS,
  summary: "An invoice's disputes and comments",
  description: `${OURS}the disputes read on the records' [kind, ref] index by invoice number, the comments by customer, kept when they regard this invoice. The reference's exports (/api/exports/disputes, /api/exports/comments) list every invoice's.`,
  params: Type.Object({ number_or_id: Type.String({ minLength: 1, maxLength: 100 }) }),
  responses: { 200: { description: 'Disputes and comments', schema: InvoiceThread }, 404: err('`invoice_not_found`') },
  handler: async ({ engine, params }) => ({ body: await engine.backoffice.invoiceThread(params.number_or_id) }),
});

export const invoiceDocument = defineRoute({
  method: 'get',
  path: '/api/backoffice/invoices/:number_or_id/document',
  operationId: 'backofficeInvoiceDocument',
  tags: TAGS,
  summary: "An invoice's PDF: an attachment, the primary one, or a rendering of the invoice",
  description: `${OURS}\`file_name\` names one attachment; without it, the primary attachment (invoice_display), else the plain rendering reminders attach. Sent inline, to be shown in the page.`,
  params: Type.Object({ number_or_id: Type.String({ minLength: 1, maxLength: 100 }) }),
  query: InvoiceDocumentQuery,
  responses: { 200: { description: 'The PDF', schema: Type.String({ format: 'binary' }), contentType: 'application/pdf' }, 404: err('`invoice_not_found`, `attachment_not_found`') },
  async handler({ engine, params, query }) {
    const file = await engine.backoffice.invoiceDocument(params.number_or_id, query.file_name);
    const name = file.file_name.replace(/[^A-Za-z0-9._-]/g, '_');
    return { body: file.content, contentType: 'application/pdf', headers: { 'Content-Disposition': `inline; filename="${name}"` } };
  },
});

export const transactionOwedAgain = defineRoute({
  method: 'get',
  path: '/api/backoffice/transactions/:token/owed-again',
  operationId: 'backofficeTransactionOwedAgain',
  tags: TAGS,
  summary: 'The invoices a refund or void of a sale would put back owing',
  description: `${OURS}changing nothing, by the rule the refund itself follows: taken off the sale's last invoicing payment first, off its unapplied credit first, then off its invoices, last applied first. A confirmation says it before the refund or void is made.`,
  params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }),
  query: OwedAgainQuery,
  responses: { 200: { description: 'What would be owed again', schema: OwedAgain }, 404: err('`transaction_not_found`') },
  async handler({ engine, params, query }) {
    const owed = await engine.autopay.owedAgainIf(params.token, query.amount_cents ?? null);
    const payments = owed.map((p) => ({
      payment_reference: p.payment_reference,
      customer_identifier: p.customer_identifier,
      customer_name: p.customer_name,
      currency: p.currency,
      invoices: p.invoices.map((i) => ({ invoice_number: i.invoice_number, display_number: i.display_number, owed_again_cents: i.cents })),
    }));
    return { body: { payments } };
  },
});

export const backofficeDetailRoutes = [customerChildren, invoiceThread, invoiceDocument, transactionOwedAgain];
