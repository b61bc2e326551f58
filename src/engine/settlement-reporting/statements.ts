import type { EngineCore, Tx } from '../core';
import type { Account, AccountProfile } from '../account';
import { addDays } from '../clock';
import { getRecord, putRecord, type RecordDoc } from '../records';
import { BATCH, EXCEPTION } from '../gateway/settlement';
import type { SettlementBatch, SettlementException } from '../gateway';
import type { ProcessingCalendar } from '../gateway/processing-day';
import { settlementTokens } from '../gateway/settlement-tokens';
import { merchantId } from '../account/merchant-id';

/**
 * Monthly statements (records kind `settlement_statement`, key = identifier, ref = end date). A
 * month closes when its last processing day's cut-off has passed on the account's clock (the
 * sandbox clock included): the `settlement.statements` tick task then makes one statement per
 * currency the month saw (one in the account's currency for a quiet month), from the month's
 * batches (by processing date) and exceptions (by exception date). A statement is made once and
 * kept as made: the figures a bookkeeper filed do not change afterwards.
 */
export const STATEMENT = 'settlement_statement';
const CURSOR = 'settlement_statement_cursor';

export interface Totals {
  transaction_count: number;
  sales_count: number;
  sales_cents: number;
  refunds_count: number;
  refunds_cents: number;
  net_sales_cents: number;
  fees_cents: number;
  /** The month's batch deposits: what the statement reconciles to (sum of `daily[].deposit_cents`). */
  net_cents: number;
  exceptions_count: number;
  exceptions_cents: number;
  net_after_exceptions_cents: number;
}

export interface Volume {
  count: number;
  sales_cents: number;
  refunds_cents: number;
  net_cents: number;
}

export interface Statement {
  identifier: string;
  start_date: string;
  end_date: string;
  statement_date: string;
  merchant_account_token: string;
  merchant_account_identifier: string;
  currency: string;
  merchant: { name: string; address: string[]; timezone: string };
  /** Batches of earlier months deposited in this one (opening) and of this month deposited after it (closing). */
  opening_in_transit_cents: number;
  closing_in_transit_cents: number;
  /** What reached the bank during the month: opening + net - closing. */
  deposited_in_period_cents: number;
  totals: Totals;
  daily: Array<{ date: string; batch_count: number; transaction_count: number; sales_cents: number; refunds_cents: number; fees_cents: number; deposit_cents: number; deposit_date: string }>;
  batches: Array<{ token: string; processing_date: string; deposit_date: string; tender: string; transaction_count: number; sales_cents: number; refunds_cents: number; fees_cents: number; deposit_cents: number }>;
  fees: Array<{ fee_type: string; amount_cents: number }>;
  exceptions: Array<{ date: string; exception_type: string; description: string; reason_code: string; amount_cents: number; transaction: string; payment_method: string; order: string | null }>;
  volume_by_brand: Array<{ brand: string } & Volume>;
  volume_by_tender: Array<{ tender: string } & Volume>;
}

export const monthEnd = (month: string) => addDays(`${nextMonth(month)}-01`, -1);
export function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

async function byRefRange<T>(reader: Tx | EngineCore, kind: string, from: string, to: string): Promise<Array<RecordDoc<T>>> {
  return reader.find<RecordDoc<T> & { [k: string]: unknown }>('records', { selector: { kind, ref: { $gte: from, $lte: to } }, sort: [{ kind: 'asc' }, { ref: 'asc' }, { id: 'asc' }] });
}

function addVolume(map: Map<string, Volume>, key: string, v: { count: number; sales_cents: number; refunds_cents: number }) {
  const cur = map.get(key) ?? { count: 0, sales_cents: 0, refunds_cents: 0, net_cents: 0 };
  const sales = cur.sales_cents + v.sales_cents;
  const refunds = cur.refunds_cents + v.refunds_cents;
  map.set(key, { count: cur.count + v.count, sales_cents: sales, refunds_cents: refunds, net_cents: sales - refunds });
}

