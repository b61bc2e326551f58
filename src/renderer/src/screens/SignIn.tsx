import { useState, type FormEvent } from 'react';
import { useSession } from '../state/session';

export function SignIn() {
  const { signIn, busy, error } = useSession();
  const [token, setToken] = useState('');
  const [key, setKey] = useState('');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void signIn(token, key);
  };

  return (
    <main className="centered">
      <form className="card signin" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Laneway</h1>
        <p className="muted">Sign in with an API token and key. A new install prints its first pair when it starts.</p>
        <label>
          API token
          <input autoFocus autoComplete="username" value={token} onChange={(e) => setToken(e.target.value)} required />
        </label>
        <label>
          API key
          <input type="password" autoComplete="current-password" value={key} onChange={(e) => setKey(e.target.value)} required />
        </label>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'} <kbd>Enter</kbd>
        </button>
      </form>
    </main>
  );
}
