/**
 * The point of sale (register) API under /api/pos: catalog, cashiers and their shifts on a lane,
 * sales (a draft order plus register records), tenders, voids and refunds, receipts, X and Z
 * reports. Amounts are integer minor units of the account currency; tax rates and discounts are
 * percentages (13, 8.875).
 */
// One module per part; this order is the order of the components in the OpenAPI document.
export { TENDER_TYPES, type TenderType } from './register-common';
export * from './register-catalog';
export * from './register-sales';
export * from './register-reports';
