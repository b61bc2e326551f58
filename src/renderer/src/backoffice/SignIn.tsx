import { useEffect, useState, type FormEvent } from 'react';
import { useUser } from '../state/user';
import { useRoute } from '../state/route';
import { UserSignInFields } from '../sign-in-fields';
import { readWelcomeLink } from '../../../shared/welcome-link';
import { MIN_PASSWORD } from '../../../shared/passwords';

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
  // Said once the password field is left or the form sent: the browser's tooltip alone was missed.
  const [checked, setChecked] = useState(false);
  const short = checked && password.length < MIN_PASSWORD;
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
      <form className="card signin" onSubmit={submit} onInvalidCapture={() => setChecked(true)} aria-labelledby="welcome-title">
        <h1 id="welcome-title">Welcome to Laneway</h1>
        {given && (
          <p>
            This link is for <strong>{given}</strong>: the e-mail you sign in with afterwards.
          </p>
        )}
        <p className="muted">Choose your password ({MIN_PASSWORD} characters or more). This link works once.</p>
        {!secret && <p className="error">This page needs the link you were given (it ends with #link=…).</p>}
        <label>
          {given ? `Another e-mail (leave empty to keep ${given})` : 'Your e-mail (leave empty to keep the one you were given)'}
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          New password
          <input
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            onBlur={() => setChecked(password !== '')}
            required
            minLength={MIN_PASSWORD}
            aria-invalid={short}
            aria-describedby={short ? 'password-short' : undefined}
          />
        </label>
        {short && (
          <p role="alert" className="error" id="password-short">
            {password === '' ? 'Choose a password' : `This password has ${password.length} characters`}: it needs {MIN_PASSWORD} or more.
          </p>
        )}
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
