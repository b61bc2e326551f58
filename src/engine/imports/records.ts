import type { EngineCore, Tx } from '../core';
import { getRecord, putRecord, recordsByRef, type RecordDoc } from '../records';
import type { Delimiter } from '../../shared/import-kinds';
import type { FileKind } from './kinds';

export { OTHER_DELIMITERS, type Delimiter } from '../../shared/import-kinds';

/** Record kinds of the shared `records` collection that imports keep. */
export const BATCH = 'import_batch';
export const FINGERPRINT = 'import_fingerprint';
export const LINE_ERROR = 'import_error';
export const ECHO = 'import_echo';
export const RECON_INVOICE = 'recon_invoice';
export const RECON_PAYMENT = 'recon_payment';

export type BatchStatus = 'processing' | 'completed' | 'failed';

/**
 * An invoice reconciliation's decision on the open invoices its file leaves out, made once, before
 * the first is closed, and kept with the batch: a run resumed after a restart goes on with it
 * rather than deciding again. `held`: more than the guard lets a file close without confirmation,
 * so none were closed (runner.ts, closingNeedsConfirmation).
 */
export interface ClosingDecision {
  /** Open invoices here when the file had been read. */
  open: number;
  /** Of those, the ones the file leaves out. */
  unlisted: number;
  held: boolean;
}

/** An import batch: the reference's FileImport fields, and how far the run has gone. */
export interface BatchData {
  id: number;
  file_name: string;
  file_size: number;
  file_content_type: string;
  file_fingerprint: string;
  file_errors_count: number;
  error: string | null;
  result_message: string | null;
  complete_at: string | null;
  status: BatchStatus;
  kind: FileKind;
  created_at: string;
  /** Physical lines of the file, the header's included; lines_done is the last line committed. */
  lines_total: number;
  lines_done: number;
  /** Data rows committed: a resumed run skips this many. */
  rows_done: number;
  /** Records imported (an invoice with its line items is one). */
  records_done: number;
  complete_ms: number | null;
  /** The encrypted upload (file.ts), until the batch is done. */
  /** `delimiter`: the file's separator when it is not a comma (a spreadsheet's semicolons or tabs). */
  file: { name: string; key_id: string; iv: string; delimiter?: Delimiter } | null;
  /**
   * An invoice reconciliation uploaded with `confirm_close`: its file may close the open invoices
   * it leaves out even when they are most of them. Kept with the batch, so a resumed run reads the
   * upload's own answer (absent on batches made before the guard: not confirmed).
   */
  confirm_close?: boolean;
  /** An invoice reconciliation's decision on closing, once made (absent until then, and for other kinds). */
  closing?: ClosingDecision;
  /**
   * The upload's separator when not a comma, kept after `file` is dropped: the errors file is
   * written with it, so a spreadsheet that saved ';' opens its errors in columns too.
   */
  delimiter?: Delimiter;
}

/** A line the batch could not import: where, which column, why, and which record it was. */
export interface LineError {
  batch: number;
  line: number;
  field: string;
  code: string;
  message: string;
  /** The refused record's naming cells as the file has them (kinds.ts, NAMING_COLUMNS); never a card's. */
  record?: Record<string, string>;
}

/** A tokenized card line of the echo: its masked cells and the tokens made for it. */
export interface EchoLine {
  batch: number;
  line: number;
  cells: string[];
  wallet_token: string;
  fund_token: string;
  vault_token: string;
}

/** Listing status ref: processing batches and the rest, so each listing reads one range. */
export const statusRef = (status: BatchStatus) => (status === 'processing' ? 'processing' : 'completed');

const pad = (n: number, width = 10) => String(n).padStart(width, '0');

export async function getBatch(reader: Tx | EngineCore, id: number): Promise<BatchData | undefined> {
  return (await getRecord<BatchData>(reader, BATCH, String(id)))?.data;
}

export async function putBatch(tx: Tx, batch: BatchData, type: 'import.created' | 'import.progress' | 'import.closing' | 'import.completed' | 'import.failed' | 'import.fingerprint_keyed'): Promise<void> {
  await putRecord(
    tx,
    BATCH,
    String(batch.id),
    batch,
    {
      type,
      entity: 'import',
      key: String(batch.id),
      data: {
        status: batch.status,
        kind: batch.kind,
        lines_done: batch.lines_done,
        lines_total: batch.lines_total,
        errors: batch.file_errors_count,
        records: batch.records_done,
        // An invoice reconciliation whose closing waits for confirmation (runner.ts): said on its import.completed.
        ...(batch.closing?.held ? { held_back: batch.closing.unlisted } : {}),
      },
    },
    statusRef(batch.status),
  );
}

export async function putLineError(tx: Tx, e: LineError, seq: number): Promise<void> {
  await putRecord(tx, LINE_ERROR, `${e.batch}/${pad(e.line)}/${pad(seq, 4)}`, e, { type: 'import.line_error', entity: 'import', key: String(e.batch), data: { line: e.line, field: e.field, code: e.code } }, String(e.batch));
}

export async function putEcho(tx: Tx, e: EchoLine): Promise<void> {
  await putRecord(tx, ECHO, `${e.batch}/${pad(e.line)}`, e, { type: 'import.tokenized', entity: 'import', key: String(e.batch), data: { line: e.line } }, String(e.batch));
}

/** A kind's records of one batch, in key order (line order for errors and echo lines). */
export async function ofBatch<T>(reader: Tx | EngineCore, kind: string, batch: number): Promise<Array<RecordDoc<T>>> {
  return recordsByRef<T>(reader, kind, String(batch));
}
