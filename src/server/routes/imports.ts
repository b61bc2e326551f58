import busboy from 'busboy';
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { Type } from '@sinclair/typebox';
import { defineRoute, type AnyRoute, type Reply } from '../route';
import { exportParams, exportShape } from '../exports';
import { fail } from '../../engine/errors';
import type { Engine } from '../../engine';
import { MAX_FILE_BYTES, notUtf8, type UploadMeta } from '../../engine/imports';
import { ErrorBody } from '../../shared/schemas/common';
import { ref } from '../../shared/schemas/components';
import {
  BatchErrors,
  BatchPageQuery,
  BatchParams,
  FileImport,
  ImportUpload,
  ImportUploadQuery,
  InvoiceReconPage,
  PaymentReconPage,
  ReconParams,
  ReconQuery,
} from '../../shared/schemas/imports';

const TAGS = ['File Imports'];
const LAYOUTS = 'The layouts (one per kind, told by the header row) are in docs/csv-imports.md. Fields are separated by commas, or by semicolons or tabs when the header row is written with them (as a spreadsheet saves CSV where the decimal mark is a comma).';

/** Bytes of a refused upload read and dropped so the client gets its answer; past this the connection is cut. */
const DRAIN_MAX = 2 * MAX_FILE_BYTES;

const truthy = (v: unknown) => v === true || (typeof v === 'string' && ['true', '1', 'y', 'yes'].includes(v.toLowerCase()));

/** The small form fields (`filename`, `force`, `confirm_close`) are kept to this many characters. */
const SMALL_FIELD_MAX = 1024;

/**
 * The file sent as a text field (generated clients of the reference, which types `file` as a plain
 * string; Python's `data={'file': text}`), as the bytes a file part would have carried. busboy
 * decodes a field as UTF-8 unless the part declares another charset, putting U+FFFD for bytes that
 * are not UTF-8: that is a file that is not UTF-8, refused as a file part holding them is (415,
 * naming the line). A field cut at the size limit goes on as it is, for the file's own limit (413).
 */
function textFieldBytes(value: string | undefined, truncated: boolean): Buffer {
  if (typeof value !== 'string') throw fail.unsupportedMedia('not_csv', 'The `file` field declares a charset that cannot be read: send the file as UTF-8');
  const bad = truncated ? -1 : value.indexOf('\uFFFD');
  if (bad !== -1) {
    let line = 1;
    for (let i = value.indexOf('\n'); i !== -1 && i < bad; i = value.indexOf('\n', i + 1)) line++;
    throw notUtf8(line);
  }
  return Buffer.from(value, 'utf8');
}

/**
 * Streams the `file` part into the engine (never held in memory) and gathers the other parts;
 * the engine asks for them once the file is in. A `file` sent as a text field instead is held in
 * memory by busboy (up to the file limit) and takes the same way in once the form is read.
 */
function receive(engine: Engine, req: Request, flags: { force: boolean; confirmClose: boolean }): Promise<Reply> {
  let bb: busboy.Busboy;
  try {
    // fieldSize is for a `file` text field (the file's limit, and one byte to tell a larger one);
    // the other fields are cut to SMALL_FIELD_MAX as they arrive, one held at a time.
    bb = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fieldSize: MAX_FILE_BYTES + 1, fileSize: MAX_FILE_BYTES + 1 } });
  } catch {
    return Promise.reject(fail.unsupportedMedia('unsupported_media_type', 'Upload the file as multipart/form-data (parts `file` and `filename`)'));
  }
  const fields: Record<string, string> = {};
  let textFile: { value: string | undefined; truncated: boolean } | undefined;
  const closed = new Promise<void>((resolve) => bb.on('close', resolve));
  // A body that ends mid-part, or a client gone mid-upload, ends neither the file part nor busboy:
  // the part is failed so the engine drops what it stored (otherwise kept in the data folder for good).
  let part: Readable | undefined;
  let gone = false;
  const cutShort = () => {
    gone = true;
    part?.destroy(fail.invalid('bad_multipart', 'The upload was cut short'));
  };
  // Under load the client may be gone before this handler runs: its close has been emitted already.
  if (req.destroyed && !req.complete) gone = true;
  req.on('close', () => {
    if (!req.complete) cutShort();
  });
  const outcome = new Promise<Reply>((resolve, reject) => {
    let seen = false;
    const meta = (fileName: string | undefined, contentType: string) => async (): Promise<UploadMeta> => {
      await closed;
      return {
        fileName: fields.filename || fileName || 'upload.csv',
        contentType,
        force: flags.force || truthy(fields.force),
        confirmClose: flags.confirmClose || truthy(fields.confirm_close),
      };
    };
    const take = (stream: Readable, fileMeta: () => Promise<UploadMeta>) => {
      seen = true;
      engine.imports.upload(stream, fileMeta).then((batch) => resolve({ status: 201, body: batch }), reject);
    };
    bb.on('field', (name, value, info) => {
      if (name === 'file') textFile = { value: value as string | undefined, truncated: info.valueTruncated };
      else if (name === 'filename' || name === 'force' || name === 'confirm_close') fields[name] = value.slice(0, SMALL_FIELD_MAX);
    });
    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || seen) return stream.resume();
      part = stream;
      if (gone) cutShort();
      take(stream, meta(info.filename, info.mimeType || 'text/csv'));
    });
    bb.on('close', () => {
      if (seen) return;
      if (!textFile) return reject(fail.precondition('file_missing', 'The form has no `file` part'));
      let bytes: Buffer;
      try {
        bytes = textFieldBytes(textFile.value, textFile.truncated);
      } catch (err) {
        return reject(err);
      }
      textFile = undefined;
      take(Readable.from([bytes], { objectMode: false }), meta(undefined, 'text/csv'));
    });
    bb.on('error', () => {
      cutShort();
      reject(fail.invalid('bad_multipart', 'The multipart body is malformed or cut short'));
    });
  });
  req.pipe(bb);
  return outcome.catch((err: unknown) => {
    // A refused upload is read to its end (up to a bound) so the client, still sending, gets the answer.
    req.unpipe(bb);
    let drained = 0;
    req.on('data', (c: Buffer) => {
      drained += c.length;
      if (drained > DRAIN_MAX) req.destroy();
    });
    req.resume();
    throw err;
  });
}

