import type { Credentials } from '../api/client';
import type { LineChange, PosApi, Receipt, Register, Sale, Shift } from '../api/pos';
import type { TenderInput } from '../../../shared/schemas/register';
import type { SyncStatus } from '../../../shared/schemas/sync';

export type SyncPeer = SyncStatus['peers'][number];

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
  /** An error's stable code from the engine: a dialog shows the errors about its own field inside it, not behind its backdrop. */
  code?: string;
}

export interface PosState {
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
  /** This install's sync peers (GET /api/sync/status), refreshed on each `sync.status` event. */
  sync: SyncPeer[] | null;

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
  /** `approvalCode`: a supervisor's, when money goes back and the cashier is not one. */
  voidSale(approvalCode?: string): Promise<void>;
  tender(input: Omit<TenderInput, 'shift'>): Promise<boolean>;
  payCard(amount_cents: number, manual: boolean): Promise<void>;
  cancelCard(): Promise<void>;
  newSale(): void;
  refreshRegister(): Promise<void>;
}
