import { useEffect, useRef, useState, type DragEvent } from 'react';
import { KIND_EFFECT, type FileKind, type HeaderRefusal } from '../../../shared/import-kinds';
import { ApiError } from '../api/client';
import { boCall, boDownload, boUpload, type BoAnswer, type UploadOptions } from '../api/backoffice';
import { LOCALE, fileSize, sentence, time } from '../format';
import { useLive } from '../state/live';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { Notice, Title, useLoad, usePaged } from './common';
import { TableScroll } from './DataTable';
import { CSV_SAMPLES } from './csv-samples';
import { kindOfFile, sentFiles, type ChosenFile } from './import-file';
import { ReconResults } from './ImportRecon';
import './operations.css';
import './imports.css';

type Batch = BoAnswer<'importBatch'>;
const PAGE = 50;
const SHOWN_ERRORS = 1000;

const KIND: Record<Batch['kind'], string> = {
  customers: 'Customers',
  invoices: 'Invoices',
  payments: 'Payments',
  divisions: 'Divisions',
  credit_cards: 'Credit cards',
  invoice_recon: 'Invoice reconciliation',
  payment_recon: 'Payment reconciliation',
};

/**
 * The batch's result ("11998 customers"), its counts in the reader's locale. A batch number in it
 * (`batch 2821`, `#2821`) is an identifier, never grouped like an amount.
 */
const resultText = (b: Batch) => {
  // A closing held back: the notice on the batch's page says it and how to confirm (the API's words name a form field).
  const said = b.held_back ? `${b.result_message.split('; ')[0]}; none of the ${b.held_back.unlisted} open invoices it leaves out was closed (held back)` : b.result_message;
  return said ? said.replace(/(?<!batch |#|\d)\d{4,}/g, (n) => Number(n).toLocaleString()) : b.error || '—';
};

/** The box that confirms a reconciliation's closing, in the words the held-back notice repeats. */
const CONFIRM_CLOSE = 'Close the open invoices it leaves out, even if they are most of them';

/** What uploading the reconciliation sample does: said beside its link, so a newcomer does not find out from the ledger. */
const RECON_SAMPLE_NOTE = 'a complete list of open invoices: uploading it as it is closes every open invoice here but the two it lists';

/** One sample file per kind, with the columns its header row must have: a starting point that imports as it is. */
function SampleFiles() {
  return (
    <nav className="muted small bo-samples" aria-label="Sample files">
      Sample files:{' '}
      {(Object.keys(CSV_SAMPLES) as Array<keyof typeof CSV_SAMPLES>).map((kind, i) => (
        <span key={kind}>
          {i > 0 && ' · '}
          <a href={`data:text/csv;charset=utf-8,${encodeURIComponent(CSV_SAMPLES[kind])}`} download={`${kind}.csv`}>
            {KIND[kind]}
          </a>
          {kind === 'invoice_recon' && <span className="bo-sample-note"> ({RECON_SAMPLE_NOTE})</span>}
        </span>
      ))}
    </nav>
  );
}

/**
 * What the screen says of a refused upload. The API's message for a repeated file tells an
 * integration to send `force=true`; here the button under it does that, and the earlier batch is a
 * link (was it complete, or is it still running? what did it refuse?).
 */
function refusalText(err: unknown): { message: string; batch?: number; why?: string } {
  const message = (err as Error).message;
  if (!(err instanceof ApiError) || err.code !== 'duplicate_file') return { message };
  const batch = /batch (\d+)/.exec(message)?.[1];
  // "This file was imported in the last 24 hours", or "This file is being imported now" (a batch still processing it): the API's words up to the batch.
  const said = message.split(' (batch')[0]!;
  return { message: said, ...(said.includes('being imported') ? { why: 'Already sent' } : {}), ...(batch ? { batch: Number(batch) } : {}) };
}

/** Imports: upload a CSV, the batches with live progress (`import.progress` on /api/events), a batch's errors. */
export function ImportsSection({ rest }: { rest: string[] }) {
  return rest[0] ? <BatchDetail id={Number(rest[0])} /> : <ImportsList />;
}

/** Lines done over lines in the file (the header is line 1), from the latest event when it is newer than the read. */
function useProgress(batch: Batch | undefined) {
  const live = useLive((s) => (batch ? s.imports[String(batch.id)] : undefined));
  if (!batch) return { done: 0, total: 0, status: 'processing' as Batch['status'] };
  const done = Math.max(batch.lines_done, live?.lines_done ?? 0);
  const status = batch.status === 'processing' && live?.status && live.status !== 'processing' ? live.status : batch.status;
  return { done, total: Math.max(batch.lines_total, live?.lines_total ?? 0), status };
}

export function Progress({ batch }: { batch: Batch }) {
  const { done, total, status } = useProgress(batch);
  const max = Math.max(total - 1, 1);
  const value = status === 'completed' ? max : Math.min(Math.max(done - 1, 0), max);
  const pct = Math.round((value / max) * 100);
  return (
    <div className="bo-progress-wrap">
      <div className={`bo-progress ${status}`} role="progressbar" aria-label={`Progress of batch ${batch.id}`} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value}>
        <span style={{ width: `${pct}%` }} />
      </div>
      <span className="muted small num">
        {value.toLocaleString()} / {max.toLocaleString()} lines
      </span>
    </div>
  );
}

const StatusPill = ({ status }: { status: Batch['status'] }) => (
  <span className={`pill ${status === 'completed' ? 'paid' : status === 'failed' ? 'voided' : 'open'}`}>{status === 'processing' ? 'Processing' : status === 'completed' ? 'Completed' : 'Failed'}</span>
);

type Refusal = { status: number; message: string; batch?: number; why?: string };
const WHY: Record<number, string> = { 413: 'File too large', 415: 'Not a CSV file', 412: 'Nothing to import', 409: 'Already imported' };

function RefusalNotice({ refusal }: { refusal: Refusal }) {
  const go = useRoute((s) => s.go);
  const batch = refusal.batch;
  return (
    <p role="alert" className="notice error">
      {(refusal.why ?? WHY[refusal.status]) ? `${refusal.why ?? WHY[refusal.status]}: ` : ''}
      {refusal.message}
      {batch !== undefined && (
        <>
          {' ('}
          <a href={link('imports', String(batch))} onClick={(e) => (e.preventDefault(), go(link('imports', String(batch))))}>
            batch {batch}
          </a>
          {')'}
        </>
      )}
      . Nothing was imported.
    </p>
  );
}

/** How much of the file went out; once all of it has, the server is storing it and opening the batch. */
function UploadProgress({ bytes, total }: { bytes: number; total: number }) {
  const share = total > 0 ? Math.min(bytes / total, 1) : 0;
  const mb = (n: number) => (n / 1024 / 1024).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return (
    <div className="bo-progress-wrap">
      <div className="bo-progress processing" role="progressbar" aria-label="Upload" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)}>
        <span style={{ width: `${share * 100}%` }} />
      </div>
      <span className="muted small num">
        {share < 1 ? `${share.toLocaleString(undefined, { style: 'percent' })} sent (${mb(bytes)} of ${mb(total)} MB)` : 'Sent: opening the batch…'}
      </span>
    </div>
  );
}

