import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, isEngineError, type EngineError } from '../errors';
import { redactPans } from '../security/card-data';
import type { Wallets } from '../wallets';
import type { Autopay } from '../wallets/autopay';
import { inUnitOfWork } from '../receivables/unit-of-work';
import type { CustomerDoc } from '../receivables/types';
import { APPLIERS, cardField, closeUnlisted, echoCells, listedKey, type ApplyContext } from './apply';
import { readFile, type FileKeys } from './file';
import { continues, KINDS, locate, groupInput, maskFreeTextCells, namingCells, rowValues, strayParentColumn, type Group, type KindSpec, type Row } from './kinds';
import { getBatch, putBatch, putEcho, putLineError, type BatchData, type ClosingDecision, type Delimiter, type EchoLine, type LineError } from './records';

/** Rows per unit of work: one commit and one progress event each. */
export const CHUNK_ROWS = 500;
/** Records between two turns of the event loop inside a unit. */
const YIELD_EVERY = 10;

export interface RunnerDeps {
  core: EngineCore;
  account: Account;
  wallets: Wallets;
  autopay: Autopay;
  keys: FileKeys;
  dir: string;
  /** Set when the engine closes: the run stops between units, and resumes at the next start. */
  stopping: () => boolean;
  /** Customer ids met in this run's earlier units (a hint to the next: see ReceivablesUnit.knownCustomerIds). */
  customerIds?: Map<string, string>;
}

/** Bound on the customer-id hint of one run (a file names few customers, usually). */
const KNOWN_CUSTOMERS = 100_000;

class RecordFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: EngineError,
  ) {
    super(error.message);
  }
}

const plural = (n: number, [one, many]: [string, string]) => `${n} ${n === 1 ? one : many}`;
const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/** A record's refusal as error lines: one per broken field, each on the line the field is on. */
function lineErrors(batch: BatchData, group: Group, e: EngineError): LineError[] {
  const spec = KINDS[batch.kind];
  const { nestedLines } = groupInput(spec, group);
  const details = e.details?.length ? e.details : [{ field: batch.kind === 'credit_cards' ? cardField(e.code) : '', code: e.code, message: e.message }];
  const record = namingCells(batch.kind, group);
  return details.map((d) => {
    const at = locate(spec, group, nestedLines, d.field ?? '');
    // The rule names the JSON path (line_item_attributes.0.quantity); the file's reader knows the column.
    const said = d.message ?? e.message;
    const message = d.field && at.field && said.startsWith(`${d.field} `) ? `${at.field}${said.slice(d.field.length)}` : said;
    return { batch: batch.id, line: at.line, field: at.field, code: d.code ?? e.code, message: redactPans(message), ...(record ? { record } : {}) };
  });
}

/**
 * Runs a batch from where its last committed unit left it. Rows are streamed from the stored file
 * with csv-parse and grouped into records (a parent row and the rows continuing it); a unit of
 * work takes about CHUNK_ROWS rows, whole records only, and writes in the same transaction the
 * records, their error lines and echo lines, and the batch's progress (rows and line done). A
 * restart skips exactly the rows committed: none is imported twice, none is lost.
 */
