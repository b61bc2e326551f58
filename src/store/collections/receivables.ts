import { defineCollection, keyField, type CollectionDef } from '../schema';

// Index keys are padded to their field's maxLength and stored in every row and index, so the
// bounds below are as tight as the validation allows: exports read whole rows.

/**
 * Customers: `id` is a stable internal token (the public identifier can be renamed), looked up
 * by `identifier`; `parent` is the parent's internal id ('' for none) so a rename or a cycle check
 * finds children without a scan.
 */
export const customers = defineCollection('customers', {
  fields: { identifier: keyField(100), parent: keyField(16) },
  indexes: [['watermark'], ['identifier'], ['parent']],
});

/**
 * Invoices: `id` is the invoice number (unique within the supplier, never renamed). `feed` is
 * 'open' (owing is not zero), 'closed' or 'deleted', so the open-invoice export range-scans
 * [feed, watermark]; `customer` (internal id) serves a customer's invoices and renames;
 * `division` guards division deletes. (The numeric id is found through the event outbox, so it
 * needs no index.)
 */
export const invoices = defineCollection('invoices', {
  fields: {
    display_number: keyField(64),
    customer: keyField(16),
    feed: keyField(8),
    division: keyField(40),
  },
  indexes: [['watermark'], ['feed', 'watermark'], ['customer', 'watermark'], ['display_number'], ['division']],
  idLength: 64,
  // Its row layout (text columns, projections) is the receivables domain's, given when the store
  // is opened (engine/receivables/invoice-layout.ts).
});

/** Invoicing payments: `id` is the payment reference (the imported identifier or a generated one). */
export const payments = defineCollection('payments', {
  fields: { token: keyField(64), customer: keyField(16) },
  indexes: [['watermark'], ['token'], ['customer', 'watermark']],
});

/**
 * One document per payment allocation (a payment applied to one invoice), so the allocation
 * export pages by its own watermark; `invoice` serves an invoice's payments.
 */
export const paymentAmounts = defineCollection('payment_amounts', {
  fields: { invoice: keyField(100), payment: keyField(100) },
  indexes: [['watermark'], ['invoice']],
  idLength: 110,
});

export const receivablesCollections: CollectionDef[] = [customers, invoices, payments, paymentAmounts];
