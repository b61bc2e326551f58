import type { TenderType } from '../../shared/schemas/register';
import type { Discount } from './money';
import type { TaxMark, TaxTotal } from './taxes';

/**
 * The register's records (all in the shared `records` collection):
 *   pos_product   key product code, ref barcode ('' when none)
 *   pos_cashier   key cashier id, ref the keyed hash of the cashier's code
 *   pos_shift     key shift id, ref laneid
 *   pos_settings  key 'register'
 *   pos_register  key laneid: the lane's register state (period, sequence, open sale)
 *   pos_sale      key sale id (= its order's identifier), ref `<laneid>/<sequence, 8 digits>`
 *   pos_journal   key entry id, ref `<laneid>/<period, 6 digits>`: immutable entries X and Z add up
 *   pos_z         key `<laneid>/<period, 6 digits>`, ref laneid: closed Z reports
 *   pos_drawer    key drawer-open id, ref laneid
 *   pos_document  key a refund's or void's document number (`1-R000001`), ref sale id
 * A sale's tenders and reversals live inside its record: every change to them is one sale update.
 */
export const KIND = {
  product: 'pos_product',
  cashier: 'pos_cashier',
  shift: 'pos_shift',
  settings: 'pos_settings',
  register: 'pos_register',
  sale: 'pos_sale',
  journal: 'pos_journal',
  z: 'pos_z',
  drawer: 'pos_drawer',
  document: 'pos_document',
} as const;

/** A refund's or void's document number → its sale and its number within the sale. */
export interface DocumentData {
  sale: string;
  reversal: number;
}

export interface PersonRef {
  id: string;
  name: string;
}

export interface ProductData {
  code: string;
  description: string;
  price_cents: number;
  /** thousandths of a percent */
  tax_rate: number;
  category: string;
  barcode: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
}

