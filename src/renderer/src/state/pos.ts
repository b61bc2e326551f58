import { create } from 'zustand';
import { ApiError, type Credentials } from '../api/client';
import { followEvents, type LiveEvent } from '../api/events';
import { posApi, type LineChange, type PosApi, type Receipt, type Register, type Sale, type Shift } from '../api/pos';
import type { TenderInput } from '../../../shared/schemas/register';

const LANE_KEY = 'laneway.lane';
const SHIFT_KEY = 'laneway.shift';
/** The sale this screen shows (open, or paid with its receipt up): found again after a reload. */
const SALE_KEY = 'laneway.sale';
const FOLLOW_EVERY_MS = 1000;

export type View = 'lanes' | 'signin' | 'sale' | 'receipt' | 'sales' | 'eod' | 'status';

export type Dialog =
  | { kind: 'search' }
  | { kind: 'open-item' }
  | { kind: 'line'; line: number }
  | { kind: 'void-line'; line: number }
  | { kind: 'void-sale' }
  | { kind: 'cash' }
  | { kind: 'card' }
  | { kind: 'other' }
  | { kind: 'menu' }
  | { kind: 'help' };

export interface LaneLive {
  laneid: string;
  name: string;
  status: string;
  activity: string;
  last_error: string | null;
}

export interface CardOutcome {
  approved: boolean;
  message: string;
  /** Why it was not approved: `declined`, `cancelled`, `lane_offline`, `timeout`... (the engine's codes). */
  code: string | null;
}

export interface CardFlow {
  phase: 'waiting' | 'result';
  amount_cents: number;
  manual: boolean;
  /**
   * The card tender followed from the engine's record, not from this screen's request: after a
   * reload, or when the answer to the request was lost. Its outcome is read from the sale.
   */
  following?: { tender: string | null; known?: string[] };
  outcome?: CardOutcome;
}

/** Whether the Laneway server answers: unknown until the first answer, down after a network failure. */
export type ServerState = 'unknown' | 'up' | 'down';

export interface Notice {
  kind: 'error' | 'info' | 'ok';
  text: string;
}

interface PosState {
  api: PosApi | null;
  lanes: Record<string, LaneLive>;
  lanesLoaded: boolean;
  laneid: string | null;
  shift: Shift | null;
  register: Register | null;
  view: View;
  sale: Sale | null;
  selected: number | null;
  dialog: Dialog | null;
  card: CardFlow | null;
  done: { sale: Sale; receipt: Receipt; message: string } | null;
  notice: Notice | null;
  busy: boolean;
  live: boolean;
  server: ServerState;
  drawer: { at: number; reason: string } | null;

  start(creds: Credentials): () => void;
  pickLane(laneid: string): Promise<void>;
  changeLane(): void;
  signIn(code: string): Promise<boolean>;
  signOut(): Promise<void>;
  go(view: View): void;
  setDialog(dialog: Dialog | null): void;
  select(line: number | null): void;
  notify(notice: Notice | null): void;
  /**
   * Runs a register call: busy while it runs, its error shown in plain words. `movesMoney`: a
   * tender, void or refund, after which the drawer notice of an earlier step no longer applies.
   */
  run<T>(fn: (api: PosApi, shift: Shift) => Promise<T>, options?: { movesMoney?: boolean }): Promise<T | undefined>;
  scan(text: string): Promise<boolean>;
  addOpen(description: string, unit_price_cents: number, tax_rate: number | undefined): Promise<boolean>;
  changeLine(line: number, body: LineChange): Promise<boolean>;
  voidLine(line: number): Promise<void>;
  voidSale(): Promise<void>;
  tender(input: Omit<TenderInput, 'shift'>): Promise<boolean>;
  payCard(amount_cents: number, manual: boolean): Promise<void>;
  cancelCard(): Promise<void>;
  newSale(): void;
  refreshRegister(): Promise<void>;
}

function load(key: string, store: Storage): string | null {
  try {
    return store.getItem(key);
  } catch {
    return null;
  }
}

