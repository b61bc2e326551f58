import type { StoreApi } from 'zustand';
import { ApiError } from '../api/client';
import type { LiveEvent } from '../api/events';
import type { PosApi, Sale, Shift } from '../api/pos';
import type { CardOutcome, LaneLive, PosState } from './pos-model';
import { useSession } from './session';

export const LANE_KEY = 'laneway.lane';
export const SHIFT_KEY = 'laneway.shift';
/** The sale this screen shows (open, or paid with its receipt up): found again after a reload. */
const SALE_KEY = 'laneway.sale';
const FOLLOW_EVERY_MS = 1000;

/** The store's own handles and the little state it keeps outside what the screens see. */
export interface PosKit {
  set: StoreApi<PosState>['setState'];
  get: () => PosState;
  /** Read once: the store's first changes would otherwise overwrite it before the lane is back. */
  resumeSale: string | null;
  followTimer: ReturnType<typeof setInterval> | null;
  /**
   * Counts the register calls this screen has sent that change a sale (a scan, a tender...). A
   * read sent before one of them may be answered after it, with the sale as it was before: such a
   * read does not replace the sale the screen holds.
   */
  changes: number;
  /** The sale this screen last finished from its own call's answer (whose message says the change due). */
  finished: string | null;
}

export function load(key: string, store: Storage): string | null {
  try {
    return store.getItem(key);
  } catch {
    return null;
  }
}

export function posKit(set: PosKit['set'], get: PosKit['get']): PosKit {
  return { set, get, resumeSale: load(SALE_KEY, sessionStorage), followTimer: null, changes: 0, finished: null };
}

export function saveShift(shift: Shift | null): void {
  if (shift) sessionStorage.setItem(SHIFT_KEY, JSON.stringify(shift));
  else sessionStorage.removeItem(SHIFT_KEY);
}

export function rememberSale(id: string | null): void {
  try {
    if (id) sessionStorage.setItem(SALE_KEY, id);
    else sessionStorage.removeItem(SALE_KEY);
  } catch {
    // storage unavailable: a reload then starts from the register's own record only
  }
}

export const laneMap = (lanes: Array<{ laneid: string; name: string; status: string; activity: string; last_error: string | null }>) =>
  Object.fromEntries(lanes.map((l) => [l.laneid, { laneid: l.laneid, name: l.name, status: l.status, activity: l.activity, last_error: l.last_error }]));

export function serverAnswered(k: PosKit): void {
  if (k.get().server === 'up') return;
  const wasDown = k.get().server === 'down';
  k.set({ server: 'up' });
  if (wasDown) void refreshAfterOutage(k);
}

export function onError(k: PosKit, err: unknown): void {
  const e = err instanceof ApiError ? err : new ApiError(0, 'unknown', (err as Error).message);
  if (e.code === 'network') {
    // Shown once, as the server's state (banner, badge, disabled tenders), and gone when it answers.
    k.set({ server: 'down' });
    return;
  }
  serverAnswered(k);
  if (e.status === 401 && useSession.getState().user) {
    // A person's session refused (expired, user disabled): the sign-in screen says so.
    k.set({ busy: false, dialog: null, card: null, notice: null });
    useSession.getState().expire();
    return;
  }
  if (e.code === 'shift_closed' || e.code === 'shift_not_found') {
    saveShift(null);
    k.set({ shift: null, view: 'signin', dialog: null, card: null, sale: null, notice: { kind: 'error', text: e.message } });
    return;
  }
  k.set({ notice: { kind: 'error', text: e.message, code: e.code } });
}

/** The paid sale's receipt comes up. */
export async function finish(k: PosKit, api: PosApi, sale: Sale, message: string, options: { elsewhere?: boolean } = {}): Promise<void> {
  if (!options.elsewhere) k.finished = sale.id;
  const receipt = await api.receipt(sale.id);
  // Read on an event of the sale this screen is finishing itself: its own answer's message ("Change
  // due") stays, whichever receipt arrives last.
  if (options.elsewhere && k.finished === sale.id) return;
  rememberSale(sale.id);
  k.set({ sale: null, selected: null, dialog: null, card: null, notice: null, done: { sale, receipt, message }, view: 'receipt' });
}

/** The sale shown was voided (or otherwise closed) from another screen. */
function closedElsewhere(k: PosKit, sale: Sale): void {
  rememberSale(null);
  k.set({ sale: null, selected: null, dialog: null, card: null, notice: { kind: 'info', text: `Sale ${sale.number} was ${sale.status.replace('_', ' ')} from another screen.` } });
}

