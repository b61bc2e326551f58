import { useState, type FormEvent, type ReactNode } from 'react';
import { boCall, boCallQueued, type BoAnswer, type BoCall } from '../api/backoffice';
import { link, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { Confirm, Field, Money, Notice, day, fieldErrors, useLoad, useUnsavedGuard } from './common';
import { DeliveryNotice, useDelivery } from './MailOutcome';
import { AutopaySection, type Method } from './AutopaySection';
import './details.css';

/**
 * The customer page's panels: hierarchy, notes, invitations, wallets (and autopay, AutopaySection.tsx). Each calls the
 * API's own operations and shows what the engine answers; the engine decides every rule (a loop in
 * the hierarchy, who may be invited, which fund may pay), the panels only hide what the role cannot do.
 */
type Customer = BoAnswer<'customer'>;
type Contact = Customer['contacts'][number];

const sentence = (m: string) => m.charAt(0).toUpperCase() + m.slice(1);

/** A save of the customer through the import operation: the engine needs its name on every update. */
function useSaveCustomer(data: Customer) {
  const creds = useUser((s) => s.creds);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (fields: Omit<BoCall<'saveCustomer'>['body'], 'identifier' | 'name'>, ok: string) => {
    if (!creds) return false;
    setBusy(true);
    setDone(null);
    try {
      await boCall(creds, 'saveCustomer', { query: {}, body: { identifier: data.identifier, name: data.name, ...fields } });
      setErrors({});
      setMessage(null);
      setDone(ok);
      return true;
    } catch (err) {
      const f = fieldErrors(err);
      // Beside its field the message need not name the field again ("parent_identifier names no…").
      setErrors(Object.fromEntries(Object.entries(f.fields).map(([k, m]) => [k, sentence(m.startsWith(`${k} `) ? m.slice(k.length + 1) : m)])));
      setMessage(Object.keys(f.fields).length ? null : f.message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { save, errors, message, done, busy };
}

const CustomerLink = ({ identifier, children }: { identifier: string; children?: ReactNode }) => {
  const go = useRoute((s) => s.go);
  return (
    <a href={link('customers', identifier)} onClick={(e) => (e.preventDefault(), go(link('customers', identifier)))}>
      {children ?? identifier}
    </a>
  );
};

export function HierarchyPanel({ data }: { data: Customer }) {
  const session = useUser((s) => s.session);
  const { data: family } = useLoad((c) => boCall(c, 'customerChildren', { params: { identifier: data.identifier } }), [data.identifier]);
  const [parent, setParent] = useState('');
  const { save, errors, message, done, busy } = useSaveCustomer(data);
  useUnsavedGuard(parent.trim() !== '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save({ parent_identifier: parent.trim() }, parent.trim() ? `Parent set to ${parent.trim()}.` : 'Parent removed.').then((ok) => ok && setParent(''));
  };
  const children = family?.children ?? [];
  return (
    <div className="card bo-stack" aria-label="Hierarchy">
      <h2>Hierarchy</h2>
      <p>
        Parent account:{' '}
        {data.parent_identifier ? (
          <>
            <CustomerLink identifier={data.parent_identifier} /> <span className="muted">{data.parent_name}</span>
          </>
        ) : (
          <span className="muted">none</span>
        )}
      </p>
      {children.length === 0 ? (
        <p className="muted">No child accounts.</p>
      ) : (
        <table className="bo-simple" aria-label="Child accounts">
          <thead><tr><th>Child account</th><th>Name</th><th>Balance</th></tr></thead>
          <tbody>
            {children.map((c) => (
              <tr key={c.identifier}>
                <td><CustomerLink identifier={c.identifier} /></td>
                <td>{c.name}</td>
                <td><Money cents={c.balance_cents} currency={c.currency} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {can(session, 'manage') && (
        <form className="bo-inline" onSubmit={submit} noValidate>
          <Field label="Parent customer" name="parent_identifier" value={parent} onChange={setParent} errors={errors} hint="Its identifier; leave empty to remove the parent" />
          <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Set parent'}</button>
        </form>
      )}
      <Notice error={message} />
      {done && <p role="status" className="ok small">{done}</p>}
    </div>
  );
}

export function NotesPanel({ data }: { data: Customer }) {
  const session = useUser((s) => s.session);
  const [text, setText] = useState<string | null>(null);
  const { save, errors, message, done, busy } = useSaveCustomer(data);
  const value = text ?? data.notes;
  const error = errors.notes;
  // Typed and not saved (a save sets the text back to the customer's).
  useUnsavedGuard(text !== null && text !== data.notes);
  if (!can(session, 'manage')) {
    return (
      <div className="card" aria-label="Notes">
        <h2>Notes</h2>
        <p className="bo-notes">{data.notes || <span className="muted">No notes.</span>}</p>
      </div>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save({ notes: value }, 'Notes saved.').then((ok) => ok && setText(null));
  };
  return (
    <form className="card bo-stack" aria-label="Notes" onSubmit={submit} noValidate>
      <h2>Notes</h2>
      <div className="bo-field">
        <label htmlFor="field-notes">Notes about this customer</label>
        <textarea id="field-notes" name="notes" rows={4} value={value} aria-invalid={error ? true : undefined} aria-describedby={error ? 'field-notes-error' : undefined} onChange={(e) => setText(e.target.value)} />
        {error && <span id="field-notes-error" className="error small">{error}</span>}
      </div>
      <Notice error={message} />
      <div className="bo-actions">
        {done && text === null && <span role="status" className="ok small">{done}</span>}
        <button type="submit" className="primary" disabled={busy || text === null}>{busy ? 'Saving…' : 'Save notes'}</button>
      </div>
    </form>
  );
}

const contactStatus = (c: Contact): { label: string; tone: string } =>
  c.disabled ? { label: 'disabled', tone: 'disabled' } : c.activated_at || c.login_at ? { label: 'signed up', tone: 'paid' } : c.invited_at ? { label: `invited ${day(c.invited_at)}`, tone: 'open' } : { label: 'not invited', tone: '' };

/** What became of an invitation's e-mail, in words; none queued when the customer's notifications are off (or the contact signed up meanwhile). */
const invitationWords = (email: string, suppressed: boolean) => ({
  queued: `Invitation to ${email} queued`,
  sent: `Invitation sent to ${email}`,
  sandbox: `Invitation to ${email}`,
  failed: `Invitation to ${email}`,
  none: suppressed ? `Invitation to ${email} recorded, not e-mailed: the customer's notifications are turned off.` : `Invitation to ${email} recorded; no e-mail was queued for it.`,
});

export function InvitationsPanel({ data }: { data: Customer }) {
  const creds = useUser((s) => s.creds);
  const session = useUser((s) => s.session);
  const [email, setEmail] = useState('');
  // An invitation names the message it queued: what the notice says of it follows the outbox.
  const [result, setResult] = useState<{ ok?: string; error?: string; invited?: { email: string; messages: string[] } }>({});
  const [busy, setBusy] = useState<string | null>(null);
  const invited = useDelivery(result.invited?.messages ?? null);
  useUnsavedGuard(email.trim() !== '');
  const act = async (name: 'invite' | 'cancelInvite', to: string, ok: string) => {
    if (!creds) return;
    setBusy(`${name}:${to}`);
    try {
      const body = { identifier: data.identifier, email: to };
      if (name === 'invite') {
        const { messages } = await boCallQueued(creds, 'invite', { body });
        setResult({ invited: { email: to, messages } });
        setEmail('');
      } else {
        await boCall(creds, name, { body });
        setResult({ ok });
      }
    } catch (err) {
      setResult({ error: (err as Error).message });
    } finally {
      setBusy(null);
    }
  };
  const allowed = can(session, 'collect') && data.account_status === 'open';
  return (
    <div className="card bo-stack wide" aria-label="Invitations">
      <h2>Contacts and invitations</h2>
      {data.contacts.length === 0 ? <p className="muted">No contacts yet: an invitation adds one.</p> : (
        <table className="bo-simple" aria-label="Contacts">
          <thead><tr><th>E-mail</th><th>Name</th><th>Invitation</th>{allowed && <th />}</tr></thead>
          <tbody>
            {data.contacts.map((c) => {
              const status = contactStatus(c);
              const pending = !!c.invited_at && !c.activated_at && !c.login_at;
              return (
                <tr key={c.email}>
                  <td>{c.email}</td>
                  <td>{[c.first_name, c.last_name].filter(Boolean).join(' ')}</td>
                  <td><span className={`pill ${status.tone}`}>{status.label}</span></td>
                  {allowed && (
                    <td>
                      <div className="bo-actions">
                        {!c.activated_at && !c.login_at && <button type="button" disabled={busy !== null} onClick={() => void act('invite', c.email, '')}>{c.invited_at ? 'Send again' : 'Invite'}</button>}
                        {pending && <button type="button" className="danger" disabled={busy !== null} onClick={() => void act('cancelInvite', c.email, `Invitation to ${c.email} cancelled.`)}>Cancel invitation</button>}
                      </div>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {allowed && (
        <form className="bo-inline" onSubmit={(e) => (e.preventDefault(), void act('invite', email.trim(), ''))}>
          <label className="bo-field">
            Invite someone by e-mail
            <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@example.com" />
          </label>
          <button type="submit" className="primary" disabled={busy !== null || !email.trim()}>Send invitation</button>
        </form>
      )}
      <Notice error={result.error} />
      {result.ok && <p role="status" className="ok small">{result.ok}</p>}
      {result.invited && <DeliveryNotice label="Invitation result" outcome={invited} words={invitationWords(result.invited.email, data.notification_suppressed === 'Y')} />}
    </div>
  );
}

function methodsOf(wallets: BoAnswer<'wallets'>['wallets']): Method[] {
  return wallets.flatMap((w) => [
    ...w.credit_cards.map((c) => ({ token: c.token, wallet: w.token, label: c.card_number, detail: `expires ${String(c.expiry_month).padStart(2, '0')}/${String(c.expiry_year).slice(-2)}${c.cardholder ? ` · ${c.cardholder}` : ''}` })),
    ...w.bank_accounts.map((b) => ({ token: b.token, wallet: w.token, label: b.display_name, detail: `${b.account_type}${b.account_holder ? ` · ${b.account_holder}` : ''}` })),
  ]);
}

export function WalletsPanel({ identifier, autopayOn }: { identifier: string; autopayOn: boolean }) {
  const creds = useUser((s) => s.creds);
  const session = useUser((s) => s.session);
  const { data: found, error } = useLoad((c) => boCall(c, 'wallets', { query: { type: 'customer', locator: identifier } }), [identifier]);
  const { data: autopay } = useLoad(async (c) => (autopayOn ? boCall(c, 'autopay', { query: { customer_identifier: identifier }, body: {} }) : undefined), [identifier, autopayOn]);
  const [removing, setRemoving] = useState<Method | null>(null);
  const [result, setResult] = useState<{ ok?: string; error?: string }>({});
  const [busy, setBusy] = useState(false);
  const methods = methodsOf(found?.wallets ?? []);
  const money = can(session, 'money');
  const run = async (work: () => Promise<unknown>, ok: string) => {
    if (!creds) return;
    setBusy(true);
    try {
      await work();
      setResult({ ok });
    } catch (err) {
      setResult({ error: (err as Error).message });
    } finally {
      setBusy(false);
      setRemoving(null);
    }
  };
  const agreement = autopay?.autopays[0];
  return (
    <div className="card bo-stack" aria-label="Wallet">
      <h2>Wallet</h2>
      <Notice error={error} />
      {methods.length === 0 ? <p className="muted">No saved payment method.</p> : (
        <ul className="bo-methods" aria-label="Payment methods">
          {methods.map((m) => (
            <li key={m.token}>
              <span><strong>{m.label}</strong> <span className="muted">{m.detail}</span>{agreement?.fund_token === m.token && <span className="pill paid">autopay</span>}</span>
              {money && <button type="button" className="danger" disabled={busy} onClick={() => setRemoving(m)}>Remove</button>}
            </li>
          ))}
        </ul>
      )}
      {autopayOn && <AutopaySection identifier={identifier} methods={methods} autopay={autopay} creds={creds} money={money} busy={busy} run={run} fail={(message) => setResult({ error: message })} />}
      <Notice error={result.error} />
      {result.ok && <p role="status" className="ok small">{result.ok}</p>}
      {removing && creds && (
        <Confirm
          title="Remove this payment method?"
          body={
            <>
              <p>{removing.label} will no longer be able to pay. Past payments keep naming it.</p>
              {agreement?.fund_token === removing.token && (
                <p className="notice warn">
                  Autopay charges {removing.label}. Once it is removed autopay stays on but cannot charge: invoices that fall due stay unpaid until autopay is turned off and on again with another payment method.
                </p>
              )}
            </>
          }
          confirm="Remove"
          danger
          cancelFirst
          busy={busy}
          onCancel={() => setRemoving(null)}
          onConfirm={() => void run(() => boCall(creds, 'removeWalletMethod', { params: { wallet_token: removing.wallet, fund_token: removing.token } }), `${removing.label} removed.`)}
        />
      )}
    </div>
  );
}
