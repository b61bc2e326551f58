import { useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { useUser } from '../state/user';
import { useRoute } from '../state/route';
import { Confirm, CopyButton, Field, Notice, Title, day, fieldErrors, useLoad, useUnsavedGuard } from './common';
import { welcomeLink } from '../../../shared/welcome-link';

type User = BoAnswer<'users'>['users'][number];
type Role = User['role'];
const ROLES: Array<[Role, string]> = [
  ['owner', 'Owner: everything'],
  ['manager', 'Manager: money moves, refunds, settings'],
  ['clerk', 'Clerk: read, record payments, reminders'],
  ['cashier', 'Cashier: the register only'],
];

/** What a role change grants, said before it is sent: a slip of the select could make someone owner. */
const GRANTS: Record<Role, string> = {
  owner: 'An owner can do everything, as you can: add and disable users and change their roles, create API keys, move money, refund and change settings.',
  manager: 'A manager moves money, refunds and changes settings, but does not manage users or API keys.',
  clerk: 'A clerk reads, records payments and sends reminders; no refunds, settings or users.',
  cashier: 'A cashier uses the register only; no back office.',
};

/** Users and roles (the owner's): add a user (their sign-in link shown once), change a role, disable. */
export function UsersSection() {
  const { go } = useRoute();
  const creds = useUser((s) => s.creds);
  const me = useUser((s) => s.session?.user.id);
  const { data, error, reload } = useLoad((c) => boCall(c, 'users', {}), []);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('clerk');
  useUnsavedGuard(email.trim() !== '' || name.trim() !== '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [shown, setShown] = useState<{ email: string; url: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds) return;
    try {
      const made = await boCall(creds, 'createUser', { body: { email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) } });
      setShown({ email: made.user.email, url: welcomeLink(window.location.origin, made.link, made.user.email) });
      setEmail('');
      setName('');
      setErrors({});
      setMessage(null);
      reload();
    } catch (err) {
      const f = fieldErrors(err);
      setErrors(f.fields);
      setMessage(f.message);
    }
  };
  const change = async (id: string, patch: { role?: Role; enabled?: boolean }, done?: string) => {
    if (!creds) return;
    setSaved(null);
    try {
      await boCall(creds, 'updateUser', { params: { id }, body: patch });
      setMessage(null);
      if (done) setSaved(done);
    } catch (err) {
      setMessage((err as Error).message);
    }
    reload();
  };
  const roleChange = useRoleChange((user, next) => void change(user.id, { role: next }, `Saved: ${who(user)} is now ${next}.`));
  // Disabling ends the person's sessions at once: asked first, as a role change is.
  const [disabling, setDisabling] = useState<User | null>(null);
  const newLink = async (id: string, who: string) => {
    if (!creds) return;
    const made = await boCall(creds, 'userLink', { params: { id } });
    setShown({ email: who, url: welcomeLink(window.location.origin, made.link, who) });
  };
  return (
    <section className="bo-section">
      <Title>Users</Title>
      <Notice error={error ?? message} />
      {saved && <p role="status" className="notice ok">{saved}</p>}
      {roleChange.dialog}
      {disabling && (
        <Confirm
          title={`Disable ${who(disabling)}?`}
          body={<p>They are signed out everywhere at once and cannot sign in until enabled again. Nothing they recorded changes.</p>}
          confirm="Disable"
          danger
          onConfirm={() => (setDisabling(null), void change(disabling.id, { enabled: false }, `Saved: ${who(disabling)} is disabled.`))}
          onCancel={() => setDisabling(null)}
        />
      )}
      {shown && (
        <div className="notice info" role="status">
          Sign-in link for {shown.email} (shown once, works for 24 hours): <code className="bo-secret">{shown.url}</code> <CopyButton text={shown.url} />
        </div>
      )}
      <div className="card">
        <table className="bo-simple" aria-label="Users">
          <thead><tr><th>User</th><th>Role</th><th>Last sign-in</th><th>State</th><th /></tr></thead>
          <tbody>
            {(data?.users ?? []).map((u) => (
              <tr key={u.id}>
                <td>{u.name} <span className="muted">{u.email}</span></td>
                <td>
                  <select aria-label={`Role of ${u.email}`} value={u.role} disabled={u.id === me} onChange={(e) => roleChange.ask(u, e.target.value as Role)}>
                    {ROLES.map(([r]) => <option key={r} value={r}>{r}</option>)}
                  </select>
                </td>
                <td>{day(u.last_sign_in_at)}</td>
                <td>{u.enabled ? (u.has_password ? 'Active' : 'Invited') : 'Disabled'}{u.locked_until ? ' · locked' : ''}</td>
                <td>
                  {/* The flex box inside the cell, not the cell itself: a flex td is no longer a table cell and leaves the row. */}
                  <div className="bo-actions">
                    <button type="button" onClick={() => void newLink(u.id, u.email)}>New link</button>
                    {u.id !== me && <button type="button" className="danger" onClick={() => (u.enabled ? setDisabling(u) : void change(u.id, { enabled: true }, `Saved: ${who(u)} is enabled.`))}>{u.enabled ? 'Disable' : 'Enable'}</button>}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form className="card bo-form" onSubmit={(e) => void add(e)} noValidate aria-label="Add a user">
        <h2>Add a user</h2>
        <Field label="E-mail" name="email" type="email" value={email} onChange={setEmail} errors={errors} required />
        <Field label="Name" name="name" value={name} onChange={setName} errors={errors} />
        <label className="bo-field">
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map(([r, label]) => <option key={r} value={r}>{label}</option>)}
          </select>
        </label>
        {role === 'cashier' && (
          <p className="muted" role="note">
            A cashier signs in at the register with a cashier code, not this sign-in: give them one under{' '}
            <a href="/app/pos" onClick={(e) => { e.preventDefault(); go('/app/pos'); }}>Point of sale → Cashiers</a>.
          </p>
        )}
        <div className="bo-actions">
          <button type="submit" className="primary">Add user</button>
        </div>
      </form>
    </section>
  );
}

/** A user as the confirmation names them: their name, else their e-mail. */
const who = (u: User) => (u.name ? `${u.name} (${u.email})` : u.email);

/**
 * A role chosen in a row's select, asked about before it is sent: the dialog names the person, the
 * role and what it grants. The select keeps the saved role meanwhile, so a cancel leaves it as it was.
 */
function useRoleChange(send: (user: User, role: Role) => void) {
  const [pending, setPending] = useState<{ user: User; role: Role } | null>(null);
  const dialog = pending && (
    <Confirm
      title={`Make ${who(pending.user)} ${pending.role}?`}
      body={<p>{GRANTS[pending.role]}</p>}
      confirm={`Make ${pending.role}`}
      danger={pending.role === 'owner'}
      onConfirm={() => (setPending(null), send(pending.user, pending.role))}
      onCancel={() => setPending(null)}
    />
  );
  return { ask: (user: User, role: Role) => setPending({ user, role }), dialog };
}
