import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { component } from './components';

/**
 * A schema's own words for the values it takes (`{ [EXPECTED]: 'a whole number of cents' }`), for a
 * union whose forms (an integer, or its digits as text) would otherwise be listed one by one: a
 * refused request then says `amount_cents must be a whole number of cents` (src/server/validation.ts).
 */
export const EXPECTED = 'x-expected';

/**
 * An amount in the account's minor units, with what it is in words (`{ [AMOUNT_OF]: 'A price' }`):
 * a value past its limits is then refused as `A price is at most $99,999.99`, written in the
 * request's locale (src/server/validation.ts), not in cents under its field's path.
 */
export const AMOUNT_OF = 'x-amount-of';

/** 2^63 - 1 as a double: JSON numbers are doubles, and our watermarks stay far below 2^53. */
export const INT64_MAX = 2 ** 63 - 1;

/** The error body of every non-gateway failure. */
export const ErrorBody = component(
  'Error',
  Type.Object(
    {
      error: Type.String({ description: 'What went wrong, for people.' }),
      code: Type.Union([Type.String(), Type.Integer()], {
        description: 'Stable machine code (e.g. `customer_not_found`); 1015 for rate limiting.',
      }),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.Optional(Type.String()),
            code: Type.Optional(Type.String()),
            message: Type.String(),
          }),
        ),
      ),
    },
    { description: 'Error body. `error` is always present, as in the reference API.' },
  ),
);

/** Gateway operation failures keep the reference API's shape: `success: false` and `errors`. */
export const GatewayErrorBody = component(
  'GatewayError',
  Type.Object({
    success: Type.Literal(false),
    errors: Type.Array(Type.String(), { description: 'Stable codes such as `order_not_found`, or the reference\'s validation sentence (`Validation failed: ...`).' }),
    response_code: Type.Integer({ description: '250 for `order_not_found`, 999 for every other operation error (the reference sandbox\'s codes).' }),
  }),
);

export const Watermark = Type.Integer({
  minimum: 0,
  maximum: INT64_MAX,
  format: 'int64',
  description: 'Strictly increasing 64-bit change counter; pass the greatest one seen to get what changed after it.',
});

/** The polling convention shared by every export: watermark, list, limit. */
export const ExportQuery = Type.Object({
  watermark: Type.Optional(Type.Integer({ minimum: 0, maximum: INT64_MAX, format: 'int64', default: 0 })),
  list: Type.Optional(Type.Boolean({ default: false, description: 'true (or 1): a flat array whose records carry `watermark`.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2500, default: 100 })),
});
export type ExportQuery = Static<typeof ExportQuery>;

/** An export page: an object keyed by watermark (ordered), or with list=true an array. */
export function ExportPage<T extends TSchema>(item: T) {
  return Type.Union([Type.Record(Type.String({ pattern: '^[0-9]+$' }), item), Type.Array(item)]);
}

export const Cents = Type.Integer({ description: 'Minor currency units' });