/** A month's statement for one currency, from its batches and exceptions (pure: the tests and the sample use it). */
export function buildStatement(input: { profile: AccountProfile; month: string; currency: string; batches: SettlementBatch[]; earlier: SettlementBatch[]; exceptions: SettlementException[] }): Statement {
  const { profile, month, currency } = input;
  const start = `${month}-01`;
  const end = monthEnd(month);
  const batches = input.batches.filter((b) => b.currency === currency).sort((a, b) => a.processing_date.localeCompare(b.processing_date) || a.token.localeCompare(b.token));
  const exceptions = input.exceptions.filter((e) => e.exception_transaction.currency === currency).sort((a, b) => a.exception_date.localeCompare(b.exception_date));
  const daily = new Map<string, Statement['daily'][number]>();
  const fees = new Map<string, number>();
  const brands = new Map<string, Volume>();
  const tenders = new Map<string, Volume>();
  const t: Totals = { transaction_count: 0, sales_count: 0, sales_cents: 0, refunds_count: 0, refunds_cents: 0, net_sales_cents: 0, fees_cents: 0, net_cents: 0, exceptions_count: 0, exceptions_cents: 0, net_after_exceptions_cents: 0 };
  for (const b of batches) {
    const feesCents = b.fees_cents ?? 0;
    t.transaction_count += b.transaction_count;
    t.sales_count += b.sales_count;
    t.sales_cents += b.sales_cents;
    t.refunds_count += b.refunds_count;
    t.refunds_cents += b.refunds_cents;
    t.fees_cents += feesCents;
    t.net_cents += b.deposit_amount_cents;
    const d = daily.get(b.processing_date) ?? { date: b.processing_date, batch_count: 0, transaction_count: 0, sales_cents: 0, refunds_cents: 0, fees_cents: 0, deposit_cents: 0, deposit_date: b.batch_deposit_date };
    daily.set(b.processing_date, { ...d, batch_count: d.batch_count + 1, transaction_count: d.transaction_count + b.transaction_count, sales_cents: d.sales_cents + b.sales_cents, refunds_cents: d.refunds_cents + b.refunds_cents, fees_cents: d.fees_cents + feesCents, deposit_cents: d.deposit_cents + b.deposit_amount_cents, deposit_date: b.batch_deposit_date > d.deposit_date ? b.batch_deposit_date : d.deposit_date });
    for (const f of b.fees) fees.set(f.fee_type, (fees.get(f.fee_type) ?? 0) + f.fee_amount_cents);
    for (const [brand, v] of Object.entries(b.brands ?? {})) addVolume(brands, brand, v);
    addVolume(tenders, b.payment_method_group, { count: b.transaction_count, sales_cents: b.sales_cents, refunds_cents: b.refunds_cents });
  }
  t.net_sales_cents = t.sales_cents - t.refunds_cents;
  t.exceptions_count = exceptions.length;
  t.exceptions_cents = exceptions.reduce((s, e) => s + e.exception_amount_in_cents, 0);
  t.net_after_exceptions_cents = t.net_cents - t.exceptions_cents;
  const opening = input.earlier.filter((b) => b.currency === currency && b.batch_deposit_date >= start).reduce((s, b) => s + b.deposit_amount_cents, 0);
  const closing = batches.filter((b) => b.batch_deposit_date > end).reduce((s, b) => s + b.deposit_amount_cents, 0);
  const tokens = settlementTokens(profile);
  const address = [profile.address_1, profile.address_2, [profile.city, profile.province, profile.postal_code].filter(Boolean).join(' '), profile.country].filter((l): l is string => Boolean(l && l.trim()));
  return {
    identifier: `ST${month.replace('-', '')}${currency.toUpperCase()}`,
    start_date: start,
    end_date: end,
    statement_date: addDays(end, 1),
    merchant_account_token: tokens.card,
    merchant_account_identifier: merchantId(profile),
    currency,
    merchant: { name: profile.name, address, timezone: profile.timezone },
    opening_in_transit_cents: opening,
    closing_in_transit_cents: closing,
    deposited_in_period_cents: opening + t.net_cents - closing,
    totals: t,
    daily: [...daily.values()],
    batches: batches.map((b) => ({ token: b.token, processing_date: b.processing_date, deposit_date: b.batch_deposit_date, tender: b.payment_method_group, transaction_count: b.transaction_count, sales_cents: b.sales_cents, refunds_cents: b.refunds_cents, fees_cents: b.fees_cents ?? 0, deposit_cents: b.deposit_amount_cents })),
    fees: [...fees].sort(([a], [b]) => a.localeCompare(b)).map(([fee_type, amount_cents]) => ({ fee_type, amount_cents })),
    exceptions: exceptions.map((e) => ({ date: e.exception_date, exception_type: e.exception_type, description: e.exception_description, reason_code: e.reason_code ?? e.return_code, amount_cents: e.exception_amount_in_cents, transaction: e.exception_transaction.token, payment_method: e.exception_transaction.payment_method, order: e.exception_transaction.order?.identifier ?? null })),
    volume_by_brand: [...brands].sort(([a], [b]) => a.localeCompare(b)).map(([brand, v]) => ({ brand, ...v })),
    volume_by_tender: [...tenders].sort(([a], [b]) => a.localeCompare(b)).map(([tender, v]) => ({ tender, ...v })),
  };
}

/** Makes the statements of every month closed by `now` that has none yet; returns how many. */
export async function closeMonths(core: EngineCore, account: Account, calendar: ProcessingCalendar, now: number): Promise<number> {
  const profile = account.profile();
  const current = calendar.dayOf(now, profile).date.slice(0, 7);
  const cursor = (await getRecord<{ month: string }>(core, CURSOR, 'last'))?.data.month;
  let month = cursor ? nextMonth(cursor) : profile.created_at.slice(0, 7);
  let made = 0;
  while (month < current) {
    const m = month;
    const start = `${m}-01`;
    const end = monthEnd(m);
    const batches = (await byRefRange<SettlementBatch>(core, BATCH, start, end)).map((r) => r.data);
    // Batches of the month before that deposit in this one: the opening in-transit figure.
    const earlier = (await byRefRange<SettlementBatch>(core, BATCH, addDays(start, -10), addDays(start, -1))).map((r) => r.data);
    const exceptions = (await byRefRange<SettlementException>(core, EXCEPTION, start, end)).map((r) => r.data);
    const currencies = new Set([...batches.map((b) => b.currency), ...exceptions.map((e) => e.exception_transaction.currency)]);
    if (currencies.size === 0) currencies.add(profile.currency);
    await core.mutate(async (tx) => {
      for (const currency of [...currencies].sort()) {
        const s = buildStatement({ profile, month: m, currency, batches, earlier, exceptions });
        if (await getRecord(tx, STATEMENT, s.identifier)) continue;
        await putRecord(tx, STATEMENT, s.identifier, s, { type: 'settlement_statement.created', entity: 'settlement_statement', key: s.identifier, data: { end_date: s.end_date, net_cents: s.totals.net_cents } }, s.end_date);
        made += 1;
      }
      await putRecord(tx, CURSOR, 'last', { month: m }, { type: 'settlement_statement.month_closed', entity: 'settlement_statement', key: m });
    });
    month = nextMonth(month);
  }
  return made;
}
