import type { Sale } from '../../api/pos';
import { orderStateText } from '../../format';

/** A sale's status as the cashier reads it: the words the back office uses for the same sale. */
export const SALE_STATUS = Object.fromEntries((['open', 'paid', 'voided', 'partially_refunded', 'refunded'] as const).map((s) => [s, orderStateText(s)])) as Record<Sale['status'], string>;
