import { useState, type FormEvent } from 'react';
import { sentence, time } from '../format';
import { boCall } from '../api/backoffice';
import { can, useUser } from '../state/user';
import { Field, Notice, fieldErrors, useLoad, useUnsavedGuard } from './common';

const blank = { url: '', token: '', key: '' };

/**
 * The upstream a hub replicates with (PUT/GET/DELETE /api/sync/upstream, docs/sync.md). Shown to
 * users with the `settings` grant (the token is another service's credential); set only by who
 * holds `credentials` (the owner): the upstream receives the install's records until removed. A
 * manager reads it and may remove it. The key is sent, never read back: the field stays empty and
 * a new one must be typed to save.
 */
export function UpstreamForm({ onChange }: { onChange(): void }) {
  const session = useUser((s) => s.session);
  return can(session, 'settings') ? <Upstream onChange={onChange} owner={can(session, 'credentials')} /> : null;
}

function Upstream({ onChange, owner }: { onChange(): void; owner: boolean }) {
  const creds = useUser((s) => s.creds);
  const current = useLoad((c) => boCall(c, 'syncUpstream', {}), []);
  const [draft, setDraft] = useState<typeof blank | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const upstream = current.data?.upstream ?? null;
  const form = draft ?? { ...blank, url: upstream?.url ?? '', token: upstream?.token ?? '' };
  const set = (k: keyof typeof blank) => (v: string) => setDraft({ ...form, [k]: v });
  useUnsavedGuard(draft !== null && (draft.url !== (upstream?.url ?? '') || draft.token !== (upstream?.token ?? '') || draft.key !== ''));
  const done = () => {
    setDraft(null);
    setErrors({});
    setMessage(null);
    current.reload();
    onChange();
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    setBusy(true);
    try {
      await boCall(creds, 'setSyncUpstream', { body: form });
      done();
    } catch (err) {
      const { fields, message: top } = fieldErrors(err);
      setErrors(fields);
      setMessage(Object.keys(fields).length ? null : top);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!creds || !upstream || !window.confirm(`Stop replicating with ${upstream.url} and forget its key?`)) return;
    try {
      await boCall(creds, 'removeSyncUpstream', {});
      done();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  return (
    <form className="card bo-stack" aria-label="Upstream" noValidate onSubmit={(e) => void save(e)}>
      <h2>Upstream</h2>
      <p className="muted small">
        {upstream
          ? `${sentence(`Replicating customers, invoices and payments with ${upstream.url} since ${time(upstream.set_at)}${upstream.paused ? ' (paused)' : ''}`)} Its key is kept sealed and not shown; type it again to change the address or token.`
          : 'A hub can replicate customers, invoices and payments with another service speaking this API.'}
      </p>
      <Notice error={current.error ?? message} />
      {!owner && <p className="muted small" data-testid="upstream-owner-only">Only the owner sets the upstream: it receives this install&apos;s customers, invoices and payments until it is removed.</p>}
      <Field label="Address" name="url" type="url" value={form.url} onChange={set('url')} errors={errors} required hint="e.g. https://api.example.com" disabled={!owner} />
      <Field label="API token" name="token" value={form.token} onChange={set('token')} errors={errors} required disabled={!owner} />
      {owner && <Field label="API key" name="key" type="password" value={form.key} onChange={set('key')} errors={errors} required hint={upstream ? 'Not shown: type the key again to save' : undefined} />}
      <div className="bo-actions">
        {upstream && (
          <button type="button" className="danger" onClick={() => void remove()}>
            Remove
          </button>
        )}
        {owner && (
          <button type="submit" className="primary" disabled={busy}>
            {upstream ? 'Save upstream' : 'Set upstream'}
          </button>
        )}
      </div>
    </form>
  );
}
