import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { FileImport } from '../../shared/schemas/imports';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { DAY_MS } from '../clock';
import { fail } from '../errors';
import { redactPans } from '../security/card-data';
import { getRecord, putRecord, recordsByRef, recordsOfKind } from '../records';
import type { Wallets } from '../wallets';
import type { Autopay } from '../wallets/autopay';
import type { PaymentDoc } from '../receivables/types';
import { receiveFile, rekeyedFingerprint, uploadsDir, type FileKeys, type ReceivedFile } from './file';
import { headParseOptions, readHeader } from '../../shared/import-kinds';
import { KINDS, miscasedColumns, unknownColumns, type FileKind } from './kinds';
import { BATCH, ECHO, FINGERPRINT, LINE_ERROR, RECON_INVOICE, RECON_PAYMENT, getBatch, ofBatch, putBatch, type BatchData, type Delimiter, type EchoLine, type LineError } from './records';
import { runBatch } from './runner';

export { MAX_FILE_BYTES } from './file';
export type { FileKind } from './kinds';

/** The reference's page size for batch listings. */
export const PAGE_SIZE = 50;
/** A file already imported in this window is refused unless forced; tokenized results last as long. */
export const WINDOW_MS = DAY_MS;

/** A batch as the API shows it: the reference's FileImport fields, then progress (one schema: FileImport). */
export type BatchView = Static<typeof FileImport>;

export interface UploadMeta {
  fileName: string;
  contentType: string;
  /** Import a file seen in the last 24 hours again (the duplicate check only). */
  force: boolean;
  /**
   * An invoice reconciliation may close the open invoices it leaves out even when they are most of
   * them (runner.ts, closingNeedsConfirmation); it also imports the same file again within 24 hours,
   * as confirming is uploading the file that was held back once more. Other kinds ignore it.
   */
  confirmClose?: boolean;
}

export interface Imports {
  /**
   * Streams an upload to the data folder, checks it, and queues its batch (answered at once).
   * `meta` is asked once the file is in: a form's other parts may come after the file's.
   */
  upload(file: Readable, meta: () => Promise<UploadMeta>): Promise<BatchView>;
  list(filter: 'all' | 'processing' | 'completed', page: number): Promise<BatchView[]>;
  view(id: number): Promise<BatchView>;
  /** The refused lines, and the separator of the file they came from (a comma unless it was another). */
  errors(id: number): Promise<{ delimiter: ',' | Delimiter; lines: LineError[] }>;
  /** The tokenized card lines (masked) with their tokens; gone 24 h after the batch completed. */
  echo(id: number): Promise<{ header: string[]; lines: EchoLine[] }>;
  /** Reconciliation records of a batch (default: the most recent reconciliation batch of the kind). */
  recon(kind: 'invoice_recon' | 'payment_recon', batch: number | undefined, page: { after: number; limit: number }): Promise<Array<{ watermark: number; data: Record<string, unknown> }>>;
  /** Settles once the batch running now (if any) has stopped between two units. */
  close(): Promise<void>;
  /** Resolves when every queued batch has run (tests and benchmarks wait on it). */
  idle(): Promise<void>;
}

export function view(b: BatchData): BatchView {
  return {
    id: b.id,
    file_name: b.file_name,
    file_size: b.file_size,
    file_content_type: b.file_content_type,
    file_fingerprint: b.file_fingerprint,
    file_errors_count: b.file_errors_count,
    // Strings, as the reference's FileImport has them (its example: "error": ""), never null.
    error: b.error ?? '',
    result_message: b.result_message ?? '',
    complete_at: b.complete_at,
    status: b.status,
    kind: b.kind,
    created_at: b.created_at,
    lines_done: b.lines_done,
    lines_total: b.lines_total,
    held_back: b.closing?.held ? { open_invoices: b.closing.open, unlisted: b.closing.unlisted } : null,
  };
}

/** A file holding bytes that are not UTF-8, from `line` on (the HTTP edge also finds them in a text field's content). */
export const notUtf8 = (line: number) =>
  fail.unsupportedMedia('not_csv', `The file is not UTF-8 text (line ${line} holds other bytes): save it as "CSV UTF-8" and upload it again`);

