import { defineCollection, keyField, type CollectionDef } from '../schema';

/** Index range for internal invoice ids (the watermark of an invoice's first version). */
const idNumber = { type: 'number', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 } as const;

/**
 * Customers: `id` is a stable internal token (the public identifier can be renamed), looked up
 * by `identifier`; `parent` is the parent's internal id ('' for none) so a rename or a cycle check
 * finds children without a scan.
 */
export const customers = defineCollection('customers', {
  fields: { identifier: keyField(100), parent: keyField(32) },
  indexes: [['watermark'], ['identifier'], ['parent']],
});

/**
 * Invoices: `id` is the invoice number (unique within the supplier, never renamed). `feed` is
 * 'open' (owing is not zero), 'closed' or 'deleted', so the open-invoice export range-scans
 * [feed, watermark]; `customer` (internal id) serves a customer's invoices and renames; `iid`
 * is the numeric id clients may look an invoice up by; `division` guards division deletes.
 */
export const invoices = defineCollection('invoices', {
  fields: {
    display_number: keyField(100),
    customer: keyField(32),
    feed: keyField(8),
    division: keyField(60),
    iid: idNumber,
  },
  indexes: [['watermark'], ['feed', 'watermark'], ['customer', 'watermark'], ['display_number'], ['iid'], ['division']],
});

/** Invoicing payments: `id` is the payment reference (the imported identifier or a generated one). */
export const payments = defineCollection('payments', {
  fields: { token: keyField(64), customer: keyField(32) },
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
