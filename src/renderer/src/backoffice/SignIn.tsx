import { useEffect, useState, type FormEvent } from 'react';
import { useUser } from '../state/user';
import { useRoute } from '../state/route';
import { UserSignInFields } from '../sign-in-fields';
import { readWelcomeLink } from '../../../shared/welcome-link';

/** Back-office sign-in: e-mail and password. */
export function UserSignIn() {
  const { signIn, busy, error } = useUser();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void signIn(email, password);
  };
  return (
    <main className="centered">
      <form className="card signin" onSubmit={submit} aria-labelledby="bo-signin-title">
        <h1 id="bo-signin-title">Laneway back office</h1>
        <p className="muted">Sign in with your e-mail and password. No password yet? Open the sign-in link the owner gave you.</p>
        <UserSignInFields email={email} password={password} onEmail={setEmail} onPassword={setPassword} />
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'} <kbd>Enter</kbd>
        </button>
        <p className="muted">
          At the till? <a href="/app/register">Open the register</a>
        </p>
      </form>
    </main>
  );
}

/** A one-time sign-in link (#link=…): choose a password, and the e-mail for the first owner. */
export function Welcome() {
  const { redeem, busy, error, session } = useUser();
  const go = useRoute((s) => s.go);
  const { secret, email: given } = readWelcomeLink(window.location.hash);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const mismatch = again !== '' && again !== password;
  useEffect(() => {
    // Signed in: the link is spent; leave it out of the history.
    if (session) go('/app/customers', { replace: true });
  }, [session, go]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (mismatch) return;
    void redeem(secret, password, email.trim() || undefined);
  };
  return (
    <main className="centered">
      <form className="card signin" onSubmit={submit} aria-labelledby="welcome-title">
        <h1 id="welcome-title">Welcome to Laneway</h1>
        {given && (
          <p>
            This link is for <strong>{given}</strong>: the e-mail you sign in with afterwards.
          </p>
        )}
        <p className="muted">Choose your password (10 characters or more). This link works once.</p>
        {!secret && <p className="error">This page needs the link you were given (it ends with #link=…).</p>}
        <label>
          {given ? `Another e-mail (leave empty to keep ${given})` : 'Your e-mail (leave empty to keep the one you were given)'}
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          New password
          <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} required minLength={10} />
        </label>
        <label>
          The same again
          <input type="password" autoComplete="new-password" value={again} onChange={(e) => setAgain(e.target.value)} required aria-invalid={mismatch} />
        </label>
        {mismatch && <p className="error">The two passwords differ.</p>}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy || !secret}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </main>
  );
}