/** What the start of a file says: its kind and header, or why it is refused. */
function inspect(file: ReceivedFile): { kind: FileKind; header: string[]; delimiter?: Delimiter } {
  if (file.size === 0) throw fail.precondition('empty_file', 'The file is empty');
  if (file.head.includes(0)) throw fail.unsupportedMedia('not_csv', 'The file is not CSV text (it holds binary bytes, as a spreadsheet or an archive does): save it as "CSV UTF-8" and upload it again');
  if (file.notUtf8Line !== undefined) {
    // A spreadsheet's plain "CSV" is often saved in its ANSI code page: say where, and what to choose instead.
    throw notUtf8(file.notUtf8Line);
  }
  const parseHead = (delimiter: ',' | Delimiter, to: number) => parse(file.head, headParseOptions(delimiter, to)) as string[][];
  const notCsv = (err: unknown) => {
    // The parser's own message quotes cells (a card number): only its line is said.
    const line = (err as { lines?: number }).lines;
    return fail.unsupportedMedia('not_csv', `The file is not CSV: ${line ? `line ${line}` : 'its first lines'} cannot be read (a quote not closed, or a quote inside a field that is not quoted): save it as "CSV UTF-8" and upload it again`);
  };
  const headerRecord = (delimiter: ',' | Delimiter) => {
    try {
      return parseHead(delimiter, 1)[0] ?? [];
    } catch (err) {
      throw notCsv(err);
    }
  };
  /** Whether a record follows the header, the kept start of the file (head) ending where it may. */
  const hasLines = (delimiter: ',' | Delimiter) => {
    try {
      return parseHead(delimiter, 2).length > 1;
    } catch (err) {
      // A quoted field still open where the kept start ends (notes of 64K characters on the first
      // line) is cut by the window, not shown unclosed: the record is there, and the run reads it
      // whole (or, never closed, refuses its line). A file's kind needs its header record only.
      if (file.head.length < file.size && (err as { code?: string }).code === 'CSV_QUOTE_NOT_CLOSED') return true;
      throw notCsv(err);
    }
  };
  // The header row and its kind by the rule the Imports screen reads a chosen file with (src/shared).
  const { header, kind, delimiter, refusal } = readHeader(headerRecord);
  const lines = hasLines(delimiter ?? ',');
  if (header.length === 0) throw fail.precondition('empty_file', 'The file is empty');
  // A column given twice: the screen says the same before the file is sent (the shared rule).
  if (refusal) throw fail.precondition(refusal.code, refusal.message);
  if (!kind) {
    throw fail.precondition('unknown_header', `The header row names no file kind this service imports (customers, invoices, payments, divisions, credit cards, reconciliation): ${header.slice(0, 8).join(',')}`);
  }
  const unknown = unknownColumns(kind, header);
  if (unknown.length) throw fail.precondition('unknown_header', `A ${kind} file has no column ${unknown.map((c) => JSON.stringify(c)).join(', ')}`);
  const miscased = miscasedColumns(kind, header);
  if (miscased.length) {
    const names = miscased.map((m) => `${JSON.stringify(m.column)} (${m.field})`).join(', ');
    throw fail.precondition('unknown_header', `A ${kind} file's columns are the fields' names as written in the layout, in lower case: rename ${names}`);
  }
  if (!lines) throw fail.precondition('empty_file', 'The file has a header row and no lines to import');
  return { kind, header, ...(delimiter ? { delimiter } : {}) };
}

/**
 * The uploads of one file's bytes (by fingerprint): the latest, and those before it still in the
 * 24-hour window when it came (absent on records made before they were kept).
 */
interface Fingerprint {
  batch: number;
  at_ms: number;
  earlier?: Array<{ batch: number; at_ms: number }>;
}

const uploadsOf = (f: Fingerprint) => [{ batch: f.batch, at_ms: f.at_ms }, ...(f.earlier ?? [])];

/**
 * The batch that makes an upload of the same bytes a duplicate, of those uploaded in the window
 * (newest first): one importing them now, else one that imported them. A failed batch (its file
 * gone after a crash, an error that stopped it) did not import the file: it is no reason to refuse it.
 */
