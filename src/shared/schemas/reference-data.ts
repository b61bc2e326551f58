import { Type } from '@sinclair/typebox';
import { component } from './components';

export const ResponseCode = component(
  'ResponseCode',
  Type.Object({
    // An integer, as the spec has it ("`code` (integer)") and the reference's own example (100),
    // though its schema says string: the spec wins. So a transaction's integer `response_code` is
    // found in this list by equality.
    code: Type.Integer({ minimum: 100, maximum: 999, examples: [211] }),
    description: Type.String({ examples: ['Account number invalid'] }),
  }),
);

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const BinRecord = component(
  'BIN',
  Type.Object({
    bin: Type.String({ pattern: '^[0-9]{6,8}$' }),
    brand: Type.String({ examples: ['VISA'] }),
    type: nullableString,
    category: nullableString,
    country: nullableString,
    bank: nullableString,
    phone: nullableString,
    url: nullableString,
  }),
);

export const BinParams = Type.Object({
  bin: Type.String({ pattern: '^[0-9]{6,8}$', minLength: 6, maxLength: 8, description: 'Bank identification number: 6 to 8 digits.' }),
});
