import { Type } from '@sinclair/typebox';
import { component, ref } from './components';
import { ExportPage, ExportQuery } from './common';

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const FileImport = component(
  'FileImport',
  Type.Object({
    id: Type.Integer({ description: 'The import batch identifier.' }),
    file_name: Type.String({ description: 'The original file name (the `filename` part, else the file part\'s own name, else `upload.csv`).' }),
    file_size: Type.Integer({ description: 'Bytes as uploaded.' }),
    file_content_type: Type.String(),
    file_fingerprint: Type.String({ description: 'HMAC-SHA-256 of the file as uploaded (hex), under a key of this install: the same bytes give the same fingerprint here, and nothing about the file can be learned from it (a plain hash of a card file gives its card number back). The same file is refused for 24 hours unless forced.' }),
    file_errors_count: Type.Integer({ description: 'Records refused for a data error (see the batch errors).' }),
    error: Type.String({ description: 'Why a failed batch stopped, or why a completed invoice reconciliation closed none of the open invoices it leaves out (see `held_back`); empty otherwise.' }),
    result_message: Type.String({ description: 'e.g. `5487 invoices`, once complete; empty while the batch runs.' }),
    complete_at: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
    kind: Type.Union(['customers', 'invoices', 'payments', 'divisions', 'credit_cards', 'invoice_recon', 'payment_recon'].map((k) => Type.Literal(k)), {
      description: 'Told by the header row (docs/csv-imports.md).',
    }),
    created_at: Type.String(),
    lines_done: Type.Integer({ description: 'The last line of the file committed (the header is line 1).' }),
    lines_total: Type.Integer({ description: 'Lines in the file, the header\'s included.' }),
    held_back: Type.Union(
      [
        Type.Object({
          open_invoices: Type.Integer({ description: 'Open invoices here when the file had been read.' }),
          unlisted: Type.Integer({ description: 'Of those, the ones the file leaves out: none of them was closed.' }),
        }),
        Type.Null(),
      ],
      {
        description:
          'An invoice reconciliation whose file leaves out more than half of the open invoices, and more than 10, closes none of them unless it was uploaded with `confirm_close=true`: this says how many it left out, of how many (its `error` and `result_message` say it in words). Upload the same file again with `confirm_close=true` to close them. null otherwise.',
      },
    ),
  }),
);

export const ImportUpload = Type.Object({
  file: Type.String({
    contentEncoding: 'binary',
    description:
      'The CSV file (UTF-8, with or without BOM; CRLF or LF), at most 25 MB (413 above): a file part, or a text field holding the file\'s content. A file part is preferred: it is streamed to the data folder as it arrives, while a text field is held in memory until the whole form is read. Both take the same checks, encryption at rest and size limit.',
  }),
  filename: Type.Optional(Type.String({ description: 'Name of the original file (first 1024 characters); without it, the file part\'s own name, else `upload.csv`.' })),
  force: Type.Optional(Type.String({ description: '`true` (or 1, y, yes): import a file whose fingerprint was imported in the last 24 hours. It does not confirm a reconciliation\'s closing (`confirm_close`).' })),
  confirm_close: Type.Optional(
    Type.String({
      description:
        '`true` (or 1, y, yes), an invoice reconciliation file only: close the open invoices it leaves out even when they are more than half of the open invoices (and more than 10), which without it are all kept open and the batch says so (`held_back`). Also imports the file again within 24 hours: confirming is uploading the held-back file once more. Other kinds ignore it.',
    }),
  ),
});

export const ImportUploadQuery = Type.Object({
  // The words the form field takes, so `?force=1` (as a shell script writes it) is not a 400.
  force: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ enum: ['1', '0', 'y', 'n', 'yes', 'no'] })], {
      description: 'Same as the `force` form field: import a file seen in the last 24 hours again. true, 1, y or yes.',
    }),
  ),
  confirm_close: Type.Optional(
    Type.Union([Type.Boolean(), Type.String({ enum: ['1', '0', 'y', 'n', 'yes', 'no'] })], {
      description: 'Same as the `confirm_close` form field: an invoice reconciliation closes the open invoices it leaves out even when they are most of them. true, 1, y or yes.',
    }),
  ),
});

export const BatchPageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: '50 items are displayed per page.' })),
});

export const BatchParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The import batch identifier.' }) });

export const BatchError = component(
  'BatchError',
  Type.Object({
    line_number: Type.Integer({ description: 'Line of the file (the header is line 1).' }),
    field: Type.String({ description: 'The column (`line_item_attributes.amount` for a line item\'s); empty when the error is the whole line\'s.' }),
    code: Type.String(),
    error: Type.String(),
    // The refused record's naming cells (the reference's errors carry the record): an ERP matches an error to its record by them.
    number: Type.Optional(Type.String({ description: "The refused invoice's number (invoice and invoice reconciliation files)." })),
    identifier: Type.Optional(Type.String({ description: "The refused customer's or payment's identifier." })),
    customer_identifier: Type.Optional(Type.String({ description: 'The customer the refused invoice, payment or card names.' })),
    invoice_number: Type.Optional(Type.String({ description: 'The invoice the refused payment names (one-invoice payment rows).' })),
    payment_reconciliation_identifier: Type.Optional(Type.String({ description: "The refused payment reconciliation line's identifier." })),
  }),
);

export const BatchErrors = Type.Object({ message: Type.Array(ref(BatchError)) });

export const InvoiceRecon = component(
  'InvoiceReconResponse',
  Type.Object({
    number: Type.String(),
    division_code: nullableString,
    customer_number: Type.String(),
    customer_name: Type.String(),
    invoice_date: nullableString,
    payment_identifier: nullableString,
    payment_date: nullableString,
    orphaned_payment_amount: Type.String(),
    balance_in_arc: Type.String({ description: 'The balance here (after a correction).' }),
    balance_in_source_system: Type.String(),
    discrepancy_message: Type.String(),
    watermark: Type.Optional(Type.Integer()),
  }),
);

export const PaymentRecon = component(
  'PaymentReconResponse',
  Type.Object({
    payment_reconciliation_identifier: Type.String(),
    customer_identifier: Type.String(),
    discrepancy_message: Type.String(),
    payment_amount: Type.String(),
    payment_amount_in_source_system: Type.String(),
    applied_amount: Type.String(),
    applied_amount_in_source_system: Type.String(),
    unapplied_amount: Type.String(),
    unapplied_amount_in_source_system: Type.String(),
    payment_date: Type.String(),
    payment_date_in_source_system: Type.String(),
    external_payment_number: Type.String({ description: "The payment's external number here ('' when it has none, or the payment is not here)." }),
    external_payment_number_in_source_system: Type.String({ description: "The external number the file gives the payment (column `external_payment_number_in_source_system`); '' when the file has no such column or leaves it empty. Compared with ours when given." }),
    currency: Type.String({ description: "The payment's currency here (ISO 4217, lower case); '' when the payment is not here." }),
    currency_in_source_system: Type.String({
      description: "The currency the file gives the payment (column `currency_in_source_system`, ISO 4217, answered lower case); '' when the file has no such column or leaves it empty. When given it is compared with ours and the file's amounts are shown in it.",
    }),
    watermark: Type.Optional(Type.Integer()),
  }),
);

export const ReconParams = Type.Object({ batch_file_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
export const ReconQuery = ExportQuery;
export const InvoiceReconPage = Type.Object({ reconciliation_invoices: ExportPage(ref(InvoiceRecon)) });
export const PaymentReconPage = Type.Object({ reconciliation_payments: ExportPage(ref(PaymentRecon)) });
