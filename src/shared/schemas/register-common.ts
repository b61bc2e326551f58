import { Type } from '@sinclair/typebox';
import { AMOUNT_OF, Cents } from './common';
import { literals } from './lanes';

export { Cents };

/** Building blocks of the register schemas (register-*.ts), shared by its catalog, sales and reports. */
export const nullableString = Type.Union([Type.String(), Type.Null()]);
export const nullableInt = Type.Union([Type.Integer(), Type.Null()]);
/**
 * The register's limits, one definition for the server's schemas, the engine and the screens: a
 * price (catalog, open item, override) or a discount amount, in minor units (99,999.99); a line's
 * quantity; what one tender takes (cash handed over, or an amount paid), and so the most a sale may
 * come to, since a sale must be payable.
 */
export const MAX_PRICE_CENTS = 9_999_999;
export const MAX_QUANTITY = 999;
export const MAX_TENDER_CENTS = 999_999_999;

export const Money = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_PRICE_CENTS, description, [AMOUNT_OF]: 'A price' });
export const TaxRate = Type.Number({ minimum: 0, maximum: 100, description: 'Tax rate in percent, at most three decimals (13, 8.875).' });
export const ShiftId = Type.String({ minLength: 1, maxLength: 64, description: 'The cashier\'s shift on a lane (from POST /api/pos/shifts): who does this, and on which lane.' });

export const TENDER_TYPES = ['card', 'cash', 'cheque', 'gift_card', 'other'] as const;
export type TenderType = (typeof TENDER_TYPES)[number];
export const TenderTypeSchema = literals(TENDER_TYPES);

export const CardFacts = Type.Object({
  brand: Type.String(),
  masked_number: nullableString,
  last4: Type.String(),
  entry_mode: nullableString,
  aid: nullableString,
  application_label: nullableString,
  tvr: nullableString,
  tsi: nullableString,
  cardholder_verification: nullableString,
  authorization_code: nullableString,
  signature: Type.Boolean({ description: 'A signature was captured on the device (the receipt carries the image).' }),
});