export interface CashierData {
  id: string;
  name: string;
  code_hash: string;
  active: boolean;
  /** Approves money given back (refunds, voids of paid sales). Absent on cashiers made before supervisors: they still approve, so a shop's register works as it did. */
  supervisor?: boolean;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

export interface ShiftData {
  id: string;
  laneid: string;
  /** `supervisor` as the cashier was when they signed in (the screens' hint; the rule reads the cashier). */
  cashier: PersonRef & { supervisor?: boolean };
  opened_at: string;
  closed_at: string | null;
  closed_reason: 'signed_out' | 'replaced' | 'deactivated' | null;
}

export interface SettingsData {
  tenders: Record<TenderType, boolean>;
  other_tenders: string[];
  card_manual_entry: boolean;
  /** thousandths of a percent */
  default_tax_rate: number;
  receipt_footer: string[];
  /** The shop's fixed letter per tax rate (rates in thousandths of a percent), in the order given; absent on installs made before. */
  tax_marks?: TaxMark[];
  /** What a lane may spend of a shared balance while it cannot reach its hub (engine/sync/offline-floor.ts); absent before. */
  offline_floor?: { gift_card_cents: number; customer_credit_cents: number };
  updated_at: string | null;
}

export interface RegisterState {
  laneid: string;
  /** The current period: the number the next Z report will have. */
  period: number;
  period_started_at: string;
  sale_seq: number;
  open_sale: string | null;
  shift: string | null;
  last_z: { number: number; closed_at: string } | null;
  /** Sales with a refund or void whose gateway steps were started from this lane (crash recovery). */
  pending_reversals?: string[];
  /** The lane's last refund and void document numbers (absent: none yet). */
  refund_seq?: number;
  void_seq?: number;
}

export interface LineData {
  line: number;
  product_code: string | null;
  barcode: string | null;
  description: string;
  category: string | null;
  quantity: number;
  list_price_cents: number;
  unit_price_cents: number;
  open_price: boolean;
  price_override: { reason: string; list_price_cents: number; by: PersonRef } | null;
  discount: (Discount & { reason: string | null }) | null;
  tax_rate: number;
  gross_cents: number;
  discount_cents: number;
  net_cents: number;
  tax_cents: number;
  total_cents: number;
  voided: boolean;
  returned_quantity: number;
  /** Net and tax already given back for returned units (cumulative rounding, see returnedPart). */
  returned_net_cents: number;
  returned_tax_cents: number;
}

export interface CardFactsData {
  brand: string;
  masked_number: string | null;
  last4: string;
  entry_mode: string | null;
  aid: string | null;
  application_label: string | null;
  tvr: string | null;
  tsi: string | null;
  cardholder_verification: string | null;
  authorization_code: string | null;
  signature: boolean;
}

export type TenderStatus = 'pending' | 'approved' | 'declined' | 'failed' | 'reversed';

export interface TenderData {
  id: string;
  type: TenderType;
  label: string;
  status: TenderStatus;
  amount_cents: number;
  tendered_cents: number | null;
  change_cents: number;
  tip_cents: number;
  reference: string | null;
  cashier: PersonRef;
  laneid: string;
  transaction: string | null;
  card: CardFactsData | null;
  gift_card_last4: string | null;
  response_code: number | null;
  error: { code: string; message: string } | null;
  refunded_cents: number;
  drawer_opened: boolean;
  created_at: string;
  completed_at: string | null;
  /** Card and gift card tenders: the gateway request, to look the outcome up after a restart. */
  request: { action: 'sale'; reference: string; /** Made on the hub (a lane's gift card: sync/hub-gift-cards.ts). */ via?: 'hub' } | null;
}

export type AllocationMethod = 'void' | 'refund' | 'cash' | 'external';

export interface AllocationData {
  tender: string;
  tender_type: TenderType;
  label: string;
  amount_cents: number;
  method: AllocationMethod;
  status: 'pending' | 'done' | 'failed';
  transaction: string | null;
  error: { code: string; message: string } | null;
  /** The gateway request's transaction_reference (idempotent retries). */
  reference: string | null;
  /** A card tip that goes back too (a void cancels the whole card payment, tip included); absent before tips were counted. */
  tip_cents?: number;
}

export interface ReversalLineData {
  line: number;
  description: string;
  quantity: number;
  net_cents: number;
  tax_cents: number;
  total_cents: number;
}

export interface ReversalData {
  id: string;
  /** 1, 2... within the sale (the API's handle on it). */
  number: number;
  /** Its own document number on the lane: `<laneid>-R<000001>` for a refund, `<laneid>-V<000001>` for a void; absent before reversals had one. */
  document?: string;
  kind: 'refund' | 'void';
  status: 'planned' | 'pending' | 'completed' | 'incomplete';
  reason: string | null;
  lines: ReversalLineData[];
  amount_cents: number;
  refunded_cents: number;
  outstanding_cents: number;
  allocations: AllocationData[];
  cashier: PersonRef;
  /** The supervisor whose code approved it, when its cashier is not one. */
  approved_by?: PersonRef | null;
  laneid: string;
  drawer_opened: boolean;
  created_at: string;
  completed_at: string | null;
}

export type SaleStatus = 'open' | 'paid' | 'voided' | 'partially_refunded' | 'refunded';

export interface SaleData {
  id: string;
  number: string;
  laneid: string;
  status: SaleStatus;
  currency: string;
  cashier: PersonRef;
  lines: LineData[];
  tenders: TenderData[];
  reversals: ReversalData[];
  pending_tender: string | null;
  /** A refund or void whose gateway steps are running. */
  pending_reversal: string | null;
  created_at: string;
  updated_at: string;
  paid_at: string | null;
  voided_at: string | null;
}

/**
 * Who gave back an `outside` entry's money: not a cashier but the back office or an API client (a
 * gateway refund or void of the sale's card payment). X and Z count it as such a "cashier", so the
 * by-cashier figures still add up to the report's.
 */
export const OUTSIDE_REGISTER: PersonRef = { id: 'outside-register', name: 'Back office or API (outside the register)' };

/**
 * `tip_cents` and `transaction` on tender and reversal entries: a card tip on top of the amount (or
 * given back with a void), and the gateway transaction the Z matches against the card batch.
 * Absent on entries written before tips were counted (read as 0 / unknown).
 * `outside` on reversal and sale_reversal entries: money of the lane's sale given back outside the
 * register (reversals.ts, journalOutsideInTx); no goods came back, so no tax and no lines.
 */
export type JournalEntry =
  | { type: 'sale'; sale: string; number: string; cashier: PersonRef; subtotal_cents: number; discount_cents: number; tax_cents: number; total_cents: number; taxes: TaxTotal[]; at: string }
  | { type: 'tender'; sale: string; tender: string; tender_type: TenderType; label: string; cashier: PersonRef; amount_cents: number; tip_cents?: number; transaction?: string | null; at: string }
  | { type: 'declined'; sale: string; tender: string; tender_type: TenderType; cashier: PersonRef; at: string }
  | { type: 'reversal'; sale: string; reversal: string; kind: 'refund' | 'void'; tender: string; tender_type: TenderType; label: string; cashier: PersonRef; amount_cents: number; tip_cents?: number; transaction?: string | null; outside?: true; at: string }
  | { type: 'sale_reversal'; sale: string; kind: 'refund' | 'void'; cashier: PersonRef; total_cents: number; tax_cents: number; taxes: TaxTotal[]; outside?: true; at: string }
  /** An open sale voided before it was paid in full: never a sale, so in no total; what was paid on it went back (its reversal). */
  | { type: 'open_void'; sale: string; number: string; cashier: PersonRef; total_cents: number; at: string }
  | { type: 'drawer'; reason: DrawerReason; cashier: PersonRef; at: string };

export type DrawerReason = 'cash_sale' | 'cash_refund';

export interface DrawerOpening {
  id: string;
  laneid: string;
  reason: DrawerReason;
  sale: string;
  amount_cents: number;
  cashier: PersonRef;
  at: string;
}

export const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const periodRef = (laneid: string, period: number) => `${laneid}/${pad(period, 6)}`;
export const saleRef = (laneid: string, seq: number) => `${laneid}/${pad(seq, 8)}`;
export const saleNumber = (laneid: string, seq: number) => `${laneid}-${pad(seq, 6)}`;
export const reversalDocument = (laneid: string, kind: 'refund' | 'void', seq: number) => `${laneid}-${kind === 'refund' ? 'R' : 'V'}${pad(seq, 6)}`;

/** `<laneid>-<digits>` → the sale's ref, or undefined when it is not a receipt number. */
export function refOfNumber(number: string): string | undefined {
  const m = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,31})-([0-9]{1,8})$/.exec(number.trim());
  return m ? saleRef(m[1]!, Number(m[2])) : undefined;
}
