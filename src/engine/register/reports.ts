import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { RegisterReport, TenderType } from '../../shared/schemas/register';
import { TENDER_TYPES } from '../../shared/schemas/register';
import { KIND, pad, periodRef, type JournalEntry, type PersonRef, type RegisterState } from './model';
import { taxRateToPercent } from './money';
import { markOf, taxedAmounts, taxesByRate, type TaxMark, type TaxedAmount } from './taxes';

/**
 * X and Z reports: the lane's journal for its current period, added up. An X report changes
 * nothing; a Z report records those totals as closed and starts the next period (the lane's
 * journal entries from then on count towards the next Z). Card refunds and voids of the lane's
 * sales made outside the register are in that journal too (reversals.ts, journalOutsideInTx): in
 * the refunds or voids, the card tender's out and the batch reconciliation, and apart in `outside`.
 */
type TenderTotal = RegisterReport['tenders'][number];

interface CashierTotals {
  cashier: PersonRef;
  sales_count: number;
  sales_total_cents: number;
  voids_count: number;
  voids_total_cents: number;
  refunds_count: number;
  refunds_total_cents: number;
  tips_count: number;
  tips_cents: number;
  tenders: Map<string, TenderTotal>;
}

const tenderKey = (type: TenderType, label: string) => `${type}\u0000${label}`;

/** Tips count apart from sales (in, out) but in what the tender holds (net). */
function addTender(map: Map<string, TenderTotal>, type: TenderType, label: string, inCents: number, outCents: number, tipCents: number, count: number): void {
  const key = tenderKey(type, label);
  const t = map.get(key) ?? { type, label, count: 0, in_cents: 0, out_cents: 0, tip_cents: 0, net_cents: 0 };
  t.count += count;
  t.in_cents += inCents;
  t.out_cents += outCents;
  t.tip_cents += tipCents;
  t.net_cents = t.in_cents + t.tip_cents - t.out_cents;
  map.set(key, t);
}

function sortedTenders(map: Map<string, TenderTotal>): TenderTotal[] {
  return [...map.values()].sort((a, b) => TENDER_TYPES.indexOf(a.type) - TENDER_TYPES.indexOf(b.type) || a.label.localeCompare(b.label));
}

function emptyReport(header: { laneid: string; period: number; from: string; to: string; currency: string; kind: 'x' | 'z' }): RegisterReport {
  return {
    ...header,
    sales: { count: 0, subtotal_cents: 0, discount_cents: 0, tax_cents: 0, total_cents: 0 },
    voids: { count: 0, tax_cents: 0, total_cents: 0 },
    open_voids: { count: 0, total_cents: 0 },
    refunds: { count: 0, tax_cents: 0, total_cents: 0 },
    outside: { count: 0, total_cents: 0 },
    net_sales_cents: 0,
    net_tax_cents: 0,
    taxes: [],
    tips: { count: 0, total_cents: 0 },
    tenders: [],
    cash: { in_cents: 0, out_cents: 0, net_cents: 0, drawer_opens: 0 },
    declined: 0,
    cashiers: [],
    z: null,
  };
}

/** The report being summed up, with what it is summed from. */
interface Tally {
  r: RegisterReport;
  tenders: Map<string, TenderTotal>;
  taxed: TaxedAmount[];
  cashiers: Map<string, CashierTotals>;
}

function cashierOf(t: Tally, p: PersonRef): CashierTotals {
  let c = t.cashiers.get(p.id);
  if (!c) {
    c = { cashier: p, sales_count: 0, sales_total_cents: 0, voids_count: 0, voids_total_cents: 0, refunds_count: 0, refunds_total_cents: 0, tips_count: 0, tips_cents: 0, tenders: new Map() };
    t.cashiers.set(p.id, c);
  }
  return c;
}

type Entry<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;

function countSale(t: Tally, e: Entry<'sale'>): void {
  const { r } = t;
  r.sales.count += 1;
  r.sales.subtotal_cents += e.subtotal_cents;
  r.sales.discount_cents += e.discount_cents;
  r.sales.tax_cents += e.tax_cents;
  r.sales.total_cents += e.total_cents;
  t.taxed.push(...taxedAmounts(e.taxes, 1));
  const c = cashierOf(t, e.cashier);
  c.sales_count += 1;
  c.sales_total_cents += e.total_cents;
}

