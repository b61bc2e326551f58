import { useEffect } from 'react';
import { useSession } from './state/session';
import { SignIn } from './screens/SignIn';
import { Shell } from './screens/pos/Shell';

export function App() {
  const { creds, restoring, restore } = useSession();
  useEffect(() => {
    void restore();
  }, [restore]);

  if (restoring) return <main className="centered muted">Starting…</main>;
  return creds ? <Shell /> : <SignIn />;
}