async function sameFileBatch(tx: Tx, uploads: Array<{ batch: number }>): Promise<BatchData | undefined> {
  const batches = (await Promise.all(uploads.map((u) => getBatch(tx, u.batch)))).filter((b): b is BatchData => b !== undefined && b.status !== 'failed');
  return batches.find((b) => b.status === 'processing') ?? batches[0];
}

/** Streams an upload in, checks it and records its batch; on a refusal, nothing is left. */
async function receiveBatch(core: EngineCore, dir: string, keys: FileKeys, source: Readable, meta: () => Promise<UploadMeta>): Promise<BatchData> {
  const name = `upload-${randomBytes(12).toString('hex')}.csv.enc`;
  const file = await receiveFile(source, join(dir, name), keys);
  try {
    const { kind, delimiter } = inspect(file);
    const m = await meta();
    // Read by invoice reconciliations only: confirming is uploading the held-back file again.
    const confirmClose = kind === 'invoice_recon' && m.confirmClose === true;
    const batch = await core.mutate(async (tx) => {
      const seen = await getRecord<Fingerprint>(tx, FINGERPRINT, file.fingerprint);
      const recent = seen ? uploadsOf(seen.data).filter((u) => u.at_ms > tx.now - WINDOW_MS) : [];
      if (recent.length && !m.force && !confirmClose) {
        const earlier = await sameFileBatch(tx, recent);
        if (earlier?.status === 'processing') {
          throw fail.conflict('duplicate_file', `This file is being imported now (batch ${earlier.id}, still processing); wait for it to end, or send force=true to import it a second time`);
        }
        if (earlier) {
          const how = earlier.closing?.held ? 'send confirm_close=true to close the open invoices it leaves out, or force=true to import it again as it was' : 'send force=true to import it again';
          throw fail.conflict('duplicate_file', `This file was imported in the last 24 hours (batch ${earlier.id}); ${how}`);
        }
      }
      const data: BatchData = {
        // Like an invoice's id, the watermark of its first version: units are serialised.
        id: core.currentWatermark() + 1,
        // Shown in lists and the back office: a card number in the name (or the part's media type,
        // the client's text as well) is masked like any free text.
        file_name: redactPans(m.fileName).slice(0, 255),
        file_size: file.size,
        file_content_type: redactPans(m.contentType).slice(0, 100),
        file_fingerprint: file.fingerprint,
        file_errors_count: 0,
        error: null,
        result_message: null,
        complete_at: null,
        status: 'processing',
        kind,
        created_at: tx.at,
        lines_total: file.lines,
        lines_done: 1,
        rows_done: 0,
        records_done: 0,
        complete_ms: null,
        file: { name, key_id: file.keyId, iv: file.iv, ...(delimiter ? { delimiter } : {}) },
        ...(delimiter ? { delimiter } : {}),
        ...(confirmClose ? { confirm_close: true } : {}),
      };
      await putBatch(tx, data, 'import.created');
      // The uploads of these bytes still in the window, newest first: a batch that fails later
      // leaves the one that imported them before it answering for them.
      const fingerprint: Fingerprint = { batch: data.id, at_ms: tx.now, ...(recent.length ? { earlier: recent } : {}) };
      await putRecord(tx, FINGERPRINT, file.fingerprint, fingerprint, { type: 'import.fingerprint', entity: 'import', key: String(data.id) });
      return data;
    });
    return batch;
  } catch (err) {
    rmSync(file.path, { force: true });
    throw err;
  }
}

/** Tokenized results are kept 24 hours after their batch completed (the reference's window). */
async function dropExpiredEcho(core: EngineCore, now: number): Promise<void> {
  const batches = await recordsOfKind<BatchData>(core, BATCH);
  for (const b of batches) {
    if (b.data.kind !== 'credit_cards' || b.data.complete_ms === null || b.data.complete_ms > now - WINDOW_MS) continue;
    const lines = await ofBatch<EchoLine>(core, ECHO, b.data.id);
    if (!lines.length) continue;
    await core.mutate(async (tx) => {
      for (const l of lines) await tx.remove('records', l.id, { type: 'import.echo_expired', entity: 'import', key: String(b.data.id) });
    });
  }
}