export const uploadImport = defineRoute({
  method: 'post',
  path: '/api/imports',
  operationId: 'importCsvFile',
  tags: TAGS,
  summary: 'Import a CSV file',
  description: `multipart/form-data with the file (\`file\`, at most 25 MB) and its name (\`filename\`). \`file\` is a file part (preferred: it is streamed to the data folder as it arrives) or a text field holding the file's content (as clients generated from the reference, which types it a plain string, send it: a text field is held in memory until the form is read); either goes through the same checks, encryption at rest and 25 MB limit. Answered at once with the batch; the lines are imported in the background, each through the rules of its JSON import, and progress is on the event stream (\`import.progress\`). Refused, with nothing written: over 25 MB (413), not CSV (415: binary, or a byte anywhere that is not UTF-8, the line named), an empty file, an unknown header row or one that gives a column twice (412), a file imported in the last 24 hours, or being imported now, unless \`force\` (409; a batch that failed did not import its file and refuses nothing). An invoice reconciliation file is the ERP's complete list of open invoices: the open invoices it leaves out are closed, and a closed invoice cannot be imported again. A file that leaves out more than half of the open invoices, and more than 10, is far more often the wrong file (a sample, another shop's list, an export cut short) than a day's payments: its lines are reconciled but it closes none of them, and the completed batch says so in \`held_back\`, \`error\` and \`result_message\`. Upload it again with \`confirm_close=true\` to close them (this also lets the same file in within 24 hours). \`force\` does not confirm a closing: an integration that sends \`force\` on every upload to get past the 24-hour check must not close the ledger with a truncated file. ${LAYOUTS}`,
  bodyTypes: ['multipart'],
  multipartBody: ImportUpload,
  query: ImportUploadQuery,
  responses: {
    201: { description: 'The batch, queued', schema: ref(FileImport) },
    400: { description: 'A malformed multipart body', schema: ref(ErrorBody) },
    409: { description: 'The same file (fingerprint) was imported in the last 24 hours, or is being imported now', schema: ref(ErrorBody) },
    412: { description: 'Empty file, unknown header row, a column given twice in the header row, or no `file` part or field', schema: ref(ErrorBody) },
    413: { description: 'Over 25 MB', schema: ref(ErrorBody) },
    415: { description: 'Not multipart/form-data, or a file that is not CSV text (binary, or not UTF-8: the message names the first such line)', schema: ref(ErrorBody) },
  },
  handler: ({ engine, req, query }) => receive(engine, req, { force: truthy(query.force), confirmClose: truthy(query.confirm_close) }),
});

const listing = (path: string, operationId: string, summary: string, filter: 'all' | 'processing' | 'completed') =>
  defineRoute({
    method: 'get',
    path,
    operationId,
    tags: TAGS,
    summary,
    description: 'Newest first, 50 a page.',
    query: BatchPageQuery,
    responses: { 200: { description: 'Batches', schema: Type.Array(ref(FileImport)) } },
    async handler({ engine, query }) {
      return { body: await engine.imports.list(filter, query.page ?? 1) };
    },
  });

const notFound = { 404: { description: 'No such batch', schema: ref(ErrorBody) } };

export const viewBatch = defineRoute({
  method: 'get',
  path: '/api/imports/:id',
  operationId: 'viewBatchDetail',
  tags: TAGS,
  summary: 'View batch details',
  params: BatchParams,
  responses: { 200: { description: 'The batch', schema: ref(FileImport) }, ...notFound },
  async handler({ engine, params }) {
    return { body: await engine.imports.view(params.id) };
  },
});

