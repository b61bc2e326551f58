import { useEffect, useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { sentence, time } from '../format';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { Notice, ReadOnlyNote, Title, fieldErrors, useLoad, useUnsavedGuard } from './common';
import { DeliveryLog, MailSection } from './DevelopersLog';

type Endpoint = BoAnswer<'webhooks'>['endpoints'][number];
type Kind = Endpoint['events'][number];

/** Every kind an endpoint can take, with its words: a Record, so a kind the schema adds is a compile error here. */
const KINDS: Record<Kind, string> = {
  'customer.created': 'Customer created',
  'customer.updated': 'Customer updated',
  'invoice.created': 'Invoice created',
  'invoice.updated': 'Invoice updated',
  'invoice.deleted': 'Invoice deleted',
  'payment.created': 'Payment created',
  'payment.updated': 'Payment updated',
  'order.created': 'Order created',
  'order.updated': 'Order updated',
  'transaction.created': 'Transaction created',
  'transaction.declined': 'Transaction declined',
  'transaction.updated': 'Transaction updated',
};
const ALL = Object.keys(KINDS) as Kind[];

const TABS = [
  ['webhook_responses', 'Webhooks'],
  ['mail', 'E-mail'],
] as const;

/**
 * Webhooks and e-mail (`/app/developers/webhook_responses`, the page the spec names, and
 * `/app/developers/mail`): endpoints, the signing key, the delivery log with Resend, the SMTP
 * relay and the sandbox outbox. Changing them needs the `credentials` grant (the owner's); reading
 * the endpoints and their log, the `settings` grant (a clerk sees the e-mail tab only).
 */
export function DevelopersSection({ rest }: { rest: string[] }) {
  const go = useRoute((s) => s.go);
  const session = useUser((s) => s.session);
  const tab = rest[0] === 'mail' ? 'mail' : 'webhook_responses';
  // `/app/developers` alone is the log's page under its own name, so a reload or a shared link says where it is.
  useEffect(() => {
    if (rest[0] !== tab) go(link('developers', tab), { replace: true });
  }, [rest, tab, go]);
  return (
    <section className="bo-section">
      <Title>Webhooks and e-mail</Title>
      <nav className="bo-tabs" aria-label="Webhooks and e-mail">
        {TABS.map(([key, label]) => (
          <a key={key} href={link('developers', key)} aria-current={key === tab ? 'page' : undefined} onClick={(e) => (e.preventDefault(), go(link('developers', key)))}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'mail' ? (
        <MailSection />
      ) : can(session, 'settings') ? (
        <>
          <Endpoints />
          <DeliveryLog />
        </>
      ) : (
        <p className="notice info" role="status">Webhook endpoints and their delivery log are shown to managers and the owner.</p>
      )}
    </section>
  );
}

/** A secret shown this once, with a copy button. */
export function ShownOnce({ label, secret, onClose }: { label: string; secret: string; onClose(): void }) {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard?.writeText(secret).then(() => setCopied(true), () => setCopied(false));
  return (
    <div className="notice info" role="status">
      {label} (shown this once): <code className="bo-secret">{secret}</code>
      <div className="bo-actions">
        <button type="button" onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
        <button type="button" onClick={onClose}>Done</button>
      </div>
    </div>
  );
}

interface Draft {
  url: string;
  events: Kind[];
  enabled: boolean;
  description: string;
}
const blank: Draft = { url: '', events: ALL, enabled: true, description: '' };

function Endpoints() {
  const session = useUser((s) => s.session);
  const creds = useUser((s) => s.creds);
  const editable = can(session, 'credentials');
  const { data, error, reload } = useLoad((c) => boCall(c, 'webhooks', {}), []);
  const [editing, setEditing] = useState<{ id: string | null; draft: Draft } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const roll = async () => {
    if (!creds || !window.confirm('Make a new signing key? The current one stops signing at once.')) return;
    try {
      setSecret((await boCall(creds, 'rollSigningKey', { body: {} })).signing_key);
      reload();
    } catch (err) {
      setMessage((err as Error).message);
    }
  };
  const remove = async (e: Endpoint) => {
    if (!creds || !window.confirm(`Remove the endpoint ${e.url}? It receives nothing more.`)) return;
    await boCall(creds, 'deleteWebhook', { params: { id: e.id } }).catch((err: unknown) => setMessage((err as Error).message));
    reload();
  };
  const key = data?.signing_key;
  return (
    <div className="card bo-stack" aria-label="Endpoints">
      <div className="bo-card-head">
        <h2>Endpoints</h2>
        {editable && !editing && (
          <div className="bo-actions">
            <button type="button" onClick={() => void roll()}>Roll signing key</button>
            <button type="button" className="primary" onClick={() => setEditing({ id: null, draft: blank })}>Add endpoint</button>
          </div>
        )}
      </div>
      {!editable && <ReadOnlyNote grant="credentials" />}
      <Notice error={error ?? message} />
      {secret && <ShownOnce label="Signing key" secret={secret} onClose={() => setSecret(null)} />}
      <p className="muted small">
        {key ? sentence(`Deliveries are signed (X-Service-Signature) with the key ending …${key.hint}, made ${time(key.created_at)}`) : 'No signing key yet: the first endpoint makes one.'}
      </p>
      {editing && (
        <EndpointForm
          id={editing.id}
          initial={editing.draft}
          onDone={(made) => {
            setEditing(null);
            if (made) setSecret(made);
            reload();
          }}
        />
      )}
      <table className="bo-simple" aria-label="Webhook endpoints">
        <thead><tr><th>URL</th><th>Events</th><th>State</th><th>Updated</th><th /></tr></thead>
        <tbody>
          {(data?.endpoints ?? []).map((e) => (
            <tr key={e.id}>
              <td><code>{e.url}</code>{e.description && <div className="muted small">{e.description}</div>}</td>
              <td className="small">{e.events.length === ALL.length ? 'Every event' : e.events.map((k) => KINDS[k]).join(', ')}</td>
              <td>
                <span className={`pill ${e.enabled ? 'paid' : 'disabled'}`}>{e.enabled ? 'Enabled' : e.disabled_reason === 'delivery_failed' ? 'Off: deliveries failed' : 'Disabled'}</span>
              </td>
              <td>{time(e.updated_at)}</td>
              <td>
                {editable && (
                  <div className="bo-actions">
                    <button type="button" aria-label={`Edit ${e.url}`} onClick={() => setEditing({ id: e.id, draft: { url: e.url, events: e.events, enabled: e.enabled, description: e.description } })}>Edit</button>
                    <button type="button" className="danger" aria-label={`Remove ${e.url}`} onClick={() => void remove(e)}>Remove</button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.endpoints.length === 0 && <p className="muted bo-empty">No endpoint yet.</p>}
    </div>
  );
}

/** Add or edit an endpoint; the engine's errors (a URL it refuses) beside the field. */
function EndpointForm({ id, initial, onDone }: { id: string | null; initial: Draft; onDone(secret?: string): void }) {
  const creds = useUser((s) => s.creds);
  const [d, setD] = useState<Draft>(initial);
  useUnsavedGuard(JSON.stringify(d) !== JSON.stringify(initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const toggle = (k: Kind) => setD((s) => ({ ...s, events: s.events.includes(k) ? s.events.filter((x) => x !== k) : ALL.filter((x) => x === k || s.events.includes(x)) }));
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    const body = { url: d.url.trim(), events: d.events, enabled: d.enabled, description: d.description.trim() };
    try {
      if (id) {
        await boCall(creds, 'updateWebhook', { params: { id }, body });
        onDone();
      } else onDone((await boCall(creds, 'createWebhook', { body })).signing_key);
    } catch (err) {
      const f = fieldErrors(err);
      // The engine names the URL in its code (invalid_webhook_url, webhook_url_insecure…), not always as a field.
      setErrors(Object.keys(f.fields).length ? f.fields : /url/i.test(f.message) ? { url: f.message } : {});
      setMessage(f.message);
    }
  };
  const urlError = errors.url;
  return (
    <form className="bo-form bo-subform" onSubmit={(e) => void save(e)} noValidate aria-label={id ? 'Edit endpoint' : 'Add endpoint'}>
      <h2>{id ? 'Edit endpoint' : 'Add endpoint'}</h2>
      <Notice error={message} />
      <div className="bo-field">
        <label htmlFor="webhook-url">URL</label>
        <input id="webhook-url" type="url" value={d.url} placeholder="https://example.com/hooks/laneway" aria-invalid={urlError ? true : undefined} aria-describedby={urlError ? 'webhook-url-error' : undefined} onChange={(e) => setD({ ...d, url: e.target.value })} />
        {urlError && <span id="webhook-url-error" className="error small">{urlError}</span>}
      </div>
      <div className="bo-field">
        <label htmlFor="webhook-description">Description</label>
        <input id="webhook-description" value={d.description} onChange={(e) => setD({ ...d, description: e.target.value })} />
      </div>
      <fieldset className="bo-kinds">
        <legend>Event kinds {errors.events && <span className="error small">{errors.events}</span>}</legend>
        {ALL.map((k) => (
          <label key={k} className="bo-check">
            <input type="checkbox" checked={d.events.includes(k)} onChange={() => toggle(k)} /> {KINDS[k]}
          </label>
        ))}
      </fieldset>
      <label className="bo-check">
        <input type="checkbox" checked={d.enabled} onChange={(e) => setD({ ...d, enabled: e.target.checked })} /> Enabled
      </label>
      <div className="bo-actions">
        <button type="button" onClick={() => onDone()}>Cancel</button>
        <button type="submit" className="primary" disabled={d.events.length === 0}>{id ? 'Save endpoint' : 'Add endpoint'}</button>
      </div>
    </form>
  );
}