function countSaleReversal(t: Tally, e: Entry<'sale_reversal'>): void {
  const bucket = e.kind === 'void' ? t.r.voids : t.r.refunds;
  bucket.count += 1;
  bucket.total_cents += e.total_cents;
  bucket.tax_cents += e.tax_cents;
  if (e.outside) {
    t.r.outside.count += 1;
    t.r.outside.total_cents += e.total_cents;
  }
  t.taxed.push(...taxedAmounts(e.taxes, -1));
  const c = cashierOf(t, e.cashier);
  if (e.kind === 'void') {
    c.voids_count += 1;
    c.voids_total_cents += e.total_cents;
  } else {
    c.refunds_count += 1;
    c.refunds_total_cents += e.total_cents;
  }
}

function countTender(t: Tally, e: Entry<'tender'>): void {
  const { r } = t;
  const tip = e.tip_cents ?? 0;
  const c = cashierOf(t, e.cashier);
  addTender(t.tenders, e.tender_type, e.label, e.amount_cents, 0, tip, 1);
  addTender(c.tenders, e.tender_type, e.label, e.amount_cents, 0, tip, 1);
  if (tip > 0) {
    r.tips.count += 1;
    c.tips_count += 1;
  }
  r.tips.total_cents += tip;
  c.tips_cents += tip;
  if (e.tender_type === 'cash') r.cash.in_cents += e.amount_cents;
}

/** A tip given back (a card void) comes off the tips of the cashier who took it back. */
function countReversal(t: Tally, e: Entry<'reversal'>): void {
  const tip = e.tip_cents ?? 0;
  const c = cashierOf(t, e.cashier);
  addTender(t.tenders, e.tender_type, e.label, 0, e.amount_cents, -tip, 0);
  addTender(c.tenders, e.tender_type, e.label, 0, e.amount_cents, -tip, 0);
  t.r.tips.total_cents -= tip;
  c.tips_cents -= tip;
  if (e.tender_type === 'cash') t.r.cash.out_cents += e.amount_cents;
}

export function aggregate(entries: JournalEntry[], header: { laneid: string; period: number; from: string; to: string; currency: string; kind: 'x' | 'z' }, marks: ReadonlyArray<TaxMark>): RegisterReport {
  const t: Tally = { r: emptyReport(header), tenders: new Map(), taxed: [], cashiers: new Map() };
  const { r } = t;
  for (const e of entries) {
    if (e.type === 'sale') countSale(t, e);
    else if (e.type === 'sale_reversal') countSaleReversal(t, e);
    else if (e.type === 'tender') countTender(t, e);
    else if (e.type === 'reversal') countReversal(t, e);
    else if (e.type === 'open_void') {
      // Counted, never summed into the sales: nothing of it was sold.
      r.open_voids.count += 1;
      r.open_voids.total_cents += e.total_cents;
    } else if (e.type === 'declined') r.declined += 1;
    else if (e.type === 'drawer') r.cash.drawer_opens += 1;
  }
  r.cash.net_cents = r.cash.in_cents - r.cash.out_cents;
  r.net_sales_cents = r.sales.total_cents - r.voids.total_cents - r.refunds.total_cents;
  r.net_tax_cents = r.sales.tax_cents - r.voids.tax_cents - r.refunds.tax_cents;
  r.taxes = taxesByRate(t.taxed).map((x) => ({ mark: markOf(marks, x.tax_rate), ...x, tax_rate: taxRateToPercent(x.tax_rate) }));
  r.tenders = sortedTenders(t.tenders);
  r.cashiers = [...t.cashiers.values()]
    .sort((a, b) => a.cashier.name.localeCompare(b.cashier.name))
    .map((c) => ({ ...c, tenders: sortedTenders(c.tenders) }));
  return r;
}

export async function periodEntries(reader: Tx | EngineCore, laneid: string, period: number): Promise<JournalEntry[]> {
  return (await recordsByRef<JournalEntry>(reader, KIND.journal, periodRef(laneid, period))).map((r) => r.data);
}

export const zKey = (laneid: string, number: number) => `${laneid}/${pad(number, 6)}`;

