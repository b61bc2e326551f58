import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { MAIL_HEADER_DOC, mailHeaders } from '../mail-headers';
import { exportParams, exportShape } from '../exports';
import { ErrorBody, ExportPage, ExportQuery } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { ImportResult } from '../../shared/schemas/receivables-common';
import { CustomerImport, CustomerImportQuery, CustomerListItem, CustomerOpenInvoice, CustomerView, IdentifierParams, InvitationBody, UpdateIdentifierBody } from '../../shared/schemas/receivables-customers';

const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const TAGS = ['Customers'];

export const importCustomer = defineRoute({
  method: 'post',
  path: '/api/imports/customer',
  nullMeansAbsent: true,
  operationId: 'importCustomer',
  tags: TAGS,
  summary: 'Create and update a customer',
  description:
    'An existing identifier updates the customer. Contacts: added, or updated unless signed up; with replace_contacts, stored supplier-created contacts absent from the payload are deleted (disabled when signed up). ' +
    'last_contact_date is ignored when older than the stored one; next_contact_date always overwrites. Extra attributes are stored and returned in `attributes_marshal`. ' +
    'Any broken rule answers 412 naming each field, and nothing changes.',
  body: CustomerImport,
  query: CustomerImportQuery,
  invalidKind: 'precondition',
  responses: { 201: { description: 'Created or updated', schema: ref(ImportResult) }, 412: err('A field rule failed (with create_only, `customer_exists` for an identifier already used)') },
  async handler({ engine, body, query }) {
    return { status: 201, body: await engine.receivables.importCustomer(body, { createOnly: query.create_only === true }) };
  },
});

export const viewCustomer = defineRoute({
  method: 'get',
  path: '/api/exports/customer/:identifier',
  operationId: 'viewCustomer',
  tags: TAGS,
  summary: 'Export/view a customer',
  description:
    'Balances and aging are computed as of today in the shop\'s time zone, in the customer\'s main currency (most of its invoices, else the account currency), formatted like "$1,234.56". Aging buckets count days past due (1-30, 31-60, 61-90, 91+); an invoice without a due date is due on its date.',
  params: IdentifierParams,
  responses: { 200: { description: 'The customer', schema: ref(CustomerView) }, 404: err('No such customer') },
  async handler({ engine, params }) {
    return { body: await engine.receivables.viewCustomer(params.identifier) };
  },
});

const customersPage = Type.Object({ customers: ExportPage(ref(CustomerListItem)) });

export const exportCustomers = defineRoute({
  method: 'get',
  path: '/api/exports/customers',
  operationId: 'exportCustomers',
  tags: TAGS,
  summary: 'Export customers changed after the watermark',
  description: 'Every customer whose current version is newer than `watermark`, oldest first, `limit` (1..2500, default 100) at a time; money in cents of the main currency.',
  query: ExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: customersPage } },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { customers: exportShape(await engine.receivables.exportCustomers(p, false), p.list) } };
  },
});

export const exportCustomersRecent = defineRoute({
  method: 'get',
  path: '/api/exports/customers/recent',
  operationId: 'exportCustomersRecent',
  tags: TAGS,
  summary: 'Export customers updated in the past 7 days',
  query: ExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: customersPage } },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { customers: exportShape(await engine.receivables.exportCustomers(p, true), p.list) } };
  },
});

export const exportCustomerOpenInvoices = defineRoute({
  method: 'get',
  path: '/api/exports/customer/:identifier/open_invoices',
  operationId: 'exportCustomerOpenInvoices',
  tags: TAGS,
  summary: 'Export the open invoices of a customer',
  description: 'Invoices (and credit memos) of the customer with an owing other than zero, changed after `watermark`, wrapped in `open_invoices` as the reference\'s example shows.',
  params: IdentifierParams,
  query: ExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: Type.Object({ open_invoices: ExportPage(ref(CustomerOpenInvoice)) }) }, 404: err('No such customer') },
  async handler({ engine, params, query }) {
    const p = exportParams(query);
    return { body: { open_invoices: exportShape(await engine.receivables.exportCustomerOpenInvoices(params.identifier, p), p.list) } };
  },
});

export const updateCustomerIdentifier = defineRoute({
  method: 'post',
  path: '/api/imports/customers/:identifier/update_identifier',
  operationId: 'updateCustomerIdentifier',
  tags: TAGS,
  summary: "Update a customer's identifier",
  description: 'Renames the customer and every record carrying its identifier (invoices, payments, allocations, children, wallets, autopay agreements); each gets a new watermark. 412 when the customer is not found or the new identifier is taken.',
  params: IdentifierParams,
  body: UpdateIdentifierBody,
  invalidKind: 'precondition',
  responses: {
    200: { description: 'Renamed', schema: Type.Object({ message: Type.String(), identifier: Type.String() }) },
    412: {
      description: 'Not found, taken or invalid. Beside the error fields, `importer` as the reference shows it.',
      schema: Type.Intersect([ref(ErrorBody), Type.Object({ importer: Type.Optional(Type.String({ description: 'The importer\'s errors as a string, e.g. `{:customer=>["not found."]}` (not for a malformed body).' })) })]),
    },
  },
  errorShape: 'importer',
  async handler({ engine, params, body }) {
    return { body: await engine.receivables.updateIdentifier(params.identifier, body.new_identifier) };
  },
});

const invitationResponses = {
  200: { description: 'Done', schema: Type.Object({}) },
  403: err('The customer is closed, or (cancel) the email was invited by a customer user'),
  404: err('No such customer (or no pending invitation to cancel)'),
};

export const issueInvitation = defineRoute({
  method: 'post',
  path: '/api/invitations',
  operationId: 'issueInvitation',
  tags: TAGS,
  summary: 'Issue an invitation',
  description: 'An email that is not a contact of the customer becomes one. Re-inviting sends again; a signed-up contact is left as is. The invitation is emailed through the mail outbox (not when the customer\'s notifications are suppressed): queued when this answers, the Laneway-Mail-Messages header naming the message (empty when none was queued).',
  body: InvitationBody,
  responses: { ...invitationResponses, 200: { ...invitationResponses[200], headers: MAIL_HEADER_DOC } },
  async handler({ engine, body }) {
    return { body: {}, headers: mailHeaders(await engine.notifications.invite(body.identifier, body.email)) };
  },
});

export const cancelInvitation = defineRoute({
  method: 'delete',
  path: '/api/invitations',
  operationId: 'cancelInvitation',
  tags: TAGS,
  summary: 'Cancel an invitation',
  description: 'The contact stays; its pending invitation is withdrawn.',
  body: InvitationBody,
  responses: invitationResponses,
  async handler({ engine, body }) {
    await engine.receivables.cancelInvitation(body.identifier, body.email);
    return { body: {} };
  },
});

export const customerRoutes = [importCustomer, viewCustomer, exportCustomers, exportCustomersRecent, exportCustomerOpenInvoices, updateCustomerIdentifier, issueInvitation, cancelInvitation];
