import type { CollectionLayout } from '../../store/schema';

/**
 * How invoice rows are laid out in the store, beside the codec that writes them (invoice-codec.ts):
 * the store takes this as configuration when the invoices collection is created and knows none of
 * these fields.
 */

/** The stored export rendering (JSON text): in its own column it is neither escaped on write nor parsed on read. */
export const INVOICE_VIEW_PATH = 'data.view';

/**
 * What an invoice export page reads of each invoice besides its rendering (Store.project): the
 * watermark, whether to send it (feed, updated_ms) and its status basis. Kept beside the rendering
 * as a JSON array, so an export page takes them without parsing any document.
 */
export const INVOICE_EXPORT_FIELDS = ['watermark', 'feed', 'data.updated_ms', 'data.st'] as const;

export const invoiceLayout: CollectionLayout = {
  textColumns: [INVOICE_VIEW_PATH],
  projections: [INVOICE_EXPORT_FIELDS],
};