/** What a followed card tender came to, read from the engine's record of the sale. */
async function settleFollowed(k: PosKit, api: PosApi, sale: Sale): Promise<void> {
  const s = k.get();
  const card = s.card;
  if (!card?.following || s.sale?.id !== sale.id) return;
  if (sale.pending_tender) {
    k.set({ sale });
    return;
  }
  const { tender: id, known = [] } = card.following;
  const tender = id ? sale.tenders.find((t) => t.id === id) : [...sale.tenders].reverse().find((t) => t.type === 'card' && !known.includes(t.id));
  if (!tender && sale.status === 'open') {
    // The request never reached the engine: nothing was started on the terminal.
    k.set({ sale, card: { phase: 'result', amount_cents: card.amount_cents, manual: card.manual, outcome: { approved: false, message: 'The payment did not reach Laneway, so nothing was charged. Try again once it answers.', code: 'network' } } });
    return;
  }
  const approved = tender?.status === 'approved';
  if (sale.status === 'paid') {
    await finish(k, api, sale, approved ? `${tender!.label}: approved.` : `Sale ${sale.number} is paid.`);
    return;
  }
  if (sale.status !== 'open') {
    closedElsewhere(k, sale);
    return;
  }
  const outcome: CardOutcome = approved
    ? { approved: true, message: `${tender!.label}: approved.`, code: null }
    : { approved: false, message: tender?.error?.message ?? 'The card payment did not go through. Nothing was charged.', code: tender?.error?.code ?? (tender?.status === 'declined' ? 'declined' : null) };
  k.set({ sale, card: { phase: 'result', amount_cents: card.amount_cents, manual: card.manual, outcome } });
}

/**
 * While a card tender is followed, the sale is read again every second too: an event missed
 * while the page loaded or the server restarted must not leave the screen waiting forever.
 */
export function follow(k: PosKit): void {
  if (k.followTimer) return;
  k.followTimer = setInterval(() => {
    const { api, card, sale } = k.get();
    if (!api || !sale || !card?.following) {
      if (k.followTimer) clearInterval(k.followTimer);
      k.followTimer = null;
      return;
    }
    void api
      .sale(sale.id)
      .then((fresh) => {
        serverAnswered(k);
        return settleFollowed(k, api, fresh);
      })
      .catch((err: unknown) => onError(k, err));
  }, FOLLOW_EVERY_MS);
}

/** After the server was unreachable: the lanes' and the sale's state may have moved meanwhile. */
async function refreshAfterOutage(k: PosKit): Promise<void> {
  const { api, laneid } = k.get();
  if (!api) return;
  try {
    const { lanes } = await api.lanes();
    k.set({ lanes: laneMap(lanes) });
    if (laneid && k.get().shift && k.get().view === 'sale' && !k.get().card?.following) {
      const asked = k.changes;
      const register = await api.register(laneid);
      // A scan taken once the server answered again is newer than this read.
      k.set(k.changes === asked ? { register, sale: register.open_sale } : { register });
    }
  } catch (err) {
    onError(k, err);
  }
}

/** One event of the live stream: lanes, the drawer, the sale on screen changed elsewhere, or a resync (read them again). */
export function onEvent(k: PosKit, e: LiveEvent): void {
  const s = k.get();
  // A removal's event carries no data (the store drops it with the record): only its key.
  if (e.type === 'lane.deleted') {
    const { [e.key]: _gone, ...rest } = s.lanes;
    k.set({ lanes: rest });
  } else if (e.entity === 'lane' && e.data) {
    const d = e.data as Partial<LaneLive>;
    k.set({ lanes: { ...s.lanes, [e.key]: { ...(s.lanes[e.key] ?? { laneid: e.key, name: e.key, status: 'offline', activity: 'idle', last_error: null }), ...d } as LaneLive } });
  } else if (e.entity === 'pos_processor' && e.data) {
    // The processor's reachability changed (a check or a tender): the badge follows at once.
    const processor = e.data as unknown as Sale['allowed']['processor'];
    k.set({ ...(s.register ? { register: { ...s.register, processor } } : {}), ...(s.sale ? { sale: { ...s.sale, allowed: { ...s.sale.allowed, processor } } } : {}) });
  } else if (e.type === 'sync.status') {
    void refreshSync(k);
  } else if (e.type === 'stream.resync') {
    // Away too long for the server to replay what was missed: read the lanes and the sale again.
    void refreshAfterOutage(k);
    void refreshSync(k);
  } else if (e.type === 'drawer.opened' && e.data?.laneid === s.laneid) {
    k.set({ drawer: { at: Date.now(), reason: String(e.data.reason ?? '') } });
  } else if (e.entity === 'pos_sale' && s.sale && e.key === s.sale.id && !s.busy && s.api) {
    // Changed elsewhere (another screen, a recovered payment, a payment followed after a reload).
    const api = s.api;
    const asked = k.changes;
    void api.sale(e.key).then(async (sale) => {
      // A change of this screen's own sent meanwhile answered with a newer sale than this read.
      if (k.get().sale?.id !== sale.id || k.get().busy || k.changes !== asked) return;
      if (k.get().card?.following) return settleFollowed(k, api, sale);
      if (sale.status === 'open') k.set({ sale });
      // Paid elsewhere (a recovered payment): its receipt, never an empty screen as if nothing had been sold.
      else if (sale.status === 'paid') await finish(k, api, sale, `Sale ${sale.number} is paid.`, { elsewhere: true });
      else closedElsewhere(k, sale);
    }).catch(() => undefined);
  }
}

/** The lane's sync with its hub, for the status badge; a credential that may not read it shows none. */
export async function refreshSync(k: PosKit): Promise<void> {
  const api = k.get().api;
  if (!api) return;
  try {
    k.set({ sync: (await api.syncStatus()).peers });
  } catch {
    k.set({ sync: null });
  }
}