export async function runBatch(deps: RunnerDeps, id: number): Promise<void> {
  const start = await getBatch(deps.core, id);
  if (!start || start.status !== 'processing' || !start.file) return;
  const spec = KINDS[start.kind];
  deps = { ...deps, customerIds: new Map() };
  let source: ReturnType<typeof readFile> | undefined;
  let header: string[] | undefined;
  let rowIndex = 0;
  let group: Group | undefined;
  let chunk: Group[] = [];
  let chunkRows = 0;
  const flush = async () => {
    if (chunk.length) await commitChunk(deps, id, chunk, header ?? []);
    chunk = [];
    chunkRows = 0;
    // Back-to-back units resolve on microtasks only, and RxDB holds every written document until
    // its change events run on a timer: let the event loop turn (as importInvoices does).
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** A new record (or a refused line, its own record), the chunk flushed first when full. */
  const startRecord = async (next: Group): Promise<boolean> => {
    if (chunkRows >= CHUNK_ROWS) {
      await flush();
      if (deps.stopping()) return false;
    }
    group = next;
    chunk.push(next);
    chunkRows++;
    return true;
  };
  let taken = 0;
  try {
    const rows = fileRows(deps, start.file);
    source = rows.source;
    const { parser, unreadable } = rows;
    const startLine = lineCounter();
    const takeUnreadable = async (upTo: number): Promise<boolean> => {
      while (unreadable.length && unreadable[0]!.after <= upTo) {
        const bad = unreadable.shift()!;
        const line = startLine(bad.raw, true);
        if (!header || rowIndex++ < start.rows_done) continue;
        if (!(await startRecord({ rows: [{ line, values: {} }], refusal: unreadableLine(bad.code) }))) return false;
      }
      return true;
    };
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      if (!(await takeUnreadable(taken))) return;
      taken++;
      const line = startLine(raw);
      if (!header) {
        header = record.map((c) => c.trim());
        continue;
      }
      if (rowIndex++ < start.rows_done) continue;
      const row: Row = { line, values: maskFreeTextCells(start.kind, rowValues(header, record)) };
      const refusal = lineRefusal(spec, header, record, group, row, start.file.delimiter ?? ',');
      if (!refusal && group && continues(spec, group, row)) {
        group.rows.push(row);
        chunkRows++;
        continue;
      }
      if (!(await startRecord(refusal ? { rows: [row], refusal } : { rows: [row] }))) return;
    }
    if (!(await takeUnreadable(Infinity))) return;
    await flush();
    if (deps.stopping()) return;
    const closing = start.kind === 'invoice_recon' && header ? await closeUnlistedInvoices(deps, id) : { note: null };
    await finish(deps, id, null, closing);
  } catch (err) {
    if (deps.stopping()) return;
    await finish(deps, id, failureReason(deps, id, err));
  } finally {
    source?.destroy();
  }
}

/**
 * The stored file's records, streamed. Records csv-parse cannot read (a stray or unclosed quote)
 * are skipped by the parser and listed in `unreadable`, with how many records came before each:
 * the caller puts a refused line in each one's place, so the lines around it go on and the line
 * count holds.
 */
function fileRows(deps: RunnerDeps, file: NonNullable<BatchData['file']>) {
  const unreadable: Array<{ after: number; raw: string; code: string }> = [];
  const source = readFile(join(deps.dir, file.name), deps.keys, file.key_id, file.iv);
  const parser = source.pipe(
    parse({
      bom: true,
      raw: true,
      skip_empty_lines: true,
      relax_column_count: true,
      delimiter: file.delimiter ?? ',',
      skip_records_with_error: true,
      on_skip: (err, raw) => {
        const entry = { after: parser.info.records, raw: raw ?? '', code: (err as { code?: string } | undefined)?.code ?? '' };
        // csv-parse reports each error it meets in one record, its raw text longer each time: one line, the last word.
        const last = unreadable.at(-1);
        if (last && last.after === entry.after && entry.raw.startsWith(last.raw)) unreadable[unreadable.length - 1] = entry;
        else unreadable.push(entry);
      },
    }),
  );
  // pipe() does not carry errors: a file gone or unreadable must end the loop, not hang it.
  source.on('error', (err) => parser.destroy(err));
  return { source, parser, unreadable };
}

/** Why a batch stopped, as its record says it; the error is logged. */
function failureReason(deps: RunnerDeps, id: number, err: unknown): string {
  // A parser's message quotes the cells it read (a card number's digits): the log gets its code only.
  const code = (err as { code?: string }).code;
  deps.core.logger.error(code?.startsWith('CSV_') ? { code, batch: id } : { err, batch: id }, 'import batch failed');
  if (code === 'ENOENT') return 'The uploaded file is no longer in the data folder; upload it again';
  return isEngineError(err) && err.kind !== 'internal' ? err.message : 'The import stopped on an unexpected error; it has been logged.';
}

/**
 * The line (as a text editor counts them, the header is 1) each record starts on, from the raw
 * text csv-parse read for it: the empty lines it skipped before the record, the record's quoted
 * line breaks, and its end. csv-parse's own `info.lines` counts a quoted CRLF as two lines, and
 * its raw text of a CRLF file holds each record's CR but not its LF, so a break is CRLF, CR or LF
 * (an LF right after a CR that ended the previous raw text is that same break).
 */
