import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route';
import { admits } from '../../engine/account';
import { exportParams, exportShape } from '../exports';
import { ErrorBody, ExportPage, ExportQuery } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import { ImportResult, PaymentExportQuery } from '../../shared/schemas/receivables-common';
import { CreditApplications, PaymentAmountView, PaymentImport, PaymentImportQuery, PaymentView, PaymentViewQuery } from '../../shared/schemas/receivables-payments';

const err = (description: string) => ({ description, schema: ref(ErrorBody) });
const TAGS = ['Invoicing Payments'];

export const importPayment = defineRoute({
  method: 'post',
  path: '/api/imports/payment',
  nullMeansAbsent: true,
  operationId: 'importPayment',
  tags: TAGS,
  summary: 'Create or update a payment',
  description:
    'One invoice (invoice_number with amount_cents) or several (payment_amounts_attributes). Each invoice takes at most what it owes; the rest of the payment is unapplied credit on the customer. ' +
    'The customer is created when absent. An existing identifier is updated: its allocations are taken back and applied anew, to the invoices the update names; an update that names none (neither invoice_number nor payment_amounts_attributes) keeps the ones it had, and `payment_amounts_attributes: []` takes the payment off every invoice. A payment made in Laneway accepts only its total without or with fees. ' +
    'Every invoice must be the payment\'s customer\'s (the one named, else the stored payment\'s, else the first invoice\'s): another customer\'s invoice is refused with `invoice_of_another_customer`, naming it. ' +
    'payment_total is the CSV name of the total and is refused here (send amount_cents). A bank account number is kept as its last four digits. Any broken rule answers 412.',
  body: PaymentImport,
  query: PaymentImportQuery,
  invalidKind: 'precondition',
  responses: {
    201: { description: 'Created or updated', schema: ref(ImportResult) },
    403: err('A clerk (collect without manage) naming a customer_identifier not on file: `customer_not_on_file` (the payment would create the customer); or an identifier already recorded: `role_forbidden` (a clerk records new payments, an owner or manager changes them)'),
    412: err('A field rule failed (with create_only, `payment_exists` for an identifier already recorded; `invoice_of_another_customer` for an invoice not the payment\'s customer\'s)'),
  },
  async handler({ engine, body, query, principal }) {
    // A clerk records payments (collect) but neither makes customers nor edits records (manage).
    const clerk = !principal || !admits(principal, 'api', ['manage']);
    return { status: 201, body: await engine.receivables.importPayment(body, 'json', { createOnly: query.create_only === true, customersOnFile: clerk, recordOnly: clerk }) };
  },
});

export const viewPayment = defineRoute({
  method: 'get',
  path: '/api/exports/payment/:reference_or_token',
  operationId: 'viewPayment',
  tags: TAGS,
  summary: 'Export/view a payment',
  description: 'Matched against payment_reference, then payment_transaction_token. options[export_payment_tree]=true adds payment_tree.',
  params: Type.Object({ reference_or_token: Type.String({ minLength: 1, maxLength: 100 }) }),
  query: PaymentViewQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'The payment', schema: ref(PaymentView) }, 404: err('No such payment') },
  async handler({ engine, params, query }) {
    return { body: await engine.receivables.viewPayment(params.reference_or_token, { tree: query.options?.export_payment_tree === true }) };
  },
});

const paymentsPage = Type.Object({ payments: ExportPage(ref(PaymentView)) });

export const exportPayments = defineRoute({
  method: 'get',
  path: '/api/exports/payments',
  operationId: 'exportPayments',
  tags: TAGS,
  summary: 'Export payments changed after the watermark',
  query: PaymentExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: paymentsPage } },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { payments: exportShape(await engine.receivables.exportPayments(p, false, { tree: query.options?.export_payment_tree === true }), p.list) } };
  },
});

export const exportPaymentsRecent = defineRoute({
  method: 'get',
  path: '/api/exports/payments/recent',
  operationId: 'exportPaymentsRecent',
  tags: TAGS,
  summary: 'Export payments updated in the past 7 days',
  query: PaymentExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: paymentsPage } },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { payments: exportShape(await engine.receivables.exportPayments(p, true, { tree: query.options?.export_payment_tree === true }), p.list) } };
  },
});

export const exportPaymentAmounts = defineRoute({
  method: 'get',
  path: '/api/exports/payment_amounts',
  operationId: 'exportPaymentAmounts',
  tags: TAGS,
  summary: 'Export payment allocations',
  description: 'One record per payment applied to an invoice, by its own watermark. An allocation a payment update removed is exported once more with amount "0.00" and `removed: true`.',
  query: ExportQuery,
  responses: { 400: err('Invalid query (limit 1..2500, watermark, list, options)'), 200: { description: 'A page', schema: Type.Object({ payment_amounts: ExportPage(ref(PaymentAmountView)) }) } },
  async handler({ engine, query }) {
    const p = exportParams(query);
    return { body: { payment_amounts: exportShape(await engine.receivables.exportPaymentAmounts(p), p.list) } };
  },
});

export const applyPaymentCredit = defineRoute({
  method: 'post',
  path: '/api/receivables/payments/:reference/applications',
  operationId: 'applyPaymentCredit',
  tags: TAGS,
  summary: "Apply a payment's unapplied credit to open invoices",
  description:
    'Not in the reference (its payment import replaces the whole list of invoices a payment pays). Each amount is added to what the payment gives that invoice; what it paid before stays as it was, lines, discounts and remittance details included. ' +
    'Refused with 412, nothing changed, unless every invoice is an open one of the payment\'s customer in its currency, owes at least its amount, and the amounts together fit in the unapplied credit (`invoice_not_found`, `invoice_of_another_customer`, `currency_mismatch`, `more_than_owing`, `more_than_credit`, `payment_reversed`). Needs the `collect` grant (a clerk records payments too).',
  params: Type.Object({ reference: Type.String({ minLength: 1, maxLength: 100 }) }),
  body: CreditApplications,
  invalidKind: 'precondition',
  responses: { 200: { description: 'The payment as it now stands', schema: ref(PaymentView) }, 404: err('`payment_not_found`'), 412: err('A rule failed (see the description)') },
  async handler({ engine, params, body }) {
    return { body: await engine.receivables.applyCredit(params.reference, body.applications) };
  },
});

export const paymentRoutes = [importPayment, applyPaymentCredit, viewPayment, exportPayments, exportPaymentsRecent, exportPaymentAmounts];