/** A batch's reconciliation records after a watermark; without a batch, the most recent of the kind. */
async function reconRecords(core: EngineCore, kind: 'invoice_recon' | 'payment_recon', batch: number | undefined, page: { after: number; limit: number }) {
  let id = batch;
  if (id === undefined) {
    const all = [...(await recordsByRef<BatchData>(core, BATCH, 'completed')), ...(await recordsByRef<BatchData>(core, BATCH, 'processing'))];
    id = all.filter((b) => b.data.kind === kind).sort((a, b) => b.data.id - a.data.id)[0]?.data.id;
    if (id === undefined) return [];
  } else {
    const b = await getBatch(core, id);
    if (!b) throw fail.notFound('import_not_found', `No import batch ${id}`);
    // Another kind of batch has no such records: said, not answered as an empty reconciliation.
    if (b.kind !== kind) throw fail.notFound('recon_not_found', `Batch ${id} imported ${KINDS[b.kind].noun[1]}, not ${kind === 'invoice_recon' ? 'an invoice' : 'a payment'} reconciliation`);
  }
  const docs = await ofBatch<Record<string, unknown>>(core, kind === 'invoice_recon' ? RECON_INVOICE : RECON_PAYMENT, id);
  const rows = docs
    .filter((d) => d.watermark > page.after)
    .sort((a, b) => a.watermark - b.watermark)
    .slice(0, page.limit)
    .map((d) => {
      const { batch: _batch, ...data } = d.data;
      return { watermark: d.watermark, data };
    });
  return kind === 'payment_recon' ? Promise.all(rows.map(async (r) => ({ ...r, data: await withPaymentSides(core, r.data) }))) : rows;
}

/**
 * A payment reconciliation record made before every one carried the external payment number and
 * the currency of both sides (only when the file had their columns): the file's side had none
 * ('') and ours is the payment's as it is now. Records made since hold both as compared.
 */
async function withPaymentSides(core: EngineCore, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  if ('currency' in data && 'external_payment_number' in data) return data;
  const id = typeof data.payment_reconciliation_identifier === 'string' ? data.payment_reconciliation_identifier : '';
  const present = data.payment_amount !== '' && id !== '';
  const p = present ? (await core.get<PaymentDoc & { [k: string]: unknown }>('payments', id))?.data : undefined;
  return {
    ...data,
    external_payment_number: data.external_payment_number ?? p?.external_payment_number ?? '',
    external_payment_number_in_source_system: data.external_payment_number_in_source_system ?? '',
    currency: data.currency ?? p?.currency ?? '',
    currency_in_source_system: data.currency_in_source_system ?? '',
  };
}

const FINGERPRINTS_KEYED = 'import_fingerprints_keyed';

/**
 * Once per data folder made before fingerprints were keyed (file.ts): each batch's plain SHA-256
 * is replaced, and the duplicate-file records named by one are removed. Idempotent in units of 500.
 */
async function keyOldFingerprints(core: EngineCore, keys: FileKeys): Promise<void> {
  if (await getRecord(core, 'sequence', FINGERPRINTS_KEYED)) return;
  const batches = [...(await recordsByRef<BatchData>(core, BATCH, 'processing')), ...(await recordsByRef<BatchData>(core, BATCH, 'completed'))];
  for (let i = 0; i < batches.length; i += 500) {
    await core.mutate(async (tx) => {
      for (const { data } of batches.slice(i, i + 500)) {
        const current = await getBatch(tx, data.id);
        if (current) await putBatch(tx, { ...current, file_fingerprint: rekeyedFingerprint(keys, current.file_fingerprint) }, 'import.fingerprint_keyed');
      }
    });
  }
  const plain = await recordsOfKind(core, FINGERPRINT);
  await core.mutate(async (tx) => {
    for (const r of plain) await tx.remove('records', r.id, { type: 'import.fingerprint_removed', entity: 'import', key: String((r.data as { batch: number }).batch) });
    await putRecord(tx, 'sequence', FINGERPRINTS_KEYED, { value: 1 }, { type: 'sequence.updated', entity: 'sequence', key: FINGERPRINTS_KEYED });
  });
}

