import { useEffect } from 'react';
import { useSession } from './state/session';
import { SignIn } from './screens/SignIn';
import { Status } from './screens/Status';

export function App() {
  const { creds, busy, restore } = useSession();
  useEffect(() => {
    void restore();
  }, [restore]);

  if (busy && !creds) return <main className="centered muted">Starting…</main>;
  return creds ? <Status /> : <SignIn />;
}
