import { useState } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { money as inLocale, time } from '../format';
import { can, useUser } from '../state/user';
import { Notice } from './common';

type Exception = BoAnswer<'syncResolutions'>['exceptions'][number];

/**
 * Sync exceptions are work for a person (a refused push, a gift card overspent while apart, a
 * deletion the upstream could not be told of): open ones are listed, each with when and what, and
 * a manager marks one handled once it is dealt with; handled ones are kept, shown on request.
 */
export function SyncExceptions({ exceptions, onChange, more }: { exceptions: Exception[]; onChange(): void; more?: () => void }) {
  const session = useUser((s) => s.session);
  const creds = useUser((s) => s.creds);
  const [showHandled, setShowHandled] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const open = exceptions.filter((e) => !e.handled_at);
  const handled = exceptions.filter((e) => e.handled_at);
  const shown = showHandled ? exceptions : open;
  // Open ones come first: with more to read and no handled one among those read, more are open.
  const moreOpen = !!more && handled.length === 0;
  const mark = async (key: string) => {
    if (!creds) return;
    setBusy(key);
    try {
      await boCall(creds, 'handleSyncException', { body: { key } });
      setError(null);
      onChange();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(null);
    }
  };
  if (exceptions.length === 0) return null;
  return (
    <div className="card">
      <h2>
        Exceptions <span className="pill">{open.length.toLocaleString()}{moreOpen ? '+' : ''} open</span>
      </h2>
      <Notice error={error} />
      {open.length === 0 && !showHandled && <p className="muted">Nothing open: every exception has been handled.</p>}
      {shown.length > 0 && (
        <table aria-label="Sync exceptions">
          <thead>
            <tr><th>When</th><th>What</th><th>State</th></tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr key={String(e.key)}>
                <td>{typeof e.at === 'string' ? time(e.at) : '—'}</td>
                <td>{describeException(e)}</td>
                <td>
                  {e.handled_at ? (
                    `Handled ${time(String(e.handled_at))} by ${String(e.handled_by ?? '')}`
                  ) : can(session, 'manage') ? (
                    <button type="button" disabled={busy === e.key} onClick={() => void mark(String(e.key))}>
                      Mark handled
                    </button>
                  ) : (
                    'Open'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(handled.length > 0 || more) && (
        <div className="bo-actions">
          {more && (
            <button type="button" onClick={more}>
              Show more
            </button>
          )}
          {handled.length > 0 && (
            <button type="button" onClick={() => setShowHandled(!showHandled)}>
              {showHandled ? 'Hide handled' : `Show handled (${handled.length.toLocaleString()}${more ? '+' : ''})`}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

export function describeException(e: Record<string, unknown>): string {
  const s = (k: string) => String(e[k] ?? '');
  if (e.reason === 'offline_floor_excess') {
    const money = (k: string) => inLocale(Number(e[k] ?? 0), s('currency'));
    return `Gift card •••• ${s('card_last4')} on ${s('day')}: lanes ${(e.lanes as string[] | undefined)?.join(', ') ?? ''} spent ${money('spent_cents')} while apart, ${money('excess_cents')} beyond the floor of ${money('floor_cents')}`;
  }
  if (e.peer === 'upstream') {
    const cents = e.upstream_owing_cents ?? e.upstream_amount_cents;
    const amount = typeof cents === 'number' && e.currency ? ` (${inLocale(cents, s('currency'))} upstream)` : '';
    return `Upstream, ${s('document')}${amount}: ${s('message')}`;
  }
  return `${s('reason')}: ${s('document')} from lane ${s('laneid')}`;
}