export function createImports(deps: { core: EngineCore; account: Account; wallets: Wallets; autopay: Autopay; keys: FileKeys; dataDir: string }): Imports {
  const { core } = deps;
  const dir = uploadsDir(deps.dataDir);
  let stopping = false;
  let queue: Promise<void> = Promise.resolve();
  const runner = { core, account: deps.account, wallets: deps.wallets, autopay: deps.autopay, keys: deps.keys, dir, stopping: () => stopping };
  const enqueue = (id: number) => {
    queue = queue.then(() => (stopping ? undefined : runBatch(runner, id))).catch((err: unknown) => core.logger.error({ err, batch: id }, 'import batch did not run'));
  };

  // Uploads a crash cut short (no batch was made for them) or a batch's file left after its end:
  // listed now, before this run receives any upload, and removed once the batches are read.
  const before = readdirSync(dir);
  // A restart resumes every batch left processing, oldest first (after old fingerprints are keyed:
  // a batch's progress must not write its plain one back).
  const keyed = keyOldFingerprints(core, deps.keys);
  const resumed = keyed.then(() => recordsByRef<BatchData>(core, BATCH, 'processing')).then((docs) => {
    const named = new Set(docs.map((d) => d.data.file?.name));
    for (const f of before) if (!named.has(f)) rmSync(join(dir, f), { force: true });
    for (const d of docs.sort((a, b) => a.data.id - b.data.id)) enqueue(d.data.id);
  });
  const settled = async () => {
    await resumed;
    // A batch queued while waiting extends the queue: wait until it stops growing.
    for (let last: Promise<void> | undefined; last !== queue; ) await (last = queue);
  };

  core.onTick('imports.echo-expiry', (now) => dropExpiredEcho(core, now));

  const requireBatch = async (id: number) => {
    const b = await getBatch(core, id);
    if (!b) throw fail.notFound('import_not_found', `No import batch ${id}`);
    return b;
  };

  return {
    async upload(source, meta) {
      await keyed;
      const batch = await receiveBatch(core, dir, deps.keys, source, meta);
      enqueue(batch.id);
      return view(batch);
    },

    async list(filter, page) {
      const refs = filter === 'all' ? ['processing', 'completed'] : [filter];
      const docs = (await Promise.all(refs.map((r) => recordsByRef<BatchData>(core, BATCH, r)))).flat();
      const from = (Math.max(1, page) - 1) * PAGE_SIZE;
      return docs
        .map((d) => d.data)
        .sort((a, b) => b.id - a.id)
        .slice(from, from + PAGE_SIZE)
        .map(view);
    },

    view: async (id) => view(await requireBatch(id)),

    async errors(id) {
      const b = await requireBatch(id);
      const lines = (await ofBatch<LineError>(core, LINE_ERROR, id)).map((d) => d.data);
      // A batch made before the separator was kept with it has it on its file until it is done.
      return { delimiter: b.delimiter ?? b.file?.delimiter ?? ',', lines };
    },

    async echo(id) {
      const b = await requireBatch(id);
      if (b.kind !== 'credit_cards') throw fail.notFound('echo_not_found', `Batch ${id} imported ${KINDS[b.kind].noun[1]}, not payment methods: it has no tokenized results`);
      if (b.complete_ms !== null && b.complete_ms <= core.clock.now() - WINDOW_MS) {
        throw fail.notFound('echo_expired', `The tokenized results of batch ${id} were available for 24 hours after the import`);
      }
      const header = ['customer_identifier', 'name', 'first_name', 'last_name', 'number', 'expiry', 'postal_code', 'create_debit_agreement', 'auto_debit_reference'];
      return { header, lines: (await ofBatch<EchoLine>(core, ECHO, id)).map((d) => d.data) };
    },

    recon: (kind, batch, page) => reconRecords(core, kind, batch, page),

    async close() {
      stopping = true;
      await settled();
    },

    idle: settled,
  };
}
