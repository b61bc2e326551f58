import { useEffect, useRef, useState } from 'react';
import { canReadBackOffice, useSession } from '../../state/session';
import { usePos, type View } from '../../state/pos';
import { useKeys } from '../../keys';
import { statusText } from '../../format';
import { LanePicker } from './LanePicker';
import { CashierSignIn } from './CashierSignIn';
import { RingUp } from './RingUp';
import { Done } from './Done';
import { Sales } from './Sales';
import { EndOfDay } from './EndOfDay';
import { Status } from '../Status';
import { Modal } from './Modal';
import { APPROVAL_ERRORS } from './SaleDetail';
import { processorBadge, syncBadge } from './status-badges';
import { useShopZone } from '../../state/shop-zone';

/**
 * Each item keeps its key for every sign-in and every state, and no number is skipped: the install
 * status page (the back office's, which a cashier user may not read) is last, so that hiding it
 * leaves 1 to 5; what needs a cashier signed in is greyed out until one is, not taken away.
 */
const MENU: Array<{ key: string; label: string; view?: View; action?: 'signout' | 'lane' | 'signout-api'; needsCashier?: true }> = [
  { key: '1', label: 'Find a sale: reprint, void, refund', view: 'sales', needsCashier: true },
  { key: '2', label: 'End of day: X and Z reports', view: 'eod', needsCashier: true },
  { key: '3', label: 'Sign out cashier', action: 'signout', needsCashier: true },
  { key: '4', label: 'Change lane', action: 'lane' },
  { key: '5', label: 'Sign this screen out of Laneway', action: 'signout-api' },
  { key: '6', label: 'Back office: install status', view: 'status' },
];

function Menu() {
  const { setDialog, go, signOut, changeLane, shift } = usePos();
  const signOutApi = useSession((s) => s.signOut);
  const user = useSession((s) => s.user);
  const pick = (i: (typeof MENU)[number]) => {
    setDialog(null);
    if (i.view) go(i.view);
    else if (i.action === 'signout') void signOut();
    else if (i.action === 'lane') changeLane();
    else if (i.action === 'signout-api') signOutApi();
  };
  const items = MENU.filter((i) => i.view !== 'status' || canReadBackOffice(user))
    .map((i) => (i.action === 'signout-api' && user ? { ...i, label: `Sign ${user.name} out of this screen` } : i))
    .map((i) => ({ ...i, off: !!i.needsCashier && !shift }));
  const keys = Object.fromEntries(items.filter((i) => !i.off).map((i) => [i.key, () => pick(i)]));
  useKeys({ ...keys, Escape: () => setDialog(null), F10: () => setDialog(null) }, { modal: true });
  const first = items.find((i) => !i.off);
  return (
    <Modal title="Menu" onClose={() => setDialog(null)}>
      <div className="menu" role="menu">
        {items.map((i) => (
          <button key={i.key} type="button" role="menuitem" className="big" onClick={() => pick(i)} disabled={i.off} autoFocus={i === first}>
            <kbd>{i.key}</kbd> {i.label}
            {i.off && <span className="muted"> (once a cashier signs in)</span>}
          </button>
        ))}
      </div>
    </Modal>
  );
}

const HELP: Array<[string, string]> = [
  ['Scan or type a code, Enter', 'Add the item (3*CODE adds three)'],
  ['↑ ↓', 'Choose a line'],
  ['F2', 'Search the catalog'],
  ['F3', 'Open-price item'],
  ['F4', 'Pay cash'],
  ['F5', 'Pay by card on the terminal'],
  ['F6', 'Gift card, cheque, other'],
  ['F7', 'Change the chosen line: quantity, discount, price'],
  ['F8', 'Void the chosen line'],
  ['F9', 'Void the sale'],
  ['F10', 'Menu: find a sale, end of day, back office, sign out'],
  ['Esc', 'Back, or close a dialog'],
];

