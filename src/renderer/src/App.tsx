import { useEffect } from 'react';
import { useSession } from './state/session';
import { SignIn } from './screens/SignIn';
import { Shell } from './screens/pos/Shell';
import { useRoute } from './state/route';
import { useUser } from './state/user';
import { BackOffice } from './backoffice/Shell';
import { UserSignIn, Welcome } from './backoffice/SignIn';

/** The register as it always was: /app and /app/register, signed in with the API key. */
function Register() {
  const { creds, restoring, restore } = useSession();
  useEffect(() => {
    void restore();
  }, [restore]);

  if (restoring) return <main className="centered muted">Starting…</main>;
  return creds ? <Shell /> : <SignIn />;
}

/** The back office: every other /app path, signed in as a user. */
function BackOfficeApp() {
  const { session, restoring, restore } = useUser();
  useEffect(() => {
    void restore();
  }, [restore]);
  if (restoring) return <main className="centered muted">Starting…</main>;
  return session ? <BackOffice /> : <UserSignIn />;
}

export function App() {
  const path = useRoute((s) => s.path);
  if (path === '/app/welcome') return <Welcome />;
  if (path === '/app' || path === '/app/register' || path === '/app/index.html') return <Register />;
  return <BackOfficeApp />;
}