function lineCounter(): (raw: string, unreadable?: boolean) => number {
  let done = 0;
  let endedOnCr = false;
  const breaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return (raw, unreadable = false) => {
    const text = endedOnCr && raw.startsWith('\n') ? raw.slice(1) : raw;
    const skipped = breaks(/^[\r\n]*/.exec(text)![0]);
    const start = done + skipped + 1;
    done += breaks(text);
    endedOnCr = text.endsWith('\r');
    // An unreadable record's raw text stops where the error is; csv-parse skips the rest of its
    // line unread and goes on at the next one. Its break counts, or every later line is one short.
    if (unreadable && !/[\r\n]$/.test(text)) {
      done += 1;
      endedOnCr = false;
    }
    return start;
  };
}

function unitFor<T>(deps: RunnerDeps, fn: (ctx: Omit<ApplyContext, 'batch' | 'header' | 'echo'>) => Promise<T>): Promise<T> {
  return inUnitOfWork(deps.core, deps.account, async (unit) => {
    const known = deps.customerIds;
    unit.knownCustomerIds = known;
    const result = await fn({ tx: unit.tx, unit, wallets: deps.wallets, autopay: deps.autopay });
    if (known) {
      if (known.size > KNOWN_CUSTOMERS) known.clear();
      for (const [identifier, id] of unit.customerIdsSeen()) known.set(identifier, id);
    }
    return result;
  });
}

/**
 * One chunk, as units of work. A record the rules refuse aborts the unit; the records before it
 * are then committed with its error lines (they succeeded on the same state), and the rest goes
 * on in the next unit: the outcome is what importing the lines one by one gives.
 */