const csvCell = (v: string | number, delimiter: string) => {
  const s = String(v);
  // A cell a spreadsheet would run as a formula is quoted with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) || safe.includes(delimiter) ? `"${safe.replace(/"/g, '""')}"` : safe;
};
const csvLine = (cells: Array<string | number>, delimiter = ',') => `${cells.map((c) => csvCell(c, delimiter)).join(delimiter)}\r\n`;

const errorsRoute = (path: string, operationId: string, format: 'json' | 'csv') =>
  defineRoute({
    method: 'get',
    path,
    operationId,
    tags: TAGS,
    summary: `View batch errors${format === 'csv' ? ' (CSV)' : ''}`,
    description: 'One entry per broken field of a refused line: its line, column, code and message, and in `.json` (the default) the refused record\'s naming fields as the file gives them (`number`, `identifier`, `customer_identifier`...), to match an error to its record. `.csv` has the first four columns, separated as the uploaded file was (a comma, or its semicolons or tabs).',
    params: BatchParams,
    responses: {
      200: format === 'json' ? { description: 'Errors', schema: BatchErrors } : { description: 'Errors as CSV', schema: Type.String(), contentType: 'text/csv' },
      ...notFound,
    },
    async handler({ engine, params }) {
      const { delimiter, lines } = await engine.imports.errors(params.id);
      const errors = lines.map((e) => ({ ...e.record, line_number: e.line, field: e.field, code: e.code, error: e.message }));
      if (format === 'json') return { body: { message: errors } };
      // Separated as the upload was: a spreadsheet set to ';' (a decimal-comma locale) would open a comma file in one column.
      const body = csvLine(['line_number', 'field', 'code', 'error'], delimiter) + errors.map((e) => csvLine([e.line_number, e.field, e.code, e.error], delimiter)).join('');
      return { body, contentType: 'text/csv; charset=utf-8' };
    },
  });

export const echoResults = defineRoute({
  method: 'get',
  path: '/api/imports/:id/echo',
  operationId: 'viewEchoResults',
  tags: TAGS,
  summary: 'View tokenized results of file-imported payment methods',
  description:
    'The lines of a credit card file, without the header, card number and expiry masked (last four digits at most), each followed by its wallet token, fund token and vault token. Available for 24 hours after the import completes. The tokens charge those cards: a back-office user needs the grant that moves money (owner, manager); a clerk is answered 403.',
  params: BatchParams,
  responses: { 200: { description: 'CSV', schema: Type.String(), contentType: 'text/csv' }, 404: { description: 'No such batch, not a card import, or past 24 hours', schema: ref(ErrorBody) } },
  async handler({ engine, params }) {
    const { lines } = await engine.imports.echo(params.id);
    return { body: lines.map((l) => csvLine([...l.cells, l.wallet_token, l.fund_token, l.vault_token])).join(''), contentType: 'text/csv; charset=utf-8' };
  },
});

const reconRoute = (kind: 'invoice_recon' | 'payment_recon', withId: boolean) => {
  const key = kind === 'invoice_recon' ? 'reconciliation_invoices' : 'reconciliation_payments';
  return defineRoute({
    method: 'get',
    path: `/api/exports/${kind}${withId ? '/:batch_file_id' : ''}`,
    operationId: `${kind === 'invoice_recon' ? 'exportInvoiceRecon' : 'exportPaymentRecon'}${withId ? 'ByBatch' : ''}`,
    tags: TAGS,
    summary: `Export ${kind === 'invoice_recon' ? 'invoice' : 'payment'} reconciliation results${withId ? ' of a batch' : ' (the most recent batch)'}`,
    description: 'One record per discrepancy the reconciliation file showed (and what was done about it), by watermark.',
    ...(withId ? { params: ReconParams } : {}),
    query: ReconQuery,
    responses: { 200: { description: 'Reconciliation records', schema: kind === 'invoice_recon' ? InvoiceReconPage : PaymentReconPage }, ...notFound },
    async handler({ engine, params, query }) {
      const page = exportParams(query);
      const id = withId ? (params as { batch_file_id: number }).batch_file_id : undefined;
      const records = (await engine.imports.recon(kind, id, page)).map((r) => ({ ...r.data, watermark: r.watermark }));
      return { body: { [key]: exportShape(records, page.list) } };
    },
  });
};

export const importRoutes: AnyRoute[] = [
  uploadImport,
  listing('/api/imports', 'viewBatches', 'View in-progress and completed batches', 'all'),
  listing('/api/imports/processing', 'viewInProgressBatches', 'View in-progress batches', 'processing'),
  listing('/api/imports/completed', 'viewCompletedBatches', 'View completed batches', 'completed'),
  errorsRoute('/api/imports/:id/errors', 'viewBatchError', 'json'),
  errorsRoute('/api/imports/:id/errors.json', 'viewBatchErrorJson', 'json'),
  errorsRoute('/api/imports/:id/errors.csv', 'viewBatchErrorCsv', 'csv'),
  echoResults,
  viewBatch,
  reconRoute('invoice_recon', false),
  reconRoute('invoice_recon', true),
  reconRoute('payment_recon', false),
  reconRoute('payment_recon', true),
];
