import { useState, type FormEvent } from 'react';
import { boCall } from '../api/backoffice';
import { can, useUser } from '../state/user';
import { Field, InApp, Notice, ReadOnlyNote, Title, day, fieldErrors, useLoad, useUnsavedGuard } from './common';
import { Capabilities } from './AccountCapabilities';
import { dayText, parseTimeOfDay, sentence, time } from '../format';

/** Account: the profile, processing cut-off and time zone, capability flags (settings), and API credentials (the owner's). */
export function AccountSection() {
  const session = useUser((s) => s.session);
  return (
    <section className="bo-section">
      <Title>Account</Title>
      <Profile editable={can(session, 'settings')} />
      <Capabilities editable={can(session, 'settings')} />
      <p className="muted small">
        The SMTP relay for e-mail is under <InApp to="/app/developers/webhook_responses">Webhooks &amp; e-mail</InApp>; the web shops that may show the payment frame under <InApp to="/app/payment_frame">Payment frame</InApp>
        {/* Users only for a role that has the Users screen (the `users` grant): no pointer to a screen that sends it elsewhere. */}
        {can(session, 'users') ? (
          <>
            ; users under <InApp to="/app/users">Users</InApp>.
          </>
        ) : (
          '.'
        )}
      </p>
      {can(session, 'credentials') && <ApiCredentials />}
    </section>
  );
}

/** The zones the browser knows, offered as the time zone is typed. */
const TIME_ZONES: readonly string[] = Intl.supportedValuesOf('timeZone');

function Profile({ editable }: { editable: boolean }) {
  const creds = useUser((s) => s.creds);
  const { data, reload } = useLoad((c) => boCall(c, 'account', {}), []);
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  useUnsavedGuard(!!data && Object.entries(values).some(([k, v]) => v !== data[k as 'name' | 'timezone' | 'processing_cutoff']));
  if (!data) return <p className="muted">Loading…</p>;
  const value = (k: 'name' | 'timezone' | 'processing_cutoff') => values[k] ?? data[k];
  const set = (k: string) => (v: string) => setValues((s) => ({ ...s, [k]: v }));
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    // The cut-off as people type it ("22 h 30", "10:30 pm"), sent as the 24-hour HH:MM the API takes.
    const cutoff = parseTimeOfDay(value('processing_cutoff'));
    if (!cutoff) {
      setErrors({ processing_cutoff: 'Type a time of day such as 22:30 (24-hour clock) or 10:30 pm' });
      setMessage({ ok: false, text: 'The processing cut-off is not a time of day.' });
      return;
    }
    try {
      await boCall(creds, 'updateAccount', { body: { name: value('name'), timezone: value('timezone'), processing_cutoff: cutoff } });
      setErrors({});
      setValues({});
      setMessage({ ok: true, text: 'Saved.' });
      reload();
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(f.fields);
      setMessage({ ok: false, text: f.message });
    }
  };
  return (
    <form className="card bo-form" onSubmit={(e) => void save(e)} noValidate aria-label="Profile">
      <h2>Profile</h2>
      {message && <p role="status" className={`notice ${message.ok ? 'ok' : 'error'}`}>{message.text}</p>}
      <p className="muted">
        {data.environment} · {data.currency.toUpperCase()} · account {data.token}
      </p>
      {/* Read-only without the settings grant: fields that take typing but can never be saved mislead. */}
      {!editable && <ReadOnlyNote />}
      <Field label="Business name" name="name" value={value('name')} onChange={set('name')} errors={errors} disabled={!editable} />
      <Field label="Time zone" name="timezone" value={value('timezone')} onChange={set('timezone')} errors={errors} hint="Region/City, for example America/Toronto" suggestions={TIME_ZONES} disabled={!editable} />
      <Field label="Processing cut-off (HH:MM, local)" name="processing_cutoff" value={value('processing_cutoff')} onChange={set('processing_cutoff')} errors={errors} hint="24-hour clock: 23:00 for 11 pm. A change applies from the next processing day: the day now open still closes at the old time" disabled={!editable} />
      <OpenDay day={data.open_processing_day} />
      {editable && (
        <div className="bo-actions">
          <button type="submit" className="primary">Save</button>
        </div>
      )}
    </form>
  );
}

/**
 * When the open batch closes. After a change of the cut-off the open day keeps the old one, which
 * the cut-off field no longer shows: without this, nobody could tell when today's batch goes.
 */
function OpenDay({ day: open }: { day: { date: string; closes_at: string } }) {
  return (
    <p className="muted small" data-testid="open-processing-day">
      {sentence(`Open processing day ${dayText(open.date)}: its batch closes ${time(open.closes_at)}`)}
    </p>
  );
}

function ApiCredentials() {
  const creds = useUser((s) => s.creds);
  const { data, error, reload } = useLoad((c) => boCall(c, 'credentials', {}), []);
  const [name, setName] = useState('');
  useUnsavedGuard(name.trim() !== '');
  const [shown, setShown] = useState<{ token: string; key: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    try {
      const made = await boCall(creds, 'createCredential', { body: name.trim() ? { name: name.trim() } : {} });
      setShown({ token: made.token, key: made.key });
      setName('');
      reload();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  const disable = async (token: string) => {
    if (!creds || !window.confirm(`Disable ${token}? It and its JWTs stop working at once.`)) return;
    await boCall(creds, 'disableCredential', { params: { token } }).catch((err: unknown) => setMessage((err as Error).message));
    reload();
  };
  return (
    <div className="card bo-form" aria-label="API credentials">
      <h2>API credentials</h2>
      <Notice error={error ?? message} />
      {shown && (
        <div className="notice info" role="status">
          New credential (the key is shown this once): token <code className="bo-secret">{shown.token}</code> key <code className="bo-secret">{shown.key}</code>
        </div>
      )}
      <table className="bo-simple">
        <thead><tr><th>Token</th><th>Name</th><th>Created</th><th>State</th><th /></tr></thead>
        <tbody>
          {(data?.credentials ?? []).map((c) => (
            <tr key={c.token}>
              <td>{c.token}</td><td>{c.name}</td><td>{day(c.created_at)}</td><td>{c.enabled ? 'Enabled' : `Disabled ${day(c.disabled_at)}`}</td>
              <td>{c.enabled && <button type="button" className="danger" onClick={() => void disable(c.token)}>Disable</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="bo-filters" onSubmit={(e) => void create(e)}>
        <input aria-label="New credential name" placeholder="Name (what uses it)" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="primary">Create credential</button>
      </form>
    </div>
  );
}
