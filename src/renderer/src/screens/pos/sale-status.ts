import type { Sale } from '../../api/pos';

/** A sale's status as the cashier reads it. */
export const SALE_STATUS: Record<Sale['status'], string> = { open: 'Open', paid: 'Paid', voided: 'Voided', partially_refunded: 'Partly refunded', refunded: 'Refunded' };
