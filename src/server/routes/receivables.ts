import { customerRoutes } from './receivables-customers';
import { invoiceRoutes } from './receivables-invoices';
import { paymentRoutes } from './receivables-payments';
import { divisionRoutes } from './receivables-divisions';

/** Customers, invoices, invoicing payments, divisions and country reference data. */
export const receivablesRoutes = [...customerRoutes, ...invoiceRoutes, ...paymentRoutes, ...divisionRoutes];