/**
 * What the chosen file will do, read from its header row by the engine's rule, before it is sent;
 * or why the engine will refuse it (a column given twice), in the API's own words.
 */
function FileKindHint({ kind, refusal }: { kind: FileKind | undefined; refusal: HeaderRefusal | undefined }) {
  if (refusal) {
    return (
      <p role="alert" className="notice error" aria-label="Why this file cannot be imported">
        Cannot be imported: {refusal.message}.
      </p>
    );
  }
  if (!kind) return null;
  return (
    <p className={`notice ${kind === 'invoice_recon' ? 'warn' : 'info'} small`} aria-label="What this file will do">
      {KIND[kind]}: {KIND_EFFECT[kind]}
    </p>
  );
}

/** What the chosen file's header row says (no kind while it is read, or when it names none). */
function useFileKind(file: File | null): ChosenFile {
  const [read, setRead] = useState<{ of: File; chosen: ChosenFile }>();
  useEffect(() => {
    let live = true;
    if (file) void kindOfFile(file).then((chosen) => live && setRead({ of: file, chosen }));
    return () => {
      live = false;
    };
  }, [file]);
  return read && read.of === file ? read.chosen : { kind: undefined };
}

function Upload() {
  const creds = useUser((s) => s.creds);
  const go = useRoute((s) => s.go);
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const { kind, refusal: refused } = useFileKind(file);
  const [confirmClose, setConfirmClose] = useState(false);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<{ bytes: number; total: number } | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  // A box ticked for one file does not carry over to the next one chosen.
  useEffect(() => setConfirmClose(false), [file]);
  const send = async (options: UploadOptions = {}) => {
    if (!creds || !file) return;
    setBusy(true);
    setSent({ bytes: 0, total: file.size });
    try {
      const batch = await boUpload(creds, file, { ...options, ...(kind === 'invoice_recon' && confirmClose ? { confirmClose: true } : {}) }, (bytes, total) => setSent({ bytes, total }));
      // Kept while the page is open: a reconciliation held back is confirmed with its own file.
      sentFiles.set(batch.id, file);
      setFile(null);
      setRefusal(null);
      if (input.current) input.current.value = '';
      go(link('imports', String(batch.id)));
    } catch (err) {
      // The file stays chosen: fix it and send again, or (409) import it anyway.
      setRefusal({ status: err instanceof ApiError ? err.status : 0, ...refusalText(err) });
    } finally {
      setBusy(false);
      setSent(null);
    }
  };
  const pick = (f: File | undefined) => {
    if (!f) return;
    setFile(f);
    setRefusal(null);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    pick(e.dataTransfer.files[0]);
  };
  return (
    <div className="card bo-form bo-upload" aria-label="Upload a CSV">
      <h2>Upload a CSV</h2>
      <div
        className={`bo-drop${over ? ' over' : ''}`}
        onDragOver={(e) => (e.preventDefault(), setOver(true))}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
      >
        <p>{file ? <strong>{file.name}</strong> : 'Drop a CSV file here, or choose one.'}</p>
        {file && <p className="muted small">{fileSize(file.size)}</p>}
        <label className="bo-field small">
          CSV file
          <input ref={input} type="file" accept=".csv,text/csv" onChange={(e) => pick(e.target.files?.[0])} />
        </label>
      </div>
      <p className="muted small">Customers, invoices, payments, divisions, credit cards or reconciliation: the header row tells which. At most 25 MB.</p>
      {/* Whatever the reader's locale: a file's numbers are read one way (docs/csv-imports.md), and 12,50 or 1,5 is refused, never guessed at. */}
      <p className="small" aria-label="How numbers are written">
        Numbers in the file are written one way, whatever your language: amounts in whole cents with no separator, quantities with a point for decimals and no thousands separator. For example {new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 2 }).format(1234.5)} is written <code>123450</code> and {new Intl.NumberFormat(LOCALE).format(1.5)} pieces <code>1.5</code>. Columns may be separated by commas, semicolons or tabs.
      </p>
      <SampleFiles />
      {file && <FileKindHint kind={kind} refusal={refused} />}
      {file && kind === 'invoice_recon' && (
        <label className="bo-check">
          <input type="checkbox" checked={confirmClose} onChange={(e) => setConfirmClose(e.target.checked)} /> {CONFIRM_CLOSE}
        </label>
      )}
      {refusal && <RefusalNotice refusal={refusal} />}
      {sent && <UploadProgress bytes={sent.bytes} total={sent.total} />}
      <div className="bo-actions">
        {refusal?.status === 409 && (
          <button type="button" disabled={busy} onClick={() => void send({ force: true })}>
            Import it again anyway
          </button>
        )}
        <button type="button" className="primary" disabled={!file || busy || !!refused} onClick={() => void send()}>
          {busy ? 'Uploading…' : 'Import'}
        </button>
      </div>
    </div>
  );
}