function Help() {
  const setDialog = usePos((s) => s.setDialog);
  useKeys({ Escape: () => setDialog(null), F1: () => setDialog(null) }, { modal: true });
  return (
    <Modal title="Keys" onClose={() => setDialog(null)}>
      <table className="keys">
        <tbody>
          {HELP.map(([k, what]) => (
            <tr key={k}>
              <th>
                <kbd>{k}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  );
}

/** What this lane's links are doing: the card processor (card payments need it) and sync with the hub. */
function LinkBadges() {
  const { server, sale, register, sync } = usePos();
  if (server === 'down') return null;
  const badges = [
    ['processor-status', processorBadge(sale?.allowed.processor ?? register?.processor)],
    ['sync-status', syncBadge(sync, Date.now())],
  ] as const;
  return (
    <>
      {badges.map(([id, b]) =>
        b ? (
          <span key={id} className={`badge ${b.tone}`} data-testid={id} title={b.detail ?? ''}>
            {b.text}
          </span>
        ) : null,
      )}
    </>
  );
}

/** While the processor cannot be reached, which tenders to take instead. */
function ProcessorNotice() {
  const { server, sale, register } = usePos();
  const p = server === 'down' ? null : processorBadge(sale?.allowed.processor ?? register?.processor);
  if (!p?.detail) return null;
  return (
    <p role="status" className="notice error" data-testid="processor-down">
      {p.detail}
    </p>
  );
}

/**
 * The drawer just opened. Neither the lane nor the engine hears of it closing (the terminal
 * reports no drawer; the engine records openings only), so the cashier says so: "Drawer closed",
 * reached with Shift+Tab from the field or button in use and pressed with Enter or Space, takes
 * the banner away and gives the focus back where it was. Otherwise it goes with the step that
 * opened the drawer (the next sale, the next payment or refund), or after 15 s.
 */
function DrawerBanner({ refund }: { refund: boolean }) {
  const from = useRef<HTMLElement | null>(null);
  const closed = () => {
    usePos.setState({ drawer: null });
    const back = from.current;
    if (back?.isConnected) setTimeout(() => back.focus(), 0);
  };
  return (
    <p className="drawer" role="status" data-testid="drawer">
      Cash drawer open{refund ? ' for a refund' : ''}: close it when done.{' '}
      <button type="button" data-own-enter onFocus={(e) => (from.current = e.relatedTarget instanceof HTMLElement ? e.relatedTarget : null)} onClick={closed} title="The drawer is shut: this notice goes">
        Drawer closed
      </button>
    </p>
  );
}

export function Shell() {
  const creds = useSession((s) => s.creds);
  const accountName = useSession((s) => s.accountName);
  const user = useSession((s) => s.user);
  const { start, view, laneid, lanes, shift, live, server, dialog, setDialog, notice, drawer } = usePos();

  useEffect(() => (creds ? start(creds) : undefined), [creds, start]);
  useShopZone(creds);
  useKeys({ F10: () => setDialog({ kind: 'menu' }), F1: () => setDialog({ kind: 'help' }) });

  const lane = laneid ? lanes[laneid] : undefined;
  // The drawer notice shows for 15 s after the drawer opened.
  const [, tick] = useState(0);
  useEffect(() => {
    if (!drawer) return;
    const timer = setTimeout(() => tick((n) => n + 1), Math.max(0, drawer.at + 15_000 - Date.now()) + 50);
    return () => clearTimeout(timer);
  }, [drawer]);
  const drawerOpen = drawer !== null && Date.now() - drawer.at < 15_000;

  return (
    <div className="shell">
      <header className="topbar pos-top">
        <h1 title={accountName ?? 'Laneway'}>{accountName ?? 'Laneway'}</h1>
        {lane &&
          (server === 'down' ? (
            // What the lane is doing cannot be known while the server does not answer.
            <span className="badge lane offline" data-testid="lane-status" title="Laneway is not answering">
              {lane.name} · status unknown
            </span>
          ) : (
            <span className={`badge lane ${lane.status}`} data-testid="lane-status" title={lane.last_error ?? ''}>
              {lane.name} · {statusText(lane.status)}
            </span>
          ))}
        <LinkBadges />
        {user && (
          <span className="badge person" data-testid="register-user" aria-label="Signed in user" title={`${user.name} · ${user.role}`}>
            {user.name} · {user.role}
          </span>
        )}
        {shift && <span className="badge cashier" data-testid="cashier">{shift.cashier.name}</span>}
        <span className={`badge ${live ? 'live' : 'offline'}`} aria-live="polite" data-testid="live">
          {live ? 'Live' : server === 'down' ? 'Server not answering' : 'Connecting…'}
        </span>
        <button type="button" onClick={() => setDialog({ kind: 'help' })}>
          Keys <kbd>F1</kbd>
        </button>
        <button type="button" onClick={() => setDialog({ kind: 'menu' })}>
          Menu <kbd>F10</kbd>
        </button>
      </header>
      {drawerOpen && <DrawerBanner refund={drawer.reason === 'cash_refund'} />}
      <ProcessorNotice />
      {server === 'down' && (
        <p role="alert" className="notice error" data-testid="server-down">
          Laneway is not answering. Sales and payments are paused; this screen reconnects by itself. Nothing already paid is lost.
        </p>
      )}
      {notice && !(notice.code !== undefined && APPROVAL_ERRORS.has(notice.code)) && (
        <p role={notice.kind === 'error' ? 'alert' : 'status'} className={`notice ${notice.kind}`} data-testid="notice">
          {notice.text}
        </p>
      )}
      <main className="pos-main">
        {view === 'lanes' && <LanePicker />}
        {view === 'signin' && <CashierSignIn />}
        {view === 'sale' && <RingUp />}
        {view === 'receipt' && <Done />}
        {view === 'sales' && <Sales />}
        {view === 'eod' && <EndOfDay />}
        {view === 'status' && <StatusView />}
      </main>
      {dialog?.kind === 'menu' && <Menu />}
      {dialog?.kind === 'help' && <Help />}
    </div>
  );
}

function StatusView() {
  const { go, shift, laneid } = usePos();
  const back = () => go(shift ? 'sale' : laneid ? 'signin' : 'lanes');
  useKeys({ Escape: back });
  return (
    <div>
      <button type="button" onClick={back} className="back">
        Back to the register <kbd>Esc</kbd>
      </button>
      <Status />
    </div>
  );
}
