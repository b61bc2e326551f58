import type { StoreLayouts } from '../store/schema';
import { invoiceLayout } from './receivables/invoice-layout';

/**
 * How each domain lays out its rows in the store (text columns, projections), by collection: what
 * whoever opens the data store passes it (`openDataStore({ layouts: storeLayouts })`), so that the
 * store knows no domain's fields and every opener lays the rows out the same way.
 */
export const storeLayouts: StoreLayouts = {
  invoices: invoiceLayout,
};
