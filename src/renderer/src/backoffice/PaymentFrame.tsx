import { useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { can, useUser } from '../state/user';
import { Confirm, CopyButton, Field, Notice, ReadOnlyNote, Title, fieldErrors, useLoad, useUnsavedGuard } from './common';
import './operations.css';

type Settings = BoAnswer<'ecommerceSettings'>;

/**
 * Payment frame (`/app/payment_frame`): the sites whose pages may show the hosted payment frame
 * (GET/PUT /api/ecommerce/settings, the frame's frame-ancestors) and what a shop puts on its page.
 * Changing the list needs the `settings` grant (owner, manager); a clerk reads it.
 */
export function PaymentFrameSection() {
  const session = useUser((s) => s.session);
  const editable = can(session, 'settings');
  const { data, error, reload } = useLoad((c) => boCall(c, 'ecommerceSettings', {}), []);
  return (
    <section className="bo-section">
      <Title>Payment frame</Title>
      <p className="muted">
        A web shop takes card and bank payments by showing Laneway&apos;s payment frame on its checkout page. The frame appears only on pages of the sites listed here; on any other site the browser shows nothing.
      </p>
      <Notice error={error} />
      {data && <Sites data={data} editable={editable} onChange={reload} />}
      {data && <Embed scriptUrl={data.clientScriptUrl} />}
    </section>
  );
}

/** Where the engine's error for the typed site goes: its detail names the list's entry, not the field. */
function siteError(err: unknown): { site?: string; message: string } {
  const { fields, message } = fieldErrors(err);
  const [field, said] = Object.entries(fields).find(([f]) => f.startsWith('allowedOrigins')) ?? [];
  // "allowedOrigins.3 must be a site…" names the list's fourth entry, which is the one typed here.
  return field && said ? { site: said.replace(/^allowedOrigins\.\d+ /, 'The site ').replace(/^allowedOrigins /, 'The list of sites '), message } : { message };
}

function Sites({ data, editable, onChange }: { data: Settings; editable: boolean; onChange(): void }) {
  const creds = useUser((s) => s.creds);
  const [site, setSite] = useState('');
  useUnsavedGuard(site.trim() !== '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // PUT replaces the whole list: read it again just before, so a site another user added meanwhile is kept.
  const write = async (change: (current: string[]) => string[]) => {
    if (!creds) throw new Error('Not signed in');
    const current = (await boCall(creds, 'ecommerceSettings', {})).allowedOrigins;
    const saved = await boCall(creds, 'setEcommerceSettings', { body: { allowedOrigins: change(current) } });
    return { before: current, saved: saved.allowedOrigins };
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const typed = site.trim();
    if (!typed) {
      setErrors({ site: 'Type the address of your shop, for example https://shop.example' });
      return;
    }
    setBusy(true);
    try {
      const { before, saved } = await write((current) => [...current, typed]);
      setSite('');
      setErrors({});
      // The engine stores a site as its origin (lower case, no default port) and once: say so rather
      // than show a list that did not grow.
      const added = saved.find((o) => !before.includes(o));
      setMessage({ ok: true, text: added ? `Added ${added}.` : `${typed} was already allowed.${before.includes(typed) ? '' : ' Written this way, it is a site already listed.'}` });
      onChange();
    } catch (err) {
      const f = siteError(err);
      // The typed site stays in the field, the engine's words beside it.
      setErrors(f.site ? { site: f.site } : {});
      setMessage({ ok: false, text: f.site ? 'The site was not added.' : f.message });
    } finally {
      setBusy(false);
    }
  };
  const remove = async (origin: string) => {
    setRemoving(null);
    setBusy(true);
    try {
      await write((current) => current.filter((o) => o !== origin));
      setMessage({ ok: true, text: `Removed ${origin}: its pages no longer show the payment frame.` });
      onChange();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card bo-stack" aria-label="Allowed sites">
      <h2>Allowed sites</h2>
      {message && <p role="status" className={`notice ${message.ok ? 'ok' : 'error'}`}>{message.text}</p>}
      {!editable && <ReadOnlyNote />}
      <SiteTable data={data} editable={editable} busy={busy} onRemove={setRemoving} />
      {data.allowedOrigins.length === 0 && <p className="muted bo-empty">No site yet: no shop on the web can show the payment frame.</p>}
      {editable && (
        <form className="bo-inline" aria-label="Add a site" noValidate onSubmit={(e) => void add(e)}>
          <Field label="Site" name="site" value={site} onChange={setSite} errors={errors} hint="Your shop's address without a path: https://shop.example, or with a port, http://shop.example:8080" />
          <button type="submit" className="primary" disabled={busy}>Add site</button>
        </form>
      )}
      {removing && (
        <Confirm title={`Remove ${removing}?`} danger confirm="Remove site" onCancel={() => setRemoving(null)} onConfirm={() => void remove(removing)}
          body={<p>Checkout pages on {removing} stop showing the payment frame at once, so buyers there cannot pay until the site is added again.</p>} />
      )}
    </div>
  );
}

/** The sites set, each with Remove for who may change them, then what the sandbox allows anyway. */
function SiteTable({ data, editable, busy, onRemove }: { data: Settings; editable: boolean; busy: boolean; onRemove(origin: string): void }) {
  return (
    <table className="bo-simple" aria-label="Sites allowed to show the payment frame">
      <thead><tr><th>Site</th><th /></tr></thead>
      <tbody>
        {data.allowedOrigins.map((o) => (
          <tr key={o}>
            <td><code>{o}</code></td>
            <td>{editable && <button type="button" className="danger" aria-label={`Remove ${o}`} disabled={busy} onClick={() => onRemove(o)}>Remove</button>}</td>
          </tr>
        ))}
        {data.sandboxOrigins.map((o) => (
          <tr key={`sandbox:${o}`} className="inactive">
            <td><code>{o}</code></td>
            <td className="small">Always allowed in the sandbox, for building a shop on your own computer</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** What a shop's page and server need: the script tag, and the API its server creates sessions with. */
function Embed({ scriptUrl }: { scriptUrl: string }) {
  // Without a public URL the server answers the path alone: the page's own address completes it.
  const script = new URL(scriptUrl, window.location.origin).href;
  const api = new URL('/api/v2', script).href;
  const tag = `<script src="${script}"></script>`;
  const sample = `<form id="checkout">
  <div id="payment"></div>
  <button id="pay" disabled>Pay</button>
  <span id="payError"></span>
</form>
${tag}
<script>
  // sessionId: made by your server with POST ${api}/sessions
  const client = versapay.initClient(sessionId);
  client.onApproval(
    (result) => {
      // send result.token to your server, which makes the sale
    },
    (error) => {
      document.querySelector('#payError').textContent = error.error;
    },
  );
  client.initFrame(document.querySelector('#payment'), '420px', '480px').then(() => {
    document.querySelector('#pay').disabled = false;
    // Pay submits the frame's form: its answer comes to onApproval above.
    document.querySelector('#checkout').addEventListener('submit', (event) => {
      event.preventDefault();
      client.submitEvents();
    });
  });
</script>`;
  return (
    <div className="card bo-stack" aria-label="Show the frame on your shop">
      <h2>Show the frame on your shop</h2>
      <p>Put this script tag on your checkout page:</p>
      <pre className="bo-snippet" data-testid="script-tag"><code>{tag}</code></pre>
      <div><CopyButton text={tag} what="script tag" /></div>
      <p>
        Your shop&apos;s server creates a payment session with your API token and key at <code>{api}/sessions</code>; the page then shows the frame in an element of its own:
      </p>
      <pre className="bo-snippet" data-testid="sample-page"><code>{sample}</code></pre>
      <p className="muted small">A shop already built for this client.js elsewhere needs only these two addresses changed.</p>
    </div>
  );
}
