import { useEffect, useState, type FormEvent } from 'react';
import { boCall, type BoAnswer } from '../api/backoffice';
import { link, segments, useRoute } from '../state/route';
import { can, useUser } from '../state/user';
import { useShopZone } from '../state/shop-zone';
import { useLive } from '../state/live';
import { SECTIONS } from './sections';
import { LeaveDialog } from './common';

type Hit = BoAnswer<'search'>['hits'][number];

const hitPath = (h: Hit) =>
  h.kind === 'customer' ? link('customers', h.key)
  : h.kind === 'invoice' ? link('invoices', h.key)
  : h.kind === 'payment' ? link('payments', h.key)
  : h.kind === 'transaction' ? link('orders', 'transactions', h.key)
  // An order, or a receipt (its key is its sale's order): the back office's read-only view of it, never the register's lane picker.
  : link('orders', h.key);

/** The search box: one engine lookup per kind, Enter opens the first hit. */
function Search() {
  const { creds } = useUser();
  const go = useRoute((s) => s.go);
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<Hit[] | null>(null);
  // What the hits are for: the box may have changed since (the answers are for what was searched).
  const [searched, setSearched] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!creds || !q.trim()) return;
    const asked = q.trim();
    const found = (await boCall(creds, 'search', { query: { q: asked } })).hits;
    setSearched(asked);
    if (found.length === 1) {
      setHits(null);
      go(hitPath(found[0]!));
    } else setHits(found);
  };
  return (
    <form className="bo-search" role="search" onSubmit={(e) => void submit(e)}>
      <input aria-label="Search" placeholder="Customer, invoice, order, receipt…" value={q} onChange={(e) => (setQ(e.target.value), setHits(null))} />
      {hits && (
        <ul className="bo-hits card" aria-label="Search results">
          {hits.length === 0 && <li className="muted">Nothing found for “{searched}”.</li>}
          {hits.map((h) => (
            <li key={`${h.kind}:${h.key}`}>
              <button type="button" onClick={() => (setHits(null), go(hitPath(h)))}>
                <span className="pill">{h.kind}</span> {h.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

/** The back office: sections in a side bar, each with URLs of its own, the user and live state on top. */
export function BackOffice() {
  const { session, creds, signOut, refresh } = useUser();
  const { path, go, leave } = useRoute();
  const { connected, start } = useLive();
  const userChanges = useLive((s) => s.seen.user ?? 0);
  useEffect(() => (creds ? start(creds) : undefined), [creds, start]);
  useShopZone(creds);
  // A change to a user may be this user's role: read the session again.
  useEffect(() => {
    if (userChanges > 0) void refresh();
  }, [userChanges, refresh]);
  const [first, ...rest] = segments(path);
  const visible = SECTIONS.filter((s) => can(session, s.grant));
  const section = visible.find((s) => s.key === first);
  useEffect(() => {
    if (!section && visible[0]) go(link(visible[0].key), { replace: true });
    // A cashier has the register only: no back-office screen, straight to the register.
    else if (session && visible.length === 0 && can(session, 'register')) go('/app/register', { replace: true });
  }, [section, visible, go, session]);
  if (!session) return null;
  return (
    <div className="bo">
      <header className="bo-top topbar">
        <h1 title={`Laneway · ${session.account_name}`}>
          Laneway <span className="muted">· {session.account_name}</span>
        </h1>
        <Search />
        {/* Whether this screen follows changes as they happen: not whether the account is in production. */}
        <span className={`badge ${connected ? 'live' : 'offline'}`} title={connected ? 'Changes made elsewhere show here as they happen' : 'Not following changes: reload the page to see new ones'}>
          {connected ? 'Live updates' : 'Updates paused'}
        </span>
        <span className="badge bo-user" aria-label="Signed in user" title={`${session.user.name} · ${session.user.role}`}>
          {session.user.name} · {session.user.role}
        </span>
        {/* Signing out drops the page as a link does: a form's unsaved input is asked about first. */}
        <button type="button" onClick={() => leave(signOut)}>
          Sign out
        </button>
      </header>
      <div className="bo-body-wrap">
        <nav className="bo-nav" aria-label="Sections">
          {visible.map((s) => (
            <a key={s.key} href={link(s.key, ...(s.home ?? []))} aria-current={s === section ? 'page' : undefined} onClick={(e) => (e.preventDefault(), go(link(s.key, ...(s.home ?? []))))}>
              {s.label}
            </a>
          ))}
          {can(session, 'register') && (
            <a href="/app/register" className="bo-register">
              Register
            </a>
          )}
        </nav>
        <main className="bo-main">{section ? section.render(rest) : <p className="muted">Your role has no back-office section.</p>}</main>
      </div>
      <LeaveDialog />
    </div>
  );
}
