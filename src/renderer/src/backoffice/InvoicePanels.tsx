import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { boCall, boCallQueued, type BoAnswer } from '../api/backoffice';
import { backofficeRoutes } from '../../../shared/api/backoffice-routes';
import { time } from '../format';
import { can, useUser } from '../state/user';
import { Notice, useLoad, useUnsavedGuard } from './common';
import { DeliveryNotice, useDelivery, type DeliveryWords } from './MailOutcome';
import './details.css';

/**
 * The invoice page's panels: its PDF in the page, a reminder, disputes and comments. Each is one
 * operation of the API; what a reminder did is the engine's count, put in words here.
 */
type Invoice = BoAnswer<'invoice'>;
type Counts = BoAnswer<'remind'>;

/**
 * The PDF is fetched with the session's Authorization header (an <iframe src> would go without it)
 * and shown from an object URL; /app's Content-Security-Policy allows frames of blob: URLs only.
 */
function usePdf(number: string, fileName: string | undefined): { url: string | null; error: string | null } {
  const creds = useUser((s) => s.creds);
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!creds) return;
    let made: string | null = null;
    let live = true;
    setUrl(null);
    setError(null);
    const path = backofficeRoutes.invoiceDocument.path.replace(':number_or_id', encodeURIComponent(number));
    fetch(`${creds.baseUrl}${path}${fileName ? `?file_name=${encodeURIComponent(fileName)}` : ''}`, { headers: { Authorization: creds.authorization } })
      .then(async (res) => {
        if (!res.ok) throw new Error(`The PDF could not be read (${res.status}).`);
        const blob = await res.blob();
        if (!live) return;
        made = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
        setUrl(made);
      })
      .catch((e: unknown) => live && setError((e as Error).message));
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [creds, number, fileName]);
  return { url, error };
}

export function InvoiceDocument({ data }: { data: Invoice }) {
  const primary = data.attachments.find((a) => a.invoice_display)?.file_name;
  const [file, setFile] = useState<string | undefined>(undefined);
  const shown = file ?? primary;
  const { url, error } = usePdf(data.number, file);
  const name = shown ?? `invoice-${data.number}.pdf`;
  return (
    <div className="card bo-stack" aria-label="Document">
      <div className="bo-title">
        <h2 className="page-title">Document</h2>
        <div className="bo-actions">
          {data.attachments.length > 1 &&
            data.attachments.map((a) => (
              <button key={a.file_name} type="button" aria-pressed={a.file_name === shown} onClick={() => setFile(a.file_name)}>
                {a.file_name} <span className="muted small">({Math.ceil(a.size / 1024)} KB)</span>
              </button>
            ))}
          {url && <a className="button" href={url} download={name}>Download PDF</a>}
        </div>
      </div>
      {data.attachments.length === 0 && <p className="muted small">No attachment: this is the invoice as Laneway renders it for reminders.</p>}
      <Notice error={error} />
      {url ? <iframe className="bo-pdf" title={`Invoice ${data.display_number} (PDF)`} src={url} /> : !error && <p className="muted">Loading the PDF…</p>}
    </div>
  );
}

const WHY: Array<[keyof Counts, string]> = [
  ['not_found', 'the invoice was not found'],
  ['paid', 'nothing is owing'],
  ['credit', 'it is a credit'],
  ['draft', 'it is a draft'],
  ['suppressed', "the customer's notifications are turned off"],
  ['invoice_suppressed', "this invoice's notifications are turned off"],
  ['on_plan', 'it is on a payment plan'],
  ['scheduled', 'autopay will pay it on its due date'],
  ['not_invited', 'no contact of the customer has been invited yet'],
];

const invoices = (n: number) => `${n} ${n === 1 ? 'invoice' : 'invoices'}`;

/** The engine's reminder counts as a sentence, when none was queued: why not. */
export function reminderWords(c: Counts): string {
  const reasons = WHY.filter(([k]) => c[k] > 0).map(([, why]) => why);
  return `No reminder sent${reasons.length ? `: ${reasons.join('; ')}` : ''}.`;
}

/**
 * The counts' `sent` are reminders queued (the reference's word): whether they went is the outbox's
 * to say, so the words follow the messages the answer named.
 */
const queuedWords = (c: Counts): DeliveryWords => ({
  queued: `Reminder queued for ${invoices(c.sent)} of ${c.requested}`,
  sent: `Reminder sent for ${invoices(c.sent)} of ${c.requested}`,
  sandbox: `Reminder for ${invoices(c.sent)} of ${c.requested}`,
  failed: `Reminder for ${invoices(c.sent)} of ${c.requested}`,
  none: reminderWords(c),
});