async function commitChunk(deps: RunnerDeps, id: number, groups: Group[], header: readonly string[]): Promise<void> {
  let rest = groups;
  while (rest.length) {
    let bad: RecordFailed | undefined;
    for (;;) {
      const end = bad ? bad.index : rest.length;
      try {
        await unitFor(deps, async (base) => {
          const batch = await getBatch(base.tx, id);
          if (!batch) throw new Error(`batch ${id} vanished`);
          const ctx: ApplyContext = { ...base, batch: id, header, echo: [] };
          await base.unit.prefetch(namedIn(rest.slice(0, end)));
          for (let i = 0; i < end; i++) {
            // The unit's writes are buffered until its commit: yielding between records lets the
            // API answer other requests while a long file is imported.
            if (i % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
            try {
              const refusal = rest[i]!.refusal;
              if (refusal) throw refusal;
              await APPLIERS[batch.kind](ctx, rest[i]!);
            } catch (err) {
              if (isEngineError(err) && err.kind !== 'internal') throw new RecordFailed(i, err);
              throw err;
            }
          }
          const errors = bad ? lineErrors(batch, rest[end]!, bad.error) : [];
          const refused = bad && batch.kind === 'credit_cards' ? rest[end]!.rows[0] : undefined;
          if (refused) ctx.echo.push({ batch: id, line: refused.line, cells: echoCells(header, refused.values), wallet_token: '', fund_token: '', vault_token: '' });
          await progress(ctx.tx, batch, rest.slice(0, bad ? end + 1 : end), end, errors, ctx.echo);
        });
        break;
      } catch (err) {
        if (!(err instanceof RecordFailed)) throw err;
        bad = err;
      }
    }
    rest = rest.slice(bad ? bad.index + 1 : rest.length);
  }
}

/** The invoice numbers and customer identifiers a chunk's records name (the columns every kind that has them shares). */
function namedIn(groups: readonly Group[]): { invoiceNumbers: string[]; customerIdentifiers: string[] } {
  const invoiceNumbers: string[] = [];
  const customerIdentifiers: string[] = [];
  for (const g of groups) {
    const first = g.rows[0]!.values;
    if (first.number) invoiceNumbers.push(first.number.trim());
    if (first.invoice_number) invoiceNumbers.push(first.invoice_number.trim());
    if (first.customer_identifier) customerIdentifiers.push(first.customer_identifier.trim());
  }
  return { invoiceNumbers, customerIdentifiers };
}

async function progress(tx: Tx, batch: BatchData, done: Group[], imported: number, errors: LineError[], echo: EchoLine[]): Promise<void> {
  const rows = done.reduce((n, g) => n + g.rows.length, 0);
  const lastRow = done.at(-1)?.rows.at(-1);
  for (const [i, e] of errors.entries()) await putLineError(tx, e, batch.file_errors_count + i);
  for (const e of echo) await putEcho(tx, e);
  await putBatch(
    tx,
    {
      ...batch,
      rows_done: batch.rows_done + rows,
      lines_done: Math.max(batch.lines_done, lastRow?.line ?? 0),
      records_done: batch.records_done + imported,
      // Records refused, as the reference counts them (a record may have several error lines).
      file_errors_count: batch.file_errors_count + (errors.length ? 1 : 0),
    },
    'import.progress',
  );
}

const DELIMITER_WORDS: Record<',' | Delimiter, string> = { ',': 'a comma', ';': 'a semicolon', '\t': 'a tab' };

/**
 * Why a line is refused before any rule reads it: more values than the header has columns, or a
 * row continuing a record that gives a column other than the nested ones a value of its own (a
 * record whose key was left out). Undefined for a line the rules decide.
 */
function lineRefusal(spec: KindSpec, header: readonly string[], record: readonly string[], group: Group | undefined, row: Row, delimiter: ',' | Delimiter): EngineError | undefined {
  const extra = record.slice(header.length).filter((c) => c.trim() !== '').length;
  // The separator named is the file's own: in a ';' file a stray comma splits nothing, a stray ';' does.
  if (extra) return fail.invalid('too_many_values', `has ${header.length + extra} values where the header has ${header.length} columns: ${DELIMITER_WORDS[delimiter]} inside a field that is not quoted? Quote the field`);
  // Rows under a refused record go with it.
  if (!group || group.refusal || !continues(spec, group, row)) return undefined;
  const stray = strayParentColumn(spec, group, row);
  if (stray === undefined) return undefined;
  const message = `continues the record above but gives ${stray} a value of its own: only ${spec.nested}.* columns may follow a record; give this line its own ${spec.key}`;
  return fail.invalid('continuation_not_nested', message, [{ field: stray, code: 'continuation_not_nested', message }]);
}

/** What a line csv-parse could not read is refused with (its cells are not quoted back: they may hold a card number). */
function unreadableLine(code: string): EngineError {
  const why =
    code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted field is not closed: this line and every line after it to the end of the file could not be read'
      : code === 'CSV_INVALID_OPENING_QUOTE' || code === 'CSV_INVALID_CLOSING_QUOTE'
        ? 'a quote inside a field that is not quoted, or text after a closing quote: quote the whole field and double each quote inside it ("")'
        : 'this line could not be read as CSV';
  return fail.invalid('unreadable_line', why);
}

/**
 * The guard on a reconciliation file's closing. A file that leaves out more than half of the open
 * invoices here, and more than CLOSE_WITHOUT_CONFIRMATION of them, closes none unless its upload
 * confirmed it (`confirm_close`): it is more likely a wrong file (a sample, another shop's list, an
 * ERP export cut short) than a day's payments, and a closed invoice cannot be imported again. The
 * floor lets a small shop's ordinary file work unconfirmed: with a handful of open invoices, a day
 * that pays most of them is normal, and the most a wrong file can close there is 10 invoices, each
 * one named in the batch's reconciliation records (docs/csv-imports.md).
 */
export const CLOSE_WITHOUT_CONFIRMATION = 10;

/** True when closing `unlisted` of `open` open invoices needs the upload's confirmation. */
export const closingNeedsConfirmation = (unlisted: number, open: number): boolean => unlisted > CLOSE_WITHOUT_CONFIRMATION && unlisted * 2 > open;

/** What the batch says of an invoice reconciliation's closing: a note on its result, and when held back, its error too. */
export interface ClosingOutcome {
  note: string | null;
  decision?: ClosingDecision;
}

/** The words of a closing held back, with what to do: on the batch's result_message and its error. */
export const heldBackMessage = (d: ClosingDecision): string =>
  `The file leaves out ${d.unlisted} of ${d.open} open invoices; none were closed. If it is the complete list of open invoices, upload it again with confirm_close=true to close them.`;

/**
 * The reconciliation's last step: open invoices the ERP's list leaves out are closed. Closing
 * cannot be undone (a closed number is never imported again), so it happens only when the file
 * listed invoices and refused no line (a refused line may be an invoice the ERP meant to list),
 * and, past the guard (closingNeedsConfirmation), only when the upload confirmed it. The decision
 * is written to the batch before the first invoice is closed, and a run resumed after a restart
 * keeps it: a restart can neither skip the guard nor stop a confirmed closing half way.
 */
async function closeUnlistedInvoices(deps: RunnerDeps, id: number): Promise<ClosingOutcome> {
  const start = await getBatch(deps.core, id);
  if (!start?.file) return { note: null };
  if (start.file_errors_count > 0) return { note: `open invoices the file leaves out were not closed: ${plural(start.file_errors_count, ['line was', 'lines were'])} refused; correct the file and import it again` };
  const listed = new Set<string>();
  const source = readFile(join(deps.dir, start.file.name), deps.keys, start.file.key_id, start.file.iv);
  // The header's names trimmed, as the batch read them: a `number ` column missed here would close every listed invoice.
  const columns = (names: string[]) => names.map((c) => c.trim());
  const parser = source.pipe(parse({ bom: true, columns, skip_empty_lines: true, relax_column_count: true, delimiter: start.file.delimiter ?? ',' }));
  source.on('error', (err) => parser.destroy(err));
  for await (const row of parser as AsyncIterable<Record<string, string>>) {
    // As the line's reconciliation read it (listedKey): an invoice counted listed is one its line reconciled.
    const number = listedKey(row, 'number');
    if (number !== undefined) listed.add(number);
  }
  if (listed.size === 0) return { note: 'open invoices were not closed: the file lists no invoice number' };
  const customers = await deps.core.find<CustomerDoc & { [k: string]: unknown }>('customers', { selector: {}, sort: [{ id: 'asc' }] });
  const openNumbers = customers.flatMap((c) => Object.entries(c.data.ledger.open).filter(([, v]) => v[2] !== 0).map(([n]) => n));
  const unlisted = openNumbers.filter((n) => !listed.has(n));
  let decision = start.closing;
  if (!decision) {
    decision = { open: openNumbers.length, unlisted: unlisted.length, held: !start.confirm_close && closingNeedsConfirmation(unlisted.length, openNumbers.length) };
    if (decision.held) return { note: lowerFirst(heldBackMessage(decision)), decision };
    const made = decision;
    await deps.core.mutate(async (tx) => {
      const batch = await getBatch(tx, id);
      if (batch) await putBatch(tx, { ...batch, closing: made }, 'import.closing');
    });
  } else if (decision.held) return { note: lowerFirst(heldBackMessage(decision)), decision };
  for (let i = 0; i < unlisted.length; i += CHUNK_ROWS) {
    const part = unlisted.slice(i, i + CHUNK_ROWS);
    await unitFor(deps, async (base) => {
      const ctx: ApplyContext = { ...base, batch: id, header: [], echo: [] };
      for (const number of part) await closeUnlisted(ctx, number);
    });
  }
  const note = decision.unlisted ? plural(decision.unlisted, ['open invoice it leaves out was closed', 'open invoices it leaves out were closed']) : null;
  return { note, decision };
}

async function finish(deps: RunnerDeps, id: number, reason: string | null, closing: ClosingOutcome = { note: null }): Promise<void> {
  const { note, decision } = closing;
  const done = await deps.core.mutate(async (tx) => {
    const batch = await getBatch(tx, id);
    if (!batch || batch.status !== 'processing') return batch;
    const spec = KINDS[batch.kind];
    const next: BatchData = {
      ...batch,
      status: reason ? 'failed' : 'completed',
      // Completed: every line was read, empty ones after the last record too.
      lines_done: reason ? batch.lines_done : Math.max(batch.lines_done, batch.lines_total),
      // A closing held back is the batch's error too: an integration that reads `error` learns that its file did not do all it asked.
      error: reason ?? (decision?.held ? heldBackMessage(decision) : null),
      result_message: reason ? `stopped after ${plural(batch.records_done, spec.noun)}` : `${plural(batch.records_done, spec.noun)}${note ? `; ${note}` : ''}`,
      ...(decision ? { closing: decision } : {}),
      complete_at: tx.at,
      complete_ms: tx.now,
      file: null,
    };
    await putBatch(tx, next, reason ? 'import.failed' : 'import.completed');
    return batch;
  });
  // The upload is removed once the batch no longer needs it (after the commit that says so).
  if (done?.file) rmSync(join(deps.dir, done.file.name), { force: true });
}