/**
 * An invoice reconciliation that would have closed most of the open invoices closed none
 * (`held_back`): the screen says so and offers to confirm, by sending the same file again with
 * confirm_close, when this page still has it; otherwise it says how to choose it again.
 */
function HeldBack({ batch }: { batch: Batch }) {
  const creds = useUser((s) => s.creds);
  const session = useUser((s) => s.session);
  const go = useRoute((s) => s.go);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const held = batch.held_back;
  if (!held) return null;
  const file = sentFiles.get(batch.id);
  const confirm = async () => {
    if (!creds || !file) return;
    setBusy(true);
    try {
      const next = await boUpload(creds, file, { confirmClose: true });
      sentFiles.set(next.id, file);
      go(link('imports', String(next.id)));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const closeThem = `Close the ${held.unlisted.toLocaleString()} open invoices it leaves out`;
  return (
    <div role="alert" className="notice warn bo-held-back" aria-label="Closing held back">
      <p>
        The file leaves out {held.unlisted.toLocaleString()} of {held.open_invoices.toLocaleString()} open invoices; none were closed. A file that leaves out most of them is
        more often the wrong file (a sample, another shop&apos;s list, an export cut short) than the ERP&apos;s complete list, and a closed invoice cannot be imported again.
      </p>
      {!can(session, 'manage') ? (
        <p>An owner or a manager can confirm it.</p>
      ) : file ? (
        <div className="bo-actions">
          <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Uploading…' : closeThem}
          </button>
        </div>
      ) : (
        <p>
          If it is the complete list, choose {batch.file_name} again under{' '}
          <a href={link('imports')} onClick={(e) => (e.preventDefault(), go(link('imports')))}>
            Imports
          </a>
          , tick “{CONFIRM_CLOSE}” and Import.
        </p>
      )}
      {error && <p>{error}</p>}
    </div>
  );
}

function ImportsList() {
  const session = useUser((s) => s.session);
  const go = useRoute((s) => s.go);
  const { rows, more, loading, error } = usePaged<Batch, number>(async (c, page = 1) => {
    const items = await boCall(c, 'imports', { query: { page } });
    return { items, next: items.length === PAGE ? page + 1 : null };
  }, []);
  return (
    <section className="bo-section">
      <Title>Imports</Title>
      {can(session, 'manage') && <Upload />}
      <Notice error={error} />
      <div className="card">
        <h2>Batches</h2>
        <TableScroll>
          <table className="bo-simple" aria-label="Batches">
            <thead>
              <tr><th>Batch</th><th>File</th><th>Kind</th><th>Uploaded</th><th>Status</th><th>Progress</th><th className="num">Refused</th><th>Result</th></tr>
            </thead>
            <tbody>
              {rows.map((b) => (
                <tr key={b.id} className="clickable" tabIndex={0} onClick={() => go(link('imports', String(b.id)))} onKeyDown={(e) => e.key === 'Enter' && go(link('imports', String(b.id)))}>
                  <td className="num">#{b.id}</td>
                  {/* Room for a file name: squeezed by the wider columns it wrapped one word a line. */}
                  <td style={{ minWidth: '16ch', overflowWrap: 'anywhere' }}>{b.file_name}</td>
                  <td>{KIND[b.kind]}</td>
                  <td style={{ whiteSpace: 'nowrap' }}>{time(b.created_at)}</td>
                  <td>
                    <StatusPill status={b.status} />
                    {b.held_back && <span className="pill open" title="None of the open invoices it leaves out was closed: open the batch to confirm">{' '}Closing held back</span>}
                  </td>
                  <td><Progress batch={b} /></td>
                  <td className="num">{b.file_errors_count.toLocaleString()}</td>
                  <td>{resultText(b)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
        {rows.length === 0 && !loading && <p className="muted bo-empty">No file imported yet.</p>}
        <div className="bo-foot">
          <span className="muted">{rows.length} shown</span>
          {loading && <span className="muted">Loading…</span>}
          {more && !loading && <button type="button" onClick={more}>Load more</button>}
        </div>
      </div>
    </section>
  );
}

/** The tokenized results are deleted 24 hours after the batch completes (docs/csv-imports.md): said before, not found out by a 404. */
function EchoHint({ batch }: { batch: Batch }) {
  const until = batch.complete_at ? new Date(Date.parse(batch.complete_at) + 24 * 3600_000).toISOString() : null;
  return (
    <p className="muted small" aria-label="Tokenized results">
      {sentence(`The tokenized results (each card masked, with its wallet, fund and vault tokens) can be downloaded for 24 hours after the import finished${until ? `, until ${time(until)}` : ''}`)}{' '}
      Like the reference's, the file has no header row: each line is a line of yours in the same
      order, card number and expiry masked, followed by the wallet token, the fund token and the vault token (empty for a refused line).
    </p>
  );
}

/** What one record of a kind is called, singular and plural: a refused invoice may span several lines. */
const REFUSED_NOUN: Record<Batch['kind'], [string, string]> = {
  customers: ['customer', 'customers'],
  invoices: ['invoice', 'invoices'],
  payments: ['payment', 'payments'],
  divisions: ['division', 'divisions'],
  credit_cards: ['card line', 'card lines'],
  invoice_recon: ['line', 'lines'],
  payment_recon: ['line', 'lines'],
};

/**
 * The batch counts records refused; the list below has one row per problem (a record may have
 * several): both are said, so "6" above 13 rows does not read as a miscount.
 */
function refusedText(kind: Batch['kind'], refused: number, problems: number | null): string {
  const [one, many] = REFUSED_NOUN[kind] ?? ['record', 'records'];
  const head = `${refused.toLocaleString(LOCALE)} ${refused === 1 ? one : many} refused`;
  return problems === null ? head : `${head} (${problems.toLocaleString(LOCALE)} ${problems === 1 ? 'problem' : 'problems'})`;
}

function BatchDetail({ id }: { id: number }) {
  const creds = useUser((s) => s.creds);
  const session = useUser((s) => s.session);
  const batch = useLoad((c) => boCall(c, 'importBatch', { params: { id } }), [id]);
  const b = batch.data;
  // Unknown until the batch is read: "every line was imported" must not flash before "processing".
  const done = b !== undefined && b.status !== 'processing';
  // The errors are read once the batch is over (they come in with each unit of work before that).
  const errors = useLoad((c) => boCall(c, 'importErrors', { params: { id } }), [id, done]);
  const [message, setMessage] = useState<string | null>(null);
  const download = (name: 'importErrorsCsv' | 'importEcho', file: string) => {
    if (creds) boDownload(creds, name, id, file).catch((err: unknown) => setMessage((err as Error).message));
  };
  const all = errors.data?.message ?? [];
  // A file of 100k bad lines stays a page: the CSV download has them all.
  const list = all.slice(0, SHOWN_ERRORS);
  return (
    <section className="bo-section">
      <Title back={link('imports')}>Batch #{id}{b ? ` · ${b.file_name}` : ''}</Title>
      <Notice error={batch.error || message} />
      {b && (
        <div className="card">
          <HeldBack batch={b} />
          <dl className="bo-dl">
            <div><dt>Status</dt><dd><StatusPill status={b.status} /></dd></div>
            <div><dt>Kind</dt><dd>{KIND[b.kind]}</dd></div>
            <div><dt>Uploaded</dt><dd>{time(b.created_at)}</dd></div>
            <div><dt>Finished</dt><dd>{b.complete_at ? time(b.complete_at) : '—'}</dd></div>
            <div><dt>Result</dt><dd>{resultText(b)}</dd></div>
          </dl>
          <Progress batch={b} />
          <p className="muted small" data-testid="batch-file">{fileSize(b.file_size)} · fingerprint {b.file_fingerprint.slice(0, 16)}…</p>
          <div className="bo-actions">
            {/* Offered only when there is something in it: a file of no errors is no answer to download. */}
            {b.file_errors_count > 0 && (
              <button type="button" onClick={() => download('importErrorsCsv', `batch-${id}-errors.csv`)}>
                Download errors (.csv)
              </button>
            )}
            {b.kind === 'credit_cards' && can(session, 'money') && (
              <button type="button" disabled={b.status !== 'completed'} onClick={() => download('importEcho', `batch-${id}-tokens.csv`)}>
                Download tokenized results
              </button>
            )}
          </div>
          {b.kind === 'credit_cards' && can(session, 'money') && <EchoHint batch={b} />}
        </div>
      )}
      {b && (b.kind === 'invoice_recon' || b.kind === 'payment_recon') && <ReconResults id={id} kind={b.kind} running={b.status === 'processing'} />}
      <div className="card">
        <h2>Errors</h2>
        {b && b.file_errors_count > 0 && <p aria-label="Errors summary">{refusedText(b.kind, b.file_errors_count, done && errors.data ? all.length : null)}</p>}
        <TableScroll>
          <table className="bo-simple" aria-label="Errors">
            <thead><tr><th>Line</th><th>Field</th><th>Message</th></tr></thead>
            <tbody>
              {list.map((e, i) => (
                <tr key={`${e.line_number}:${e.field}:${i}`}>
                  <td>{e.line_number}</td>
                  <td><code>{e.field || '(the line)'}</code></td>
                  <td>{e.error}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
        {list.length === 0 && b && errors.data && <p className="muted bo-empty">{done ? 'Every line was imported.' : 'None so far.'}</p>}
        {all.length > list.length && <p className="muted bo-empty">The first {list.length.toLocaleString()} of {all.length.toLocaleString()}: download the errors for all of them.</p>}
      </div>
    </section>
  );
}
