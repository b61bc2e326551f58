import { create } from 'zustand';
import { ApiError, type Credentials } from '../api/client';
import { followEvents, type LiveEvent } from '../api/events';
import { posApi, type PosApi, type Receipt, type Register, type Sale, type Shift } from '../api/pos';
import type { TenderInput } from '../../../shared/schemas/register';

const LANE_KEY = 'laneway.lane';
const SHIFT_KEY = 'laneway.shift';

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

export interface CardFlow {
  phase: 'waiting' | 'result';
  amount_cents: number;
  manual: boolean;
  outcome?: { approved: boolean; message: string };
}

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
  /** Runs a register call: busy while it runs, its error shown in plain words. */
  run<T>(fn: (api: PosApi, shift: Shift) => Promise<T>): Promise<T | undefined>;
  scan(text: string): Promise<boolean>;
  addOpen(description: string, unit_price_cents: number, tax_rate: number | undefined): Promise<boolean>;
  changeLine(line: number, body: Record<string, unknown>): Promise<boolean>;
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

  const onError = (err: unknown) => {
    const e = err instanceof ApiError ? err : new ApiError(0, 'unknown', (err as Error).message);
    if (e.code === 'shift_closed' || e.code === 'shift_not_found') {
      saveShift(null);
      set({ shift: null, view: 'signin', dialog: null, card: null, sale: null, notice: { kind: 'error', text: e.message } });
      return;
    }
    set({ notice: { kind: 'error', text: e.message } });
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
      // Changed elsewhere (another screen, a recovered payment): show the engine's version.
      void s.api.sale(e.key).then((sale) => {
        if (get().sale?.id === sale.id && !get().busy) set({ sale: sale.status === 'open' ? sale : null });
      }).catch(() => undefined);
    }
  };

  const finish = async (api: PosApi, sale: Sale, message: string) => {
    const receipt = await api.receipt(sale.id);
    set({ sale: null, selected: null, dialog: null, card: null, done: { sale, receipt, message }, view: 'receipt' });
  };

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
    drawer: null,

    start(creds) {
      const api = posApi(creds);
      const storedShift = load(SHIFT_KEY, sessionStorage);
      const shift = storedShift ? (JSON.parse(storedShift) as Shift) : null;
      set({ api, shift });
      void (async () => {
        try {
          const { lanes } = await api.lanes();
          set({ lanes: Object.fromEntries(lanes.map((l) => [l.laneid, { laneid: l.laneid, name: l.name, status: l.status, activity: l.activity, last_error: l.last_error }])), lanesLoaded: true });
          const laneid = get().laneid;
          if (laneid && lanes.some((l) => l.laneid === laneid)) await get().pickLane(laneid);
          else set({ laneid: null, view: 'lanes' });
        } catch (err) {
          set({ lanesLoaded: true });
          onError(err);
        }
      })();
      return followEvents(creds, onEvent, (live) => set({ live }));
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
        set({ laneid, register, shift: mine, sale: mine ? register.open_sale : null, view: mine ? 'sale' : 'signin', notice: null });
      } catch (err) {
        onError(err);
      }
    },

    changeLane() {
      localStorage.removeItem(LANE_KEY);
      set({ laneid: null, register: null, view: 'lanes', dialog: null, sale: null, notice: null });
    },

    async signIn(code) {
      const { api, laneid } = get();
      if (!api || !laneid) return false;
      set({ busy: true, notice: null });
      try {
        const shift = await api.signIn(laneid, code);
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
      set({ shift: null, view: 'signin', dialog: null, sale: null, notice: { kind: 'info', text: 'Signed out.' } });
    },

    go(view) {
      set({ view, dialog: null, notice: null });
    },
    setDialog(dialog) {
      set({ dialog });
    },
    select(line) {
      set({ selected: line });
    },
    notify(notice) {
      set({ notice });
    },

    async run(fn) {
      const { api, shift } = get();
      if (!api || !shift) return undefined;
      set({ busy: true });
      try {
        return await fn(api, shift);
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
      const out = await get().run((api, shift) => api.voidSale(current.id, shift.id));
      if (!out) return;
      if (out.reversal) {
        const api = get().api!;
        const receipt = await api.receipt(current.id, { reversal: out.reversal.number });
        set({ sale: null, selected: null, dialog: null, done: { sale: out.sale, receipt, message: out.message }, view: 'receipt' });
      } else set({ sale: null, selected: null, dialog: null, notice: { kind: 'info', text: out.message } });
    },

    async tender(input) {
      const current = get().sale;
      if (!current) return false;
      const out = await get().run((api, shift) => api.tender(current.id, { shift: shift.id, ...input }));
      if (!out) return false;
      if (out.sale.status === 'paid') {
        await finish(get().api!, out.sale, out.message);
        return true;
      }
      set({ sale: out.sale, dialog: null, notice: { kind: out.tender.status === 'approved' ? 'ok' : 'error', text: out.message } });
      return out.tender.status === 'approved';
    },

    async payCard(amount_cents, manual) {
      const current = get().sale;
      if (!current) return;
      set({ card: { phase: 'waiting', amount_cents, manual }, dialog: { kind: 'card' }, notice: null });
      const out = await get().run((api, shift) => api.tender(current.id, { shift: shift.id, type: 'card', amount_cents, ...(manual ? { manual_entry: true } : {}) }));
      if (!out) {
        set({ card: { phase: 'result', amount_cents, manual, outcome: { approved: false, message: get().notice?.text ?? 'The payment did not go through.' } }, notice: null });
        return;
      }
      if (out.sale.status === 'paid') {
        await finish(get().api!, out.sale, out.message);
        return;
      }
      const approved = out.tender.status === 'approved';
      set({ sale: out.sale, card: { phase: 'result', amount_cents, manual, outcome: { approved, message: out.message } } });
    },

    async cancelCard() {
      const { api, laneid } = get();
      if (!api || !laneid) return;
      await api.cancelOnTerminal(laneid).catch(() => undefined);
    },

    newSale() {
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