/** A reminder of the invoice: the button for the page's actions, and what the engine did, in words, for below the title. */
export function useReminder(data: Invoice): { button: ReactNode; result: ReactNode } {
  const creds = useUser((s) => s.creds);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ counts?: Counts; messages?: string[]; error?: string }>({});
  const outcome = useDelivery(result.messages ?? null);
  const send = async () => {
    if (!creds) return;
    setBusy(true);
    try {
      const { answer, messages } = await boCallQueued(creds, 'remind', { params: { number_or_id: data.number } });
      setResult({ counts: answer, messages });
    } catch (err) {
      setResult({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  // Sent once from this page: a second press would e-mail the customer again (reload to send another).
  const sent = (result.counts?.sent ?? 0) > 0;
  return {
    button: (
      <button type="button" disabled={busy || sent} title={sent ? 'Reminded: reload the page to send another' : undefined} onClick={() => void send()}>
        {busy ? 'Sending…' : sent ? (outcome.delivery === 'sent' ? 'Reminder sent' : outcome.delivery === 'sandbox' ? 'Reminder kept (sandbox)' : 'Reminder queued') : 'Send a reminder'}
      </button>
    ),
    result: (
      <>
        {result.counts && result.counts.sent > 0 && <DeliveryNotice label="Reminder result" outcome={outcome} words={queuedWords(result.counts)} />}
        {result.counts && result.counts.sent === 0 && <p role="status" className="notice warn bo-counts" aria-label="Reminder result">{reminderWords(result.counts)}</p>}
        <Notice error={result.error} />
      </>
    ),
  };
}

export function ThreadPanel({ data }: { data: Invoice }) {
  const creds = useUser((s) => s.creds);
  const session = useUser((s) => s.session);
  const { data: thread, error, reload } = useLoad((c) => boCall(c, 'invoiceThread', { params: { number_or_id: data.number } }), [data.number]);
  const [opener, setOpener] = useState('');
  const [text, setText] = useState('');
  useUnsavedGuard(text.trim() !== '' || opener.trim() !== '');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const open = thread?.disputes.find((d) => d.closed_at === null);
  const allowed = can(session, 'collect');
  const run = async (e: FormEvent, what: 'comment' | 'open' | 'close') => {
    e.preventDefault();
    if (!creds) return;
    setBusy(true);
    setProblem(null);
    const params = { invoice_number: data.number };
    try {
      if (what === 'comment') await boCall(creds, 'commentOnInvoice', { params, body: { comment: text.trim(), internal: true } });
      if (what === 'open') await boCall(creds, 'openDispute', { params, body: { opener: opener.trim(), comment: text.trim() } });
      if (what === 'close') await boCall(creds, 'closeDispute', { params, body: text.trim() ? { comment: text.trim() } : {} });
      setText('');
      setOpener('');
      reload();
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card bo-stack" aria-label="Disputes and comments">
      <div className="bo-title">
        <h2 className="page-title">Disputes and comments</h2>
        {open ? <span className="pill overdue">disputed since {time(open.opened_at)}</span> : <span className="pill">no open dispute</span>}
      </div>
      <Notice error={error} />
      {thread && thread.comments.length === 0 && <p className="muted">No comment yet.</p>}
      <ul className="bo-thread" aria-label="Comments">
        {thread?.comments.map((c) => (
          <li key={c.identifier} className={c.dispute === 'Y' ? 'dispute' : ''}>
            <span className="who">{c.user} · {time(c.timestamp)}{c.dispute === 'Y' ? ' · dispute' : ''}{c.internal === 'Y' ? ' · internal' : ''}</span>
            <p>{c.comment}</p>
          </li>
        ))}
      </ul>
      {thread && thread.disputes.length > 0 && (
        <p className="muted small">{thread.disputes.length} {thread.disputes.length === 1 ? 'dispute' : 'disputes'}: {thread.disputes.map((d) => `${d.opener}, ${d.closed_at ? `closed ${time(d.closed_at)}` : 'open'}`).join(' · ')}</p>
      )}
      {allowed && (
        <form className="bo-stack" onSubmit={(e) => void run(e, 'comment')}>
          <div className="bo-field">
            <label htmlFor="thread-text">{open ? 'Comment, or how the dispute was resolved' : 'Comment, or what the customer disputes'}</label>
            <textarea id="thread-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          </div>
          {!open && (
            <label className="bo-field">
              Raised by (to open a dispute)
              <input value={opener} onChange={(e) => setOpener(e.target.value)} placeholder="Contact name or e-mail" />
            </label>
          )}
          <div className="bo-actions">
            {open ? (
              <button type="button" disabled={busy} onClick={(e) => void run(e, 'close')}>Close the dispute</button>
            ) : (
              <button type="button" disabled={busy || !opener.trim() || !text.trim()} onClick={(e) => void run(e, 'open')}>Open a dispute</button>
            )}
            <button type="submit" className="primary" disabled={busy || !text.trim()}>Add comment</button>
          </div>
        </form>
      )}
      <Notice error={problem} />
    </div>
  );
}
