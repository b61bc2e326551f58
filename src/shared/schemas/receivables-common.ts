import { Type, type TSchema } from '@sinclair/typebox';
import { component } from './components';
import { ExportQuery } from './common';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const NullableString = Nullable(Type.String());
export const Text = (description: string, maxLength = 200) => Type.String({ maxLength, description });
export const Date8601 = (description: string) => Type.String({ format: 'date', description });
export const CentsField = (description: string) => Type.Integer({ description: `${description} Minor currency units.` });

/**
 * The read-only fields every export record of a customer, invoice or payment carries and the import
 * operations skip: a client that sends back what it read is not refused, and they are never stored
 * as extra attributes.
 */
export const ReadOnlyImportFields = {
  watermark: Type.Optional(Type.Integer({ minimum: 0, description: 'Read-only (assigned at each change, as exports show it): accepted so that a record read can be sent back, and ignored.' })),
};
export const IMPORT_READ_ONLY_FIELDS: ReadonlySet<string> = new Set(Object.keys(ReadOnlyImportFields));

/** The answer of every import operation (customer, invoice, payment, division). */
export const ImportResult = component(
  'ImportResult',
  Type.Object({
    identifier: Type.String({ description: 'The identifier of the record created or updated.' }),
    message: Type.String({ description: 'A count summary, e.g. "1 customer with 3 contacts".' }),
  }),
);

/** Export query plus the reference's `options[...]` flags. */
export const InvoiceExportQuery = Type.Composite([
  ExportQuery,
  Type.Object({
    options: Type.Optional(
      Type.Object({
        include_deleted_invoices: Type.Optional(
          Type.Boolean({ description: 'true: deleted invoices are included and every invoice carries `deleted`.' }),
        ),
      }),
    ),
  }),
]);

export const PaymentExportQuery = Type.Composite([
  ExportQuery,
  Type.Object({
    options: Type.Optional(
      Type.Object({
        export_payment_tree: Type.Optional(Type.Boolean({ description: 'true adds `payment_tree`.' })),
        fx: Type.Optional(Type.Boolean({ description: 'Accepted; Laneway converts no currency, so the fx_* fields (`fx_rate`, `fx_amount`, `fx_amount_cents`) are null with or without it.' })),
      }),
    ),
  }),
]);
