import { useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { useUser } from '../state/user';
import { CopyButton, Field, Notice, Title, day, fieldErrors, useLoad } from './common';
import { welcomeLink } from '../../../shared/welcome-link';

type Role = BoAnswer<'users'>['users'][number]['role'];
const ROLES: Array<[Role, string]> = [
  ['owner', 'Owner: everything'],
  ['manager', 'Manager: money moves, refunds, settings'],
  ['clerk', 'Clerk: read, record payments, reminders'],
  ['cashier', 'Cashier: the register only'],
];

/** Users and roles (the owner's): add a user (their sign-in link shown once), change a role, disable. */
export function UsersSection() {
  const creds = useUser((s) => s.creds);
  const me = useUser((s) => s.session?.user.id);
  const { data, error, reload } = useLoad((c) => boCall(c, 'users', {}), []);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('clerk');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [shown, setShown] = useState<{ email: string; url: string } | null>(null);
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
  const change = async (id: string, patch: { role?: Role; enabled?: boolean }) => {
    if (!creds) return;
    try {
      await boCall(creds, 'updateUser', { params: { id }, body: patch });
      setMessage(null);
    } catch (err) {
      setMessage((err as Error).message);
    }
    reload();
  };
  const newLink = async (id: string, who: string) => {
    if (!creds) return;
    const made = await boCall(creds, 'userLink', { params: { id } });
    setShown({ email: who, url: welcomeLink(window.location.origin, made.link, who) });
  };
  return (
    <section className="bo-section">
      <Title>Users</Title>
      <Notice error={error ?? message} />
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
                  <select aria-label={`Role of ${u.email}`} value={u.role} disabled={u.id === me} onChange={(e) => void change(u.id, { role: e.target.value as Role })}>
                    {ROLES.map(([r]) => <option key={r} value={r}>{r}</option>)}
                  </select>
                </td>
                <td>{day(u.last_sign_in_at)}</td>
                <td>{u.enabled ? (u.has_password ? 'Active' : 'Invited') : 'Disabled'}{u.locked_until ? ' · locked' : ''}</td>
                <td>
                  {/* The flex box inside the cell, not the cell itself: a flex td is no longer a table cell and leaves the row. */}
                  <div className="bo-actions">
                    <button type="button" onClick={() => void newLink(u.id, u.email)}>New link</button>
                    {u.id !== me && <button type="button" className="danger" onClick={() => void change(u.id, { enabled: !u.enabled })}>{u.enabled ? 'Disable' : 'Enable'}</button>}
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
        <div className="bo-actions">
          <button type="submit" className="primary">Add user</button>
        </div>
      </form>
    </section>
  );
}
