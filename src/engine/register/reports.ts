import type { EngineCore, Tx } from '../core';
import { fail } from '../errors';
import { getRecord, putRecord, recordsByRef } from '../records';
import type { RegisterReport, TenderType } from '../../shared/schemas/register';
import { TENDER_TYPES } from '../../shared/schemas/register';
import { KIND, pad, periodRef, type JournalEntry, type PersonRef, type RegisterState } from './model';
import { taxRateToPercent } from './money';

/**
 * X and Z reports: the lane's journal for its current period, added up. An X report changes
 * nothing; a Z report records those totals as closed and starts the next period (the lane's
 * journal entries from then on count towards the next Z).
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
  tenders: Map<string, TenderTotal>;
}

const tenderKey = (type: TenderType, label: string) => `${type}\u0000${label}`;

function addTender(map: Map<string, TenderTotal>, type: TenderType, label: string, inCents: number, outCents: number, count: number): void {
  const key = tenderKey(type, label);
  const t = map.get(key) ?? { type, label, count: 0, in_cents: 0, out_cents: 0, net_cents: 0 };
  t.count += count;
  t.in_cents += inCents;
  t.out_cents += outCents;
  t.net_cents = t.in_cents - t.out_cents;
  map.set(key, t);
}

function sortedTenders(map: Map<string, TenderTotal>): TenderTotal[] {
  return [...map.values()].sort((a, b) => TENDER_TYPES.indexOf(a.type) - TENDER_TYPES.indexOf(b.type) || a.label.localeCompare(b.label));
}

export function aggregate(entries: JournalEntry[], header: { laneid: string; period: number; from: string; to: string; currency: string; kind: 'x' | 'z' }): RegisterReport {
  const r: RegisterReport = {
    ...header,
    sales: { count: 0, subtotal_cents: 0, discount_cents: 0, tax_cents: 0, total_cents: 0 },
    voids: { count: 0, tax_cents: 0, total_cents: 0 },
    refunds: { count: 0, tax_cents: 0, total_cents: 0 },
    net_sales_cents: 0,
    net_tax_cents: 0,
    taxes: [],
    tenders: [],
    cash: { in_cents: 0, out_cents: 0, net_cents: 0, drawer_opens: 0 },
    declined: 0,
    cashiers: [],
    z: null,
  };
  const tenders = new Map<string, TenderTotal>();
  const taxes = new Map<number, { tax_rate: number; taxable_cents: number; tax_cents: number }>();
  const cashiers = new Map<string, CashierTotals>();
  const cashierOf = (p: PersonRef) => {
    let c = cashiers.get(p.id);
    if (!c) {
      c = { cashier: p, sales_count: 0, sales_total_cents: 0, voids_count: 0, voids_total_cents: 0, refunds_count: 0, refunds_total_cents: 0, tenders: new Map() };
      cashiers.set(p.id, c);
    }
    return c;
  };
  const addTaxes = (list: Array<{ tax_rate: number; taxable_cents: number; tax_cents: number }>, sign: 1 | -1) => {
    for (const t of list) {
      const e = taxes.get(t.tax_rate) ?? { tax_rate: t.tax_rate, taxable_cents: 0, tax_cents: 0 };
      e.taxable_cents += sign * t.taxable_cents;
      e.tax_cents += sign * t.tax_cents;
      taxes.set(t.tax_rate, e);
    }
  };
  for (const e of entries) {
    switch (e.type) {
      case 'sale': {
        r.sales.count += 1;
        r.sales.subtotal_cents += e.subtotal_cents;
        r.sales.discount_cents += e.discount_cents;
        r.sales.tax_cents += e.tax_cents;
        r.sales.total_cents += e.total_cents;
        addTaxes(e.taxes, 1);
        const c = cashierOf(e.cashier);
        c.sales_count += 1;
        c.sales_total_cents += e.total_cents;
        break;
      }
      case 'sale_reversal': {
        const bucket = e.kind === 'void' ? r.voids : r.refunds;
        bucket.count += 1;
        bucket.total_cents += e.total_cents;
        bucket.tax_cents += e.tax_cents;
        addTaxes(e.taxes, -1);
        const c = cashierOf(e.cashier);
        if (e.kind === 'void') {
          c.voids_count += 1;
          c.voids_total_cents += e.total_cents;
        } else {
          c.refunds_count += 1;
          c.refunds_total_cents += e.total_cents;
        }
        break;
      }
      case 'tender':
        addTender(tenders, e.tender_type, e.label, e.amount_cents, 0, 1);
        addTender(cashierOf(e.cashier).tenders, e.tender_type, e.label, e.amount_cents, 0, 1);
        if (e.tender_type === 'cash') r.cash.in_cents += e.amount_cents;
        break;
      case 'reversal':
        addTender(tenders, e.tender_type, e.label, 0, e.amount_cents, 0);
        addTender(cashierOf(e.cashier).tenders, e.tender_type, e.label, 0, e.amount_cents, 0);
        if (e.tender_type === 'cash') r.cash.out_cents += e.amount_cents;
        break;
      case 'declined':
        r.declined += 1;
        break;
      case 'drawer':
        r.cash.drawer_opens += 1;
        break;
    }
  }
  r.cash.net_cents = r.cash.in_cents - r.cash.out_cents;
  r.net_sales_cents = r.sales.total_cents - r.voids.total_cents - r.refunds.total_cents;
  r.net_tax_cents = r.sales.tax_cents - r.voids.tax_cents - r.refunds.tax_cents;
  r.taxes = [...taxes.values()].sort((a, b) => a.tax_rate - b.tax_rate).map((t) => ({ ...t, tax_rate: taxRateToPercent(t.tax_rate) }));
  r.tenders = sortedTenders(tenders);
  r.cashiers = [...cashiers.values()]
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

export async function getZ(reader: Tx | EngineCore, laneid: string, number: number): Promise<RegisterReport | undefined> {
  return (await getRecord<RegisterReport>(reader, KIND.z, zKey(laneid, number)))?.data;
}

export async function listZ(reader: Tx | EngineCore, laneid: string): Promise<RegisterReport[]> {
  return (await recordsByRef<RegisterReport>(reader, KIND.z, laneid)).map((r) => r.data).sort((a, b) => (b.z?.number ?? 0) - (a.z?.number ?? 0));
}

export function nextPeriod(state: RegisterState, at: string, closedNumber: number): RegisterState {
  return { ...state, period: state.period + 1, period_started_at: at, last_z: { number: closedNumber, closed_at: at } };
}