export const usePos = create<PosState>((set, get) => {
  const saveShift = (shift: Shift | null) => {
    if (shift) sessionStorage.setItem(SHIFT_KEY, JSON.stringify(shift));
    else sessionStorage.removeItem(SHIFT_KEY);
  };
  // Read once: the store's first changes would otherwise overwrite it before the lane is back.
  let resumeSale = load(SALE_KEY, sessionStorage);
  const rememberSale = (id: string | null) => {
    try {
      if (id) sessionStorage.setItem(SALE_KEY, id);
      else sessionStorage.removeItem(SALE_KEY);
    } catch {
      // storage unavailable: a reload then starts from the register's own record only
    }
  };

  const serverAnswered = () => {
    if (get().server === 'up') return;
    const wasDown = get().server === 'down';
    set({ server: 'up' });
    if (wasDown) void refreshAfterOutage();
  };

  const onError = (err: unknown) => {
    const e = err instanceof ApiError ? err : new ApiError(0, 'unknown', (err as Error).message);
    if (e.code === 'network') {
      // Shown once, as the server's state (banner, badge, disabled tenders), and gone when it answers.
      set({ server: 'down' });
      return;
    }
    serverAnswered();
    if (e.code === 'shift_closed' || e.code === 'shift_not_found') {
      saveShift(null);
      set({ shift: null, view: 'signin', dialog: null, card: null, sale: null, notice: { kind: 'error', text: e.message } });
      return;
    }
    set({ notice: { kind: 'error', text: e.message } });
  };

  const finish = async (api: PosApi, sale: Sale, message: string) => {
    const receipt = await api.receipt(sale.id);
    rememberSale(sale.id);
    set({ sale: null, selected: null, dialog: null, card: null, notice: null, done: { sale, receipt, message }, view: 'receipt' });
  };

  /** What a followed card tender came to, read from the engine's record of the sale. */
  const settleFollowed = async (api: PosApi, sale: Sale) => {
    const s = get();
    const card = s.card;
    if (!card?.following || s.sale?.id !== sale.id) return;
    if (sale.pending_tender) {
      set({ sale });
      return;
    }
    const { tender: id, known = [] } = card.following;
    const tender = id ? sale.tenders.find((t) => t.id === id) : [...sale.tenders].reverse().find((t) => t.type === 'card' && !known.includes(t.id));
    if (!tender && sale.status === 'open') {
      // The request never reached the engine: nothing was started on the terminal.
      set({ sale, card: { phase: 'result', amount_cents: card.amount_cents, manual: card.manual, outcome: { approved: false, message: 'The payment did not reach Laneway, so nothing was charged. Try again once it answers.', code: 'network' } } });
      return;
    }
    const approved = tender?.status === 'approved';
    if (sale.status === 'paid') {
      await finish(api, sale, approved ? `${tender!.label}: approved.` : `Sale ${sale.number} is paid.`);
      return;
    }
    if (sale.status !== 'open') {
      rememberSale(null);
      set({ sale: null, selected: null, dialog: null, card: null, notice: { kind: 'info', text: `Sale ${sale.number} was ${sale.status.replace('_', ' ')} from another screen.` } });
      return;
    }
    const outcome: CardOutcome = approved
      ? { approved: true, message: `${tender!.label}: approved.`, code: null }
      : { approved: false, message: tender?.error?.message ?? 'The card payment did not go through. Nothing was charged.', code: tender?.error?.code ?? (tender?.status === 'declined' ? 'declined' : null) };
    set({ sale, card: { phase: 'result', amount_cents: card.amount_cents, manual: card.manual, outcome } });
  };

  // While a card tender is followed, the sale is read again every second too: an event missed
  // while the page loaded or the server restarted must not leave the screen waiting forever.
  let followTimer: ReturnType<typeof setInterval> | null = null;
  const follow = () => {
    if (followTimer) return;
    followTimer = setInterval(() => {
      const { api, card, sale } = get();
      if (!api || !sale || !card?.following) {
        if (followTimer) clearInterval(followTimer);
        followTimer = null;
        return;
      }
      void api
        .sale(sale.id)
        .then((fresh) => {
          serverAnswered();
          return settleFollowed(api, fresh);
        })
        .catch(onError);
    }, FOLLOW_EVERY_MS);
  };

  /** After the server was unreachable: the lanes' and the sale's state may have moved meanwhile. */
  const refreshAfterOutage = async () => {
    const { api, laneid } = get();
    if (!api) return;
    try {
      const { lanes } = await api.lanes();
      set({ lanes: Object.fromEntries(lanes.map((l) => [l.laneid, { laneid: l.laneid, name: l.name, status: l.status, activity: l.activity, last_error: l.last_error }])) });
      if (laneid && get().shift && get().view === 'sale' && !get().card?.following) {
        const register = await api.register(laneid);
        set({ register, sale: register.open_sale });
      }
    } catch (err) {
      onError(err);
    }
  };

  const onEvent = (e: LiveEvent) => {
    const s = get();
    if (e.entity === 'lane' && e.data) {
      const d = e.data as Partial<LaneLive>;
      if (e.type === 'lane.deleted') {
        const { [e.key]: _gone, ...rest } = s.lanes;
        set({ lanes: rest });
        return;
      }
      set({ lanes: { ...s.lanes, [e.key]: { ...(s.lanes[e.key] ?? { laneid: e.key, name: e.key, status: 'offline', activity: 'idle', last_error: null }), ...d } as LaneLive } });
    } else if (e.type === 'drawer.opened' && e.data?.laneid === s.laneid) {
      set({ drawer: { at: Date.now(), reason: String(e.data.reason ?? '') } });
    } else if (e.entity === 'pos_sale' && s.sale && e.key === s.sale.id && !s.busy && s.api) {
      // Changed elsewhere (another screen, a recovered payment, a payment followed after a reload).
      const api = s.api;
      void api.sale(e.key).then(async (sale) => {
        if (get().sale?.id !== sale.id || get().busy) return;
        if (get().card?.following) return settleFollowed(api, sale);
        if (sale.status === 'open') set({ sale });
        // Paid elsewhere (a recovered payment): its receipt, never an empty screen as if nothing had been sold.
        else if (sale.status === 'paid') await finish(api, sale, `Sale ${sale.number} is paid.`);
        else {
          rememberSale(null);
          set({ sale: null, selected: null, dialog: null, card: null, notice: { kind: 'info', text: `Sale ${sale.number} was ${sale.status.replace('_', ' ')} from another screen.` } });
        }
      }).catch(() => undefined);
    }
  };

  const laneMap = (lanes: Array<{ laneid: string; name: string; status: string; activity: string; last_error: string | null }>) =>
    Object.fromEntries(lanes.map((l) => [l.laneid, { laneid: l.laneid, name: l.name, status: l.status, activity: l.activity, last_error: l.last_error }]));

  return {
    api: null,
    lanes: {},
    lanesLoaded: false,
    laneid: load(LANE_KEY, localStorage),
    shift: null,
    register: null,
    view: 'lanes',
    sale: null,
    selected: null,
    dialog: null,
    card: null,
    done: null,
    notice: null,
    busy: false,
    live: false,
    server: 'unknown',
    drawer: null,

    start(creds) {
      const api = posApi(creds);
      const storedShift = load(SHIFT_KEY, sessionStorage);
      const shift = storedShift ? (JSON.parse(storedShift) as Shift) : null;
      set({ api, shift });
      void (async () => {
        try {
          const { lanes } = await api.lanes();
          serverAnswered();
          set({ lanes: laneMap(lanes), lanesLoaded: true });
          const laneid = get().laneid;
          if (laneid && lanes.some((l) => l.laneid === laneid)) await get().pickLane(laneid);
          else set({ laneid: null, view: 'lanes' });
        } catch (err) {
          set({ lanesLoaded: true });
          onError(err);
        }
      })();
      return followEvents(creds, onEvent, (live) => {
        set({ live });
        if (live) serverAnswered();
        else if (get().server === 'up') set({ server: 'down' });
      });
    },

    async pickLane(laneid) {
      const api = get().api;
      if (!api) return;
      try {
        const register = await api.register(laneid);
        localStorage.setItem(LANE_KEY, laneid);
        const shift = get().shift;
        const mine = shift && shift.laneid === laneid ? shift : null;
        if (!mine) saveShift(null);
        const sale = mine ? register.open_sale : null;
        const resume = resumeSale;
        resumeSale = null;
        // A card payment still running on the lane (the page was reloaded meanwhile): follow it to its end.
        const pending = sale?.pending_tender ? sale.tenders.find((t) => t.id === sale.pending_tender) : undefined;
        const card: CardFlow | null = pending?.type === 'card' ? { phase: 'waiting', amount_cents: pending.amount_cents, manual: false, following: { tender: pending.id } } : null;
        set({ laneid, register, shift: mine, sale, view: mine ? 'sale' : 'signin', notice: null, card, dialog: card ? { kind: 'card' } : null });
        if (card) follow();
        if (sale) rememberSale(sale.id);
        else if (mine && resume) {
          // The sale this screen showed before the reload is no longer open: it was paid (or voided)
          // meanwhile. Its receipt comes up, as it would have without the reload.
          const before = await api.sale(resume).catch(() => null);
          if (before && before.laneid === laneid && before.status === 'paid') {
            const paidBy = [...before.tenders].reverse().find((t) => t.status === 'approved');
            await finish(api, before, paidBy ? `${paidBy.label}: approved.` : `Sale ${before.number} is paid.`);
          } else rememberSale(null);
        }
      } catch (err) {
        onError(err);
      }
    },

    changeLane() {
      localStorage.removeItem(LANE_KEY);
      rememberSale(null);
      set({ laneid: null, register: null, view: 'lanes', dialog: null, sale: null, notice: null });
    },

    async signIn(code) {
      const { api, laneid } = get();
      if (!api || !laneid) return false;
      set({ busy: true, notice: null });
      try {
        const shift = await api.signIn(laneid, code);
        serverAnswered();
        saveShift(shift);
        const register = await api.register(laneid);
        set({ shift, register, sale: register.open_sale, view: 'sale', busy: false });
        return true;
      } catch (err) {
        set({ busy: false });
        onError(err);
        return false;
      }
    },

    async signOut() {
      const { api, shift } = get();
      if (api && shift) await api.signOut(shift.id).catch(() => undefined);
      saveShift(null);
      rememberSale(null);
      set({ shift: null, view: 'signin', dialog: null, sale: null, notice: { kind: 'info', text: 'Signed out.' } });
    },

    go(view) {
      set({ view, dialog: null, notice: null, drawer: null });
    },
    setDialog(dialog) {
      // A dialog is the cashier's next step: an error about the step before no longer applies.
      set(dialog && get().notice?.kind === 'error' ? { dialog, notice: null } : { dialog });
    },
    select(line) {
      set({ selected: line });
    },
    notify(notice) {
      set({ notice });
    },

    async run(fn, options = {}) {
      const { api, shift } = get();
      if (!api || !shift) return undefined;
      // The drawer notice belonged to the step before; an opening for this one announces itself by its event.
      set(options.movesMoney ? { busy: true, drawer: null } : { busy: true });
      try {
        const out = await fn(api, shift);
        serverAnswered();
        if (get().notice?.kind === 'error') set({ notice: null });
        return out;
      } catch (err) {
        onError(err);
        return undefined;
      } finally {
        set({ busy: false });
      }
    },

    async scan(text) {
      const value = text.trim();
      if (!value) return false;
      const sale = await get().run(async (api, shift) => {
        const current = get().sale;
        const line = { scan: value };
        return current ? api.addLine(current.id, shift.id, line) : api.startSale(shift.id, line);
      });
      if (!sale) return false;
      rememberSale(sale.id);
      set({ sale, selected: sale.lines[sale.lines.length - 1]?.line ?? null, notice: null, done: null });
      return true;
    },

    async addOpen(description, unit_price_cents, tax_rate) {
      const sale = await get().run(async (api, shift) => {
        const current = get().sale;
        const line = { open: { description, unit_price_cents, ...(tax_rate !== undefined ? { tax_rate } : {}) } };
        return current ? api.addLine(current.id, shift.id, line) : api.startSale(shift.id, line);
      });
      if (!sale) return false;
      rememberSale(sale.id);
      set({ sale, selected: sale.lines[sale.lines.length - 1]?.line ?? null, dialog: null, notice: null });
      return true;
    },

    async changeLine(line, body) {
      const current = get().sale;
      if (!current) return false;
      const sale = await get().run((api, shift) => api.changeLine(current.id, line, { shift: shift.id, ...body }));
      if (!sale) return false;
      set({ sale, dialog: null, notice: null });
      return true;
    },

    async voidLine(line) {
      const current = get().sale;
      if (!current) return;
      const sale = await get().run((api, shift) => api.voidLine(current.id, line, shift.id));
      if (sale) set({ sale, dialog: null, notice: { kind: 'info', text: `Line ${line} voided.` } });
    },

    async voidSale() {
      const current = get().sale;
      if (!current) return;
      const out = await get().run((api, shift) => api.voidSale(current.id, shift.id), { movesMoney: true });
      if (!out) return;
      if (out.reversal) {
        const api = get().api!;
        const receipt = await api.receipt(current.id, { reversal: out.reversal.number });
        set({ sale: null, selected: null, dialog: null, done: { sale: out.sale, receipt, message: out.message }, view: 'receipt' });
      } else {
        rememberSale(null);
        set({ sale: null, selected: null, dialog: null, notice: { kind: 'info', text: out.message } });
      }
    },

    async tender(input) {
      const current = get().sale;
      if (!current) return false;
      const out = await get().run((api, shift) => api.tender(current.id, { shift: shift.id, ...input }), { movesMoney: true });
      if (!out) return false;
      if (out.sale.status === 'paid') {
        await finish(get().api!, out.sale, out.message);
        return true;
      }
      set({ sale: out.sale, dialog: null, notice: { kind: out.tender.status === 'approved' ? 'ok' : 'error', text: out.message } });
      return out.tender.status === 'approved';
    },

    async payCard(amount_cents, manual) {
      const { api, shift } = get();
      const current = get().sale;
      if (!current || !api || !shift) return;
      set({ card: { phase: 'waiting', amount_cents, manual }, dialog: { kind: 'card' }, notice: null, busy: true, drawer: null });
      try {
        const out = await api.tender(current.id, { shift: shift.id, type: 'card', amount_cents, ...(manual ? { manual_entry: true } : {}) });
        serverAnswered();
        if (out.sale.status === 'paid') {
          await finish(api, out.sale, out.message);
          return;
        }
        const approved = out.tender.status === 'approved';
        set({ sale: out.sale, card: { phase: 'result', amount_cents, manual, outcome: { approved, message: out.message, code: out.tender.error?.code ?? (out.tender.status === 'declined' ? 'declined' : null) } } });
      } catch (err) {
        const e = err instanceof ApiError ? err : new ApiError(0, 'unknown', (err as Error).message);
        if (e.code === 'network') {
          // The answer was lost, not the payment: it may still be approved on the terminal. Follow
          // it from the engine's record once the server answers, never offer to charge again blind.
          set({ server: 'down', card: { phase: 'waiting', amount_cents, manual, following: { tender: null, known: current.tenders.map((t) => t.id) } } });
          follow();
          return;
        }
        onError(err);
        set({ card: { phase: 'result', amount_cents, manual, outcome: { approved: false, message: e.message, code: e.code } }, notice: null });
      } finally {
        set({ busy: false });
      }
    },

    async cancelCard() {
      const { api, laneid } = get();
      if (!api || !laneid) return;
      await api.cancelOnTerminal(laneid).catch(() => undefined);
    },

    newSale() {
      rememberSale(null);
      set({ done: null, view: 'sale', notice: null, selected: null, drawer: null });
    },

    async refreshRegister() {
      const { api, laneid } = get();
      if (!api || !laneid) return;
      try {
        set({ register: await api.register(laneid) });
      } catch (err) {
        onError(err);
      }
    },
  };
});
