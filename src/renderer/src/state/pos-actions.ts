import { ApiError, type Credentials } from '../api/client';
import { followEvents } from '../api/events';
import { posApi, type PosApi, type Shift } from '../api/pos';
import type { CardFlow, PosState } from './pos-model';
import { finish, follow, LANE_KEY, laneMap, load, onError, onEvent, refreshSync, rememberSale, saveShift, serverAnswered, SHIFT_KEY, type PosKit } from './pos-effects';

type Actions<K extends keyof PosState> = Pick<PosState, K>;

/** Starting up, the lane, the cashier's shift. */
export function sessionActions(k: PosKit): Actions<'start' | 'pickLane' | 'changeLane' | 'signIn' | 'signOut'> {
  const { set, get } = k;
  return {
    start: (creds) => start(k, creds),
    pickLane: (laneid) => pickLane(k, laneid),

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
        serverAnswered(k);
        saveShift(shift);
        const register = await api.register(laneid);
        set({ shift, register, sale: register.open_sale, view: 'sale', busy: false });
        return true;
      } catch (err) {
        set({ busy: false });
        onError(k, err);
        return false;
      }
    },

    async signOut() {
      const { api, shift, laneid } = get();
      if (api && shift) await api.signOut(shift.id).catch(() => undefined);
      saveShift(null);
      rememberSale(null);
      // The lane as it is now, not as it was read when this cashier signed in (it named them as
      // signed in here): until it is read again, the code prompt says nothing of who is.
      set({ shift: null, view: 'signin', dialog: null, sale: null, register: null, notice: { kind: 'info', text: 'Signed out.' } });
      if (!api || !laneid) return;
      try {
        const register = await api.register(laneid);
        serverAnswered(k);
        if (!get().shift && get().laneid === laneid) set({ register });
      } catch (err) {
        onError(k, err);
      }
    },
  };
}

function start(k: PosKit, creds: Credentials): () => void {
  const { set, get } = k;
  const api = posApi(creds);
  const storedShift = load(SHIFT_KEY, sessionStorage);
  const shift = storedShift ? (JSON.parse(storedShift) as Shift) : null;
  // What this page showed before (the screen signed out of Laneway and in again, a session that
  // ended) is not the lane as it is now: its code prompt or its sale is not offered until the lane
  // has been read again. Left up, it took a cashier's code and scans while that read was out, and
  // the read, answered after them, put back the sale as it was before the scans: an empty "New
  // sale" while the server held every line, rescanned and charged twice.
  set({ api, shift, view: 'lanes', lanes: {}, lanesLoaded: false, register: null, sale: null, selected: null, dialog: null, card: null });
  void refreshSync(k);
  void (async () => {
    try {
      const { lanes } = await api.lanes();
      serverAnswered(k);
      set({ lanes: laneMap(lanes), lanesLoaded: true });
      const laneid = get().laneid;
      if (laneid && lanes.some((l) => l.laneid === laneid)) await get().pickLane(laneid);
      else set({ laneid: null, view: 'lanes' });
    } catch (err) {
      set({ lanesLoaded: true });
      onError(k, err);
    }
  })();
  return followEvents(
    creds,
    (e) => onEvent(k, e),
    (live) => {
      set({ live });
      if (live) serverAnswered(k);
      else if (get().server === 'up') set({ server: 'down' });
    },
    // The server answered, refusing: a session that ended goes to sign-in saying so (onError), as a refused call does.
    (err) => {
      set({ live: false });
      onError(k, err);
    },
  );
}

async function pickLane(k: PosKit, laneid: string): Promise<void> {
  const { set, get } = k;
  const api = get().api;
  if (!api) return;
  try {
    const register = await api.register(laneid);
    localStorage.setItem(LANE_KEY, laneid);
    const shift = get().shift;
    const mine = shift && shift.laneid === laneid ? shift : null;
    if (!mine) saveShift(null);
    const sale = mine ? register.open_sale : null;
    const resume = k.resumeSale;
    k.resumeSale = null;
    // A card payment still running on the lane (the page was reloaded meanwhile): follow it to its end.
    const pending = sale?.pending_tender ? sale.tenders.find((t) => t.id === sale.pending_tender) : undefined;
    const card: CardFlow | null = pending?.type === 'card' ? { phase: 'waiting', amount_cents: pending.amount_cents, manual: false, following: { tender: pending.id } } : null;
    set({ laneid, register, shift: mine, sale, view: mine ? 'sale' : 'signin', notice: null, card, dialog: card ? { kind: 'card' } : null });
    if (card) follow(k);
    if (sale) rememberSale(sale.id);
    else if (mine && resume) await resumeAfterReload(k, api, laneid, resume);
  } catch (err) {
    onError(k, err);
  }
}

/**
 * The sale this screen showed before the reload is no longer open: it was paid (or voided)
 * meanwhile. Its receipt comes up, as it would have without the reload.
 */
async function resumeAfterReload(k: PosKit, api: PosApi, laneid: string, resume: string): Promise<void> {
  const before = await api.sale(resume).catch(() => null);
  if (before && before.laneid === laneid && before.status === 'paid') {
    const paidBy = [...before.tenders].reverse().find((t) => t.status === 'approved');
    await finish(k, api, before, paidBy ? `${paidBy.label}: approved.` : `Sale ${before.number} is paid.`);
  } else rememberSale(null);
}

