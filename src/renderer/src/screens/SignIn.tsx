import { useState, type FormEvent } from 'react';
import { useSession } from '../state/session';
import { UserSignInFields } from '../sign-in-fields';

/**
 * The register's sign-in: a person with their back-office e-mail and password (a cashier, manager
 * or owner), or the install's API token and key as before.
 */
export function SignIn() {
  const { signIn, signInUser, busy, error } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [key, setKey] = useState('');

  const submitUser = (e: FormEvent) => {
    e.preventDefault();
    void signInUser(email, password);
  };
  const submitKey = (e: FormEvent) => {
    e.preventDefault();
    void signIn(token, key);
  };

  return (
    <main className="centered signin-page">
      <div className="signin-pair">
        <form className="card signin" onSubmit={submitUser} aria-labelledby="signin-title">
          <h1 id="signin-title">Laneway register</h1>
          <p className="muted">Sign in with your e-mail and password.</p>
          <UserSignInFields email={email} password={password} onEmail={setEmail} onPassword={setPassword} />
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'} <kbd>Enter</kbd>
          </button>
        </form>
        <form className="card signin" onSubmit={submitKey} aria-labelledby="signin-key-title">
          <h2 id="signin-key-title">Or as the install, with its credentials</h2>
          <p className="muted">An API token and key. A new install prints its first pair when it starts.</p>
          <label>
            API token
            <input autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
          </label>
          <label>
            API key
            <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} required />
          </label>
          <button type="submit" disabled={busy}>
            Sign in with the key
          </button>
        </form>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {/* /app opens the register: the way to the back office is one link away, not in the README. */}
      <p className="muted">
        Customers, invoices, payments, reports and settings are in the <a href="/app/customers">back office</a>.
      </p>
    </main>
  );
}
