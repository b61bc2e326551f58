import { Fragment, useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { LOCALE, sentence, time } from '../format';
import { can, useUser } from '../state/user';
import { Field, Notice, ReadOnlyNote, fieldErrors, useLoad, usePaged, useUnsavedGuard } from './common';
import type { MailStatus } from './MailOutcome';

type Attempt = BoAnswer<'webhookResponses'>['webhook_responses'][number];
type Message = BoAnswer<'outbox'>['messages'][number];
const PAGE = 50;
// Attempts a second apart are told apart in the log.
const stamp = (iso: string) => new Date(iso).toLocaleString(LOCALE, { dateStyle: 'medium', timeStyle: 'medium' });

/** What became of an attempt, told with the newest attempt of its delivery. */
function outcomeText(a: Attempt, newest: Attempt | undefined): string {
  if (a.outcome === 'delivered') return 'Delivered';
  if (a.outcome === 'failed') return 'Failed';
  if (!newest || newest.id === a.id) return `Attempt ${a.attempt}, will retry`;
  return newest.outcome === 'delivered' ? `Attempt ${a.attempt}; delivered on attempt ${newest.attempt}` : `Attempt ${a.attempt}, tried again`;
}

const statusClass = (a: Attempt) => (a.status === 200 ? 'paid' : a.outcome === 'failed' || a.status === 0 ? 'voided' : 'refunded');

/** Footer of a paged table: how many are shown and "Load more" while the engine has more. */
function Foot({ count, loading, more }: { count: number; loading: boolean; more: (() => void) | null }) {
  return (
    <div className="bo-foot">
      <span className="muted">{count} shown</span>
      {loading && <span className="muted">Loading…</span>}
      {more && !loading && <button type="button" onClick={more}>Load more</button>}
    </div>
  );
}

/** Every delivery attempt, newest first, read again on each live change; Resend posts the record as it stands now. */
export function DeliveryLog() {
  const session = useUser((s) => s.session);
  const creds = useUser((s) => s.creds);
  const resendable = can(session, 'credentials');
  const { rows, more, loading, error } = usePaged<Attempt, number>(async (c, before) => {
    const page = await boCall(c, 'webhookResponses', { query: { limit: PAGE, ...(before ? { before } : {}) } });
    return { items: page.webhook_responses, next: page.next_before };
  }, []);
  const [busy, setBusy] = useState<string | null>(null);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const resend = async (a: Attempt) => {
    if (!creds) return;
    setBusy(a.id);
    try {
      const again = await boCall(creds, 'resendWebhook', { params: { id: a.id }, body: {} });
      setResult({ ok: again.status === 200, text: `Sent ${a.event_type} ${a.key} again to ${again.url}: ${again.status === 0 ? again.error ?? 'no answer' : `HTTP ${again.status}`} in ${again.latency_ms} ms.` });
    } catch (err) {
      setResult({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(null);
    }
  };
  // The newest attempt of each delivery listed (rows come newest first): an older attempt's
  // "will retry" is history once a later one was made.
  const newest = new Map<string, Attempt>();
  for (const a of rows) if (!newest.has(a.delivery)) newest.set(a.delivery, a);
  return (
    <div className="card bo-stack" aria-label="Delivery log">
      <h2>Delivery log</h2>
      <Notice error={error} />
      {result && <p role="status" className={`notice ${result.ok ? 'ok' : 'error'}`}>{result.text}</p>}
      <table className="bo-simple" aria-label="Webhook deliveries">
        <thead>
          <tr><th>Time</th><th>Event</th><th>Endpoint</th><th>Status</th><th className="num">Latency</th><th>Answer</th><th /></tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id}>
              <td className="bo-nowrap">{stamp(a.at)}</td>
              <td>{a.event_type} <span className="muted small">{a.key}</span></td>
              <td className="small"><code>{a.url}</code></td>
              <td>
                <span className={`pill ${statusClass(a)}`}>{a.status === 0 ? 'No answer' : a.status}</span>
                {a.manual && <span className="pill">resent</span>}
                <div className="muted small">{outcomeText(a, newest.get(a.delivery))}</div>
              </td>
              <td className="num">{a.latency_ms.toLocaleString()} ms</td>
              <td className="small bo-excerpt" title={a.body_excerpt}>{a.status === 0 ? a.error ?? '—' : a.body_excerpt || '(empty)'}</td>
              <td>
                {resendable && (
                  <button type="button" disabled={busy === a.id} aria-label={`Resend ${a.event_type} ${a.key} (${a.id})`} onClick={() => void resend(a)}>
                    Resend
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !loading && <p className="muted bo-empty">No delivery yet.</p>}
      <Foot count={rows.length} loading={loading} more={more} />
    </div>
  );
}

/** The SMTP relay (sandbox without one) and the outbox of every message. */
export function MailSection() {
  return (
    <>
      <Relay />
      <Outbox />
    </>
  );
}

type Check = NonNullable<NonNullable<BoAnswer<'mail'>['relay']>['check']>;

/** The relay's badge: what the outbox shows of it (the newest delivery attempt, else the try when saved), not that it is set. */
const BADGE: Record<MailStatus['state'], [string, string]> = {
  sandbox: ['refunded', 'Sandbox: kept in the outbox'],
  untested: ['open', 'Not tried yet'],
  working: ['paid', 'Working'],
  failing: ['voided', 'Failing'],
};

/** What saving found: the relay answered, or it is saved but does not answer, and why. */
const savedText = (check: Check | null | undefined) =>
  !check
    ? 'Saved.'
    : check.ok
      ? `Saved and working: ${check.message}`
      : `Saved, but the relay is not reachable: ${check.message}${check.error ? ` (${check.error})` : ''} E-mail waits in the Outbox and is retried for three days; fix the settings and save again.`;

/** Why the relay is failing and when the outbox tries again; how many messages wait. */
function RelayStatus({ status }: { status: MailStatus }) {
  const waiting = status.queued > 0 ? ` ${sentence(`${status.queued} ${status.queued === 1 ? 'message waits' : 'messages wait'} in the Outbox${status.next_retry_at ? `; next try ${time(status.next_retry_at)}` : ''}`)}` : '';
  if (status.state === 'failing') {
    return (
      <p className="notice error" aria-label="Relay status">
        Failing{status.last_attempt_at ? ` (last tried ${time(status.last_attempt_at)})` : ''}: {sentence(status.last_error ?? 'the relay did not answer')}{waiting}
      </p>
    );
  }
  return waiting ? <p className="muted small" aria-label="Relay status">{waiting.trim()}</p> : null;
}

function Relay() {
  const session = useUser((s) => s.session);
  const creds = useUser((s) => s.creds);
  const editable = can(session, 'credentials');
  const { data, reload } = useLoad((c) => boCall(c, 'mail', {}), []);
  const [values, setValues] = useState<Record<string, string>>({});
  const [secure, setSecure] = useState<boolean | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ tone: 'ok' | 'info' | 'warn' | 'error'; text: string } | null>(null);
  useUnsavedGuard(Object.keys(values).length > 0 || secure !== null);
  if (!data) return <p className="muted">Loading…</p>;
  const r = data.relay;
  const value = (k: 'host' | 'port' | 'user' | 'from' | 'password') => values[k] ?? (k === 'password' ? '' : k === 'port' ? String(r?.port ?? 587) : (r?.[k] ?? ''));
  const set = (k: string) => (v: string) => setValues((s) => ({ ...s, [k]: v }));
  const done = (text: string, tone: 'ok' | 'warn' = 'ok') => (setValues({}), setSecure(null), setErrors({}), setMessage({ tone, text }), reload());
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    const port = Number(value('port'));
    try {
      setMessage({ tone: 'info', text: 'Saving: trying the relay…' });
      const saved = await boCall(creds, 'setMailRelay', {
        body: { host: value('host').trim(), port: Number.isInteger(port) ? port : 0, secure: secure ?? r?.secure ?? port === 465, user: value('user').trim(), from: value('from').trim(), ...(values.password !== undefined ? { password: values.password } : {}) },
      });
      done(savedText(saved.check), saved.check && !saved.check.ok ? 'warn' : 'ok');
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(f.fields);
      setMessage({ tone: 'error', text: f.message });
    }
  };
  const remove = async () => {
    if (!creds || !window.confirm('Remove the relay? E-mail stays in the outbox (sandbox) until a relay is set.')) return;
    await boCall(creds, 'removeMailRelay', {}).then(() => done('Removed: sandbox mode.'), (err: unknown) => setMessage({ tone: 'error', text: (err as Error).message }));
  };
  return (
    <form className="card bo-form" onSubmit={(e) => void save(e)} noValidate aria-label="SMTP relay">
      <h2>SMTP relay <span className={`pill ${BADGE[data.status.state][0]}`} aria-label="Relay state">{BADGE[data.status.state][1]}</span></h2>
      {message && <p role="status" aria-label="Relay saved" className={`notice ${message.tone}`}>{message.text}</p>}
      <RelayStatus status={data.status} />
      {!editable && <ReadOnlyNote grant="credentials" />}
      <fieldset className="bo-plain bo-stack" disabled={!editable}>
        <Field label="Host" name="host" value={value('host')} onChange={set('host')} errors={errors} hint="For example smtp.example.com" />
        <Field label="Port" name="port" value={value('port')} onChange={set('port')} errors={errors} type="number" />
        <label className="bo-check">
          <input type="checkbox" checked={secure ?? r?.secure ?? false} onChange={(e) => setSecure(e.target.checked)} /> TLS from the first byte (port 465); otherwise STARTTLS, required to send the password to a relay not on this machine
        </label>
        <Field label="User" name="user" value={value('user')} onChange={set('user')} errors={errors} />
        <Field label="Password" name="password" type="password" value={value('password')} onChange={set('password')} errors={errors} hint={r?.password_set ? 'Set (never shown). Leave empty to keep it.' : 'Kept encrypted.'} />
        <Field label="From" name="from" value={value('from')} onChange={set('from')} errors={errors} hint={'address, or "Name <address>"'} />
      </fieldset>
      {r && <p className="muted small">{sentence(`Last changed ${time(r.updated_at)}`)}</p>}
      {editable && (
        <div className="bo-actions">
          {r && <button type="button" className="danger" onClick={() => void remove()}>Remove relay</button>}
          <button type="submit" className="primary">Save relay</button>
        </div>
      )}
    </form>
  );
}

function Outbox() {
  const { rows, more, loading, error } = usePaged<Message, number>(async (c, before) => {
    const page = await boCall(c, 'outbox', { query: { limit: PAGE, ...(before ? { before } : {}) } });
    return { items: page.messages, next: page.next_before };
  }, []);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="card bo-stack" aria-label="Mail outbox">
      <h2>Outbox</h2>
      <Notice error={error} />
      <table className="bo-simple" aria-label="Messages">
        <thead><tr><th>Queued</th><th>To</th><th>Subject</th><th>State</th><th>Sent</th></tr></thead>
        <tbody>
          {rows.map((m) => (
            <Fragment key={m.id}>
              <tr className="clickable" tabIndex={0} onClick={() => setOpen(open === m.id ? null : m.id)} onKeyDown={(e) => e.key === 'Enter' && setOpen(open === m.id ? null : m.id)}>
                <td>{time(m.created_at)}</td>
                <td>{m.to}</td>
                <td>{m.subject}{m.attachment && <span className="pill">{m.attachment.file_name}</span>}</td>
                <td>
                  <span className={`pill ${m.state === 'sent' ? 'paid' : m.state === 'failed' ? 'voided' : 'open'}`}>{m.state}</span>
                  {m.transport === 'sandbox' && <span className="pill">sandbox</span>}
                  {m.error && <div className="error small">{m.error}</div>}
                </td>
                <td>{m.sent_at ? time(m.sent_at) : '—'}</td>
              </tr>
              {open === m.id && (
                <tr>
                  <td colSpan={5}><pre className="bo-mail">{m.text}</pre></td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !loading && <p className="muted bo-empty">No message yet.</p>}
      <Foot count={rows.length} loading={loading} more={more} />
    </div>
  );
}
