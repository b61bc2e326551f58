import { useEffect, useRef } from 'react';
import { usePos } from '../../state/pos';
import { useSession } from '../../state/session';
import { can } from '../../state/user';
import { link } from '../../state/route';
import { useKeys } from '../../keys';
import { activityText, statusText } from '../../format';

/** Which lane this screen is: the terminal's live status beside each. Digits pick one. */
export function LanePicker() {
  const { lanes, lanesLoaded, pickLane, server } = usePos();
  // Signed in with the install's key (no person), or as a role that may change settings.
  const user = useSession((s) => s.user);
  const mayAddLanes = !user || can(user, 'settings');
  const down = server === 'down';
  const list = Object.values(lanes).sort((a, b) => a.laneid.localeCompare(b.laneid, 'en', { numeric: true }));
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), [list.length]);
  const keys = Object.fromEntries(list.slice(0, 9).map((l, i) => [String(i + 1), () => void pickLane(l.laneid)]));
  useKeys(keys);

  return (
    <section className="centered-page" aria-labelledby="lanes-title">
      <h2 id="lanes-title" className="page-title">Choose this register's lane</h2>
      {!lanesLoaded && <p className="muted">Loading lanes…</p>}
      {lanesLoaded && list.length === 0 && (
        <p className="notice info">
          No lanes yet. A lane is a card terminal on a serial port.{' '}
          {mayAddLanes ? (
            <>
              Add one in the back office under <a href={link('pos', 'lanes')}>Point of sale → Lanes</a>: it shows here as soon as it is added.
            </>
          ) : (
            'Ask a manager to add a lane in Point of sale → Lanes: it shows here as soon as it is added.'
          )}
        </p>
      )}
      <div className="lanes">
        {list.map((l, i) => (
          <button key={l.laneid} type="button" className="lane-card" ref={i === 0 ? first : undefined} onClick={() => void pickLane(l.laneid)} data-testid={`lane-${l.laneid}`}>
            <span className="lane-key">
              <kbd>{i + 1}</kbd>
            </span>
            <strong>{l.name}</strong>
            {down ? (
              <span className="pill offline">status unknown: Laneway is not answering</span>
            ) : (
              <>
                <span className={`pill ${l.status}`}>{statusText(l.status)}</span>
                <span className="muted">{l.status === 'offline' ? (l.last_error ?? 'No answer from the terminal') : activityText(l.activity)}</span>
              </>
            )}
          </button>
        ))}
      </div>
    </section>
  );
}
