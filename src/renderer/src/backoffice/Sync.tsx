import { useEffect, useState } from 'react';
import { boCall } from '../api/backoffice';
import { can, useUser } from '../state/user';
import { Notice, Title, useLoad } from './common';
import { UpstreamForm } from './SyncUpstream';
import { SyncExceptions } from './SyncExceptions';
import { LanePairing } from './SyncPairing';
import { LOCALE, time } from '../format';

const PAGE = 50;
/** How often the peers' state is read again while the section is open. */
const STATUS_EVERY_MS = 5_000;
/** GET /api/sync/resolutions answers at most this many. */
const MAX_LIMIT = 1000;
const when = (iso: string | null) => (iso ? time(iso) : 'never');
const seconds = (ms: number) => `${Math.round(ms < 1000 ? 0 : ms / 1000).toLocaleString(LOCALE)} s`;

/** Sync: per peer, last success, lag, queued changes, last error (GET /api/sync/status); a lane pauses and resumes; a hub lists what it merged and refused. */
export function SyncSection() {
  const session = useUser((s) => s.session);
  const creds = useUser((s) => s.creds);
  const status = useLoad((c) => boCall(c, 'syncStatus', {}), []);
  // The newest 50 first; more on request, up to what the API answers at once.
  const [limit, setLimit] = useState(PAGE);
  const seen = useLoad((c) => boCall(c, 'syncResolutions', { query: { limit } }), [limit]);
  const moreExceptions = seen.data && seen.data.exceptions.length >= limit && limit < MAX_LIMIT ? () => setLimit(Math.min(limit + PAGE, MAX_LIMIT)) : undefined;
  // useLoad reads again on every live event, `sync.status` included. A hub's lanes pull and push
  // without an event: read again every few seconds, so their last contact and lag stay true.
  const reloadStatus = status.reload;
  useEffect(() => {
    const every = setInterval(reloadStatus, STATUS_EVERY_MS);
    return () => clearInterval(every);
  }, [reloadStatus]);
  const [error, setError] = useState<string | null>(null);
  const hub = status.data?.peers.find((p) => p.peer === 'hub');
  const toggle = async () => {
    if (!creds || !hub) return;
    try {
      await boCall(creds, hub.paused ? 'resumeSync' : 'pauseSync', {});
      setError(null);
      status.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const actions = hub && can(session, 'manage') ? <button type="button" onClick={() => void toggle()}>{hub.paused ? 'Resume sync' : 'Pause sync'}</button> : undefined;
  return (
    <section className="bo-section">
      <Title actions={actions}>Sync</Title>
      <Notice error={error ?? status.error ?? seen.error} />
      {/* Peers are other PCs paired for sync, not the lanes set up under Point of sale: a newcomer selling on this PC's lane must not read that it has none. */}
      {status.data && status.data.peers.length === 0 && (
        <p className="muted" data-testid="sync-no-peers">
          No other lane PC is paired with this one, and this PC is not paired with a hub. Pairing is for a shop with several PCs: each lane PC sends its sales to one hub and gets the catalog, cashiers and customers from it. Lanes set up under Point of sale sell on this PC without pairing. To make this PC the hub of a lane PC, use Pair a lane PC below.
        </p>
      )}
      {status.data && status.data.peers.length > 0 && (
        <table className="card" aria-label="Sync peers">
          <thead>
            <tr><th>Peer</th><th>State</th><th>Last success</th><th>Lag</th><th>Queued</th><th>Last error</th></tr>
          </thead>
          <tbody>
            {status.data.peers.map((p) => (
              <tr key={p.peer} data-testid={`sync-peer-${p.peer}`}>
                <td>{p.peer}{p.url ? ` (${p.url})` : ''}</td>
                <td>{p.paused ? 'paused' : p.last_error ? 'failing' : 'running'}</td>
                <td>{when(p.last_success_at)}</td>
                <td>{seconds(p.lag_ms)}</td>
                <td>{p.queued.toLocaleString(LOCALE)}</td>
                <td>{p.last_error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {status.data && <LanePairing peers={status.data.peers} onChange={status.reload} />}
      <UpstreamForm onChange={status.reload} />
      {seen.data && <SyncExceptions exceptions={seen.data.exceptions} onChange={seen.reload} more={moreExceptions} />}
      {seen.data && seen.data.resolutions.length > 0 && (
        <div className="card">
          <h2>Customer fields merged</h2>
          <ul aria-label="Sync resolutions">
            {seen.data.resolutions.map((r, i) => (
              <li key={i}>
                {time(r.at)}: {r.identifier} from {r.lane === 'upstream' ? 'the upstream' : `lane ${r.lane}`}: {r.fields.map((f) => `${f.field} → ${f.winner}`).join(', ')}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
