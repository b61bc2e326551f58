import { Type } from '@sinclair/typebox';
import { component } from './components';

export const ResponseCode = component(
  'ResponseCode',
  Type.Object({
    // A string, as the reference's ResponseCode has it: clients generated from it (Go, Rust, Swift,
    // Python's pydantic) refuse a JSON number there. A transaction's `response_code` stays an integer.
    code: Type.String({ pattern: '^[0-9]+$', examples: ['211'] }),
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