/** What the screen shows: the view, the dialog, the selected line, a notice. */
export function screenActions(k: PosKit): Actions<'go' | 'setDialog' | 'select' | 'notify' | 'newSale' | 'refreshRegister'> {
  const { set, get } = k;
  return {
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
        onError(k, err);
      }
    },
  };
}

/** Runs a register call: busy while it runs, its error shown in plain words. */
export function runAction(k: PosKit): PosState['run'] {
  const { set, get } = k;
  return async (fn, options = {}) => {
    const { api, shift } = get();
    if (!api || !shift) return undefined;
    // The drawer notice belonged to the step before; an opening for this one announces itself by its event.
    set(options.movesMoney ? { busy: true, drawer: null } : { busy: true });
    try {
      const out = await fn(api, shift);
      serverAnswered(k);
      if (get().notice?.kind === 'error') set({ notice: null });
      return out;
    } catch (err) {
      onError(k, err);
      return undefined;
    } finally {
      set({ busy: false });
    }
  };
}

/** A card tender on the lane's terminal, followed to its end even when its answer is lost. */
export function cardActions(k: PosKit): Actions<'payCard' | 'cancelCard'> {
  const { get } = k;
  return {
    payCard: (amount_cents, manual) => payCard(k, amount_cents, manual),
    async cancelCard() {
      const { api, laneid } = get();
      if (!api || !laneid) return;
      await api.cancelOnTerminal(laneid).catch(() => undefined);
    },
  };
}

async function payCard(k: PosKit, amount_cents: number, manual: boolean): Promise<void> {
  const { set, get } = k;
  const { api, shift } = get();
  const current = get().sale;
  if (!current || !api || !shift) return;
  k.changes++;
  set({ card: { phase: 'waiting', amount_cents, manual }, dialog: { kind: 'card' }, notice: null, busy: true, drawer: null });
  try {
    const out = await api.tender(current.id, { shift: shift.id, type: 'card', amount_cents, ...(manual ? { manual_entry: true } : {}) });
    serverAnswered(k);
    if (out.sale.status === 'paid') {
      await finish(k, api, out.sale, out.message);
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
      follow(k);
      return;
    }
    onError(k, err);
    set({ card: { phase: 'result', amount_cents, manual, outcome: { approved: false, message: e.message, code: e.code } }, notice: null });
  } finally {
    set({ busy: false });
  }
}

/** A register call that changes the sale on screen: a read of the sale sent before it is older than its answer. */
function change<T>(k: PosKit, fn: (api: PosApi, shift: Shift) => Promise<T>, options?: { movesMoney?: boolean }): Promise<T | undefined> {
  k.changes++;
  return k.get().run(fn, options);
}

/** The sale's lines and tenders: each a register call, the sale answered put on screen. */
export function saleActions(k: PosKit): Actions<'scan' | 'addOpen' | 'changeLine' | 'voidLine' | 'voidSale' | 'tender'> {
  const { set, get } = k;
  return {
    async scan(text) {
      const value = text.trim();
      if (!value) return false;
      const sale = await change(k, async (api, shift) => {
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
      const sale = await change(k, async (api, shift) => {
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
      const sale = await change(k, (api, shift) => api.changeLine(current.id, line, { shift: shift.id, ...body }));
      if (!sale) return false;
      set({ sale, dialog: null, notice: null });
      return true;
    },

    async voidLine(line) {
      const current = get().sale;
      if (!current) return;
      const sale = await change(k, (api, shift) => api.voidLine(current.id, line, shift.id));
      if (sale) set({ sale, dialog: null, notice: { kind: 'info', text: `Line ${line} voided.` } });
    },

    voidSale: (approvalCode) => voidSale(k, approvalCode),
    tender: (input) => tender(k, input),
  };
}

async function voidSale(k: PosKit, approvalCode?: string): Promise<void> {
  const { set, get } = k;
  const current = get().sale;
  if (!current) return;
  const out = await change(k, (api, shift) => api.voidSale(current.id, shift.id, approvalCode), { movesMoney: true });
  if (!out) return;
  if (out.reversal) {
    const api = get().api!;
    const receipt = await api.receipt(current.id, { reversal: out.reversal.number });
    set({ sale: null, selected: null, dialog: null, done: { sale: out.sale, receipt, message: out.message }, view: 'receipt' });
  } else {
    rememberSale(null);
    set({ sale: null, selected: null, dialog: null, notice: { kind: 'info', text: out.message } });
  }
}

async function tender(k: PosKit, input: Parameters<PosState['tender']>[0]): Promise<boolean> {
  const { set, get } = k;
  const current = get().sale;
  if (!current) return false;
  const out = await change(k, (api, shift) => api.tender(current.id, { shift: shift.id, ...input }), { movesMoney: true });
  if (!out) return false;
  if (out.sale.status === 'paid') {
    await finish(k, get().api!, out.sale, out.message);
    return true;
  }
  set({ sale: out.sale, dialog: null, notice: { kind: out.tender.status === 'approved' ? 'ok' : 'error', text: out.message } });
  return out.tender.status === 'approved';
}