export async function putZ(tx: Tx, report: RegisterReport, type: string): Promise<void> {
  const z = report.z;
  if (!z) throw fail.internal('z_missing', 'A Z report without its closing');
  await putRecord(tx, KIND.z, zKey(report.laneid, z.number), report, {
    type,
    entity: 'pos_z',
    key: report.laneid,
    data: { number: z.number, net_sales_cents: report.net_sales_cents, batch_closed: z.batch_closed },
  }, report.laneid);
}

/** A Z closed before tips and the batch reconciliation were reported reads with them empty. */
function stored(r: RegisterReport): RegisterReport {
  const tenders = (list: RegisterReport['tenders']) => list.map((t) => ({ ...t, tip_cents: t.tip_cents ?? 0 }));
  return {
    ...r,
    tips: r.tips ?? { count: 0, total_cents: 0 },
    outside: r.outside ?? { count: 0, total_cents: 0 },
    open_voids: r.open_voids ?? { count: 0, total_cents: 0 },
    taxes: r.taxes.map((t) => ({ ...t, mark: t.mark ?? '?' })),
    tenders: tenders(r.tenders),
    cashiers: r.cashiers.map((c) => ({ ...c, tips_count: c.tips_count ?? 0, tips_cents: c.tips_cents ?? 0, tenders: tenders(c.tenders) })),
    z: r.z ? { ...r.z, reconciliation: r.z.reconciliation ?? null } : null,
  };
}

export async function getZ(reader: Tx | EngineCore, laneid: string, number: number): Promise<RegisterReport | undefined> {
  const r = (await getRecord<RegisterReport>(reader, KIND.z, zKey(laneid, number)))?.data;
  return r ? stored(r) : undefined;
}

export async function listZ(reader: Tx | EngineCore, laneid: string): Promise<RegisterReport[]> {
  return (await recordsByRef<RegisterReport>(reader, KIND.z, laneid)).map((r) => stored(r.data)).sort((a, b) => (b.z?.number ?? 0) - (a.z?.number ?? 0));
}

export function nextPeriod(state: RegisterState, at: string, closedNumber: number): RegisterState {
  return { ...state, period: state.period + 1, period_started_at: at, last_z: { number: closedNumber, closed_at: at } };
}

/** A transaction of a closed card batch, as the Z reconciliation reads it. */
export interface BatchedTransaction {
  token: string;
  action: string;
  amount_cents: number;
  laneid: string | null;
}

/**
 * How the lane's card net (sales + tips − what went back, this period) meets the net of the card
 * batches the Z closed, to the cent. The batch is the whole account's: the lane's own card
 * transactions are found in it by their tokens (journalled with each tender and reversal); the rest
 * is named by where it came from (another lane, or a card payment not taken on a register).
 */
export function reconcile(entries: JournalEntry[], report: RegisterReport, batches: Array<{ net_cents: number; transactions: BatchedTransaction[] }>): NonNullable<RegisterReport['z']>['reconciliation'] {
  const own = new Set<string>();
  for (const e of entries) {
    if ((e.type === 'tender' || e.type === 'reversal') && e.tender_type === 'card' && e.transaction) own.add(e.transaction);
  }
  const laneNet = report.tenders.filter((t) => t.type === 'card').reduce((s, t) => s + t.net_cents, 0);
  let inBatches = 0;
  const others = new Map<string, { source: string; count: number; net_cents: number }>();
  for (const b of batches) {
    for (const t of b.transactions) {
      const signed = t.action === 'refund' || t.action === 'credit' ? -t.amount_cents : t.amount_cents;
      if (own.has(t.token)) {
        inBatches += signed;
        continue;
      }
      const source = t.laneid === null ? 'Card payments not taken on a lane' : t.laneid === report.laneid ? `Lane ${t.laneid}, outside this register` : `Lane ${t.laneid}`;
      const o = others.get(source) ?? { source, count: 0, net_cents: 0 };
      o.count += 1;
      o.net_cents += signed;
      others.set(source, o);
    }
  }
  return {
    lane_card_net_cents: laneNet,
    lane_in_batches_cents: inBatches,
    lane_elsewhere_cents: laneNet - inBatches,
    others: [...others.values()].sort((a, b) => a.source.localeCompare(b.source)),
    batch_net_cents: batches.reduce((s, b) => s + b.net_cents, 0),
  };
}
