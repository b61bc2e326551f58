import { Type } from '@sinclair/typebox';
import { component } from './components';

export const DivisionImport = component(
  'DivisionImport',
  Type.Object({
    code: Type.String({ minLength: 1, maxLength: 40, description: 'Division code used on invoices; an existing code is updated.' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    external_id: Type.Optional(Type.String({ maxLength: 100 })),
    deleted: Type.Optional(Type.Boolean({ description: 'true: inactive. Refused while an invoice or a child division refers to it.' })),
    parent_code: Type.Optional(Type.String({ maxLength: 40, description: 'An existing division; an unknown code creates the division without a parent.' })),
  }),
);

export const CountryCodes = component(
  'ResponseCountryCodes',
  Type.Object({
    countries: Type.Record(Type.String(), Type.String(), { description: 'ISO 3166-1 alpha-2 code to name.' }),
    provinces: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.String())), {
      description: 'Per country, its ISO 3166-2 subdivisions as {code after the hyphen: name}.',
    }),
  }),
);
