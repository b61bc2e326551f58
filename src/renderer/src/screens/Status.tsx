import { useEffect } from 'react';
import { useSession } from '../state/session';
import { useStatus } from '../state/status';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function Status() {
  const { creds, accountName, signOut } = useSession();
  const { status, events, live, error, start } = useStatus();

  useEffect(() => (creds ? start(creds) : undefined), [creds, start]);

  return (
    <main className="page">
      <header className="topbar">
        <h1>{accountName ?? 'Laneway'}</h1>
        {status && <span className={`badge ${status.environment}`}>{status.environment}</span>}
        {status?.clock_offset_seconds ? (
          <span className="badge sandbox" data-testid="clock-moved" title="The sandbox clock was moved forward (POST /api/sandbox/v1/clock/advance); reports and cut-offs follow it">
            Sandbox clock: {new Date(status.now).toLocaleString()}
          </span>
        ) : null}
        <span className={`badge ${live ? 'live' : 'offline'}`} aria-live="polite">
          {live ? 'Live' : 'Reconnecting…'}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <section className="grid" aria-label="Install status">
        <div className="card">
          <h2>API</h2>
          <p data-testid="api-url">{creds?.baseUrl}/api</p>
          <p className="muted">
            Docs at <a href="/api/docs">/api/docs</a>
          </p>
        </div>
        <div className="card">
          <h2>Environment</h2>
          <p data-testid="environment">{status?.environment ?? '…'}</p>
          <p className="muted">Version {status?.version ?? '…'}</p>
        </div>
        <div className="card">
          <h2>Store</h2>
          <p data-testid="store-size">{status ? bytes(status.store_bytes) : '…'}</p>
          <p className="muted">Watermark {status?.watermark ?? '…'}</p>
        </div>
      </section>
      <section className="card" aria-label="Live events">
        <h2>Live events</h2>
        {events.length === 0 ? (
          <p className="muted">Changes appear here as they happen.</p>
        ) : (
          <ol className="events" data-testid="events">
            {events.map((e) => (
              <li key={e.watermark}>
                <span className="wm">#{e.watermark}</span> <strong>{e.type}</strong> {e.key}
                <time dateTime={e.at}>{new Date(e.at).toLocaleTimeString()}</time>
              </li>
            ))}
          </ol>
        )}
      </section>
    </main>
  );
}
