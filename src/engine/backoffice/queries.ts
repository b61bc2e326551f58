import type { Account } from '../account';
import type { MangoQuery } from 'rxdb';
import type { EngineCore } from '../core';
import type { StoredDoc } from '../../store/schema';
import { dateInZone } from '../clock';
import { customerListItem } from '../receivables/customer-view';
import { invoiceStatusOf, viewDate, type StatusBasis } from '../receivables/invoice-view';
import { INVOICE_EXPORT_FIELDS, INVOICE_VIEW_PATH } from '../receivables/invoice-layout';
import { agingOf } from '../receivables/ledger';
import type { CustomerDoc, PaymentDoc } from '../receivables/types';
import { hydrateOrder, type OrderDoc } from '../orders/order-record';
import { TRANSACTIONS, type TxData, type TxDoc } from '../gateway/transaction-record';
import { bankLabel, cardLabel } from '../../shared/card-brands';
import type { Receivables } from '../receivables';
import { createBackofficeDetails, type BackofficeDetails, type CustomerMatch } from './details';
import { orderStateOf, type OrderState, type SaleLookup } from './order-state';

/**
 * The back office's list queries: newest first, filtered, paged by a cursor, and each page read
 * through the store's indexes. The store's index ranges run oldest first, so "newest first" walks
 * back in windows of the global watermark: each window is one index range read (on [feed,
 * watermark] or [customer, watermark] when the filter names one), filtered, and taken newest
 * first. A page stops at `limit` rows or after SCAN_BUDGET rows read, answering a `before`
 * cursor either way, so a very selective filter costs a bounded read per page ("more" continues).
 * Windows grow until each holds about WINDOW rows at the density read so far: measured on 1M
 * invoices (bench:backoffice), one customer's first page went from dozens of range reads of the
 * [customer, watermark] index to a handful.
 */
export const SCAN_BUDGET = 20_000;
/**
 * The store answers a projected index range in one packed statement, without building documents,
 * only when the query has a limit of at most 10,000 rows (store/sqlite/packed-read.ts); a window
 * of watermarks holds at most as many rows as its width, so a window this wide or narrower is
 * read with its width as the limit and never cut short. Measured on 1M invoices
 * (bench:backoffice): a filtered first page reading 1,000 rows went from about 20 µs a row
 * (every document decoded) to a packed read.
 */
const WINDOW = 10_000;

export interface InvoiceFilter {
  status?: 'open' | 'closed' | 'overdue' | 'paid' | 'all';
  customer?: string;
  division?: string;
  due_from?: string;
  due_to?: string;
  date_from?: string;
  date_to?: string;
  amount_min?: number;
  amount_max?: number;
  before?: number;
  limit?: number;
}

export interface InvoiceRowView {
  number: string;
  display_number: string;
  customer_identifier: string;
  date: string;
  due_date: string | null;
  /** The day `status` counts from: the due date, else the invoice's date (StatusBasis). */
  due_on: string;
  currency: string;
  amount_cents: number;
  owing_cents: number;
  status: string;
  division: string | null;
  watermark: number;
}

export interface Paged<T> {
  items: T[];
  /** Pass as `before` for the next page; null when the list has no more. */
  next: number | null;
  scanned: number;
}

export interface AgingSummary {
  as_of: string;
  currency: string;
  customers_owing: number;
  buckets: Array<{ bucket: 'current' | '1-30' | '31-60' | '61-90' | '91-120' | '121-180' | 'over 180'; cents: number }>;
  balance_cents: number;
  credit_cents: number;
}

type Row = { [k: string]: unknown } & StoredDoc;

/**
 * Walks a collection newest first in watermark windows, `value` deciding each record (undefined:
 * left out); stops at `limit` kept or the budget. A record's value is computed only when the walk
 * reaches it, newest first, so a page parses no more than it shows. Windows start small and grow,
 * so a page that fills at once reads little, and a selective filter still reaches far back.
 */
async function newestFirst<T>(
  core: EngineCore,
  read: (lo: number, hi: number) => Promise<Array<{ watermark: number; value: () => T | undefined }>>,
  before: number | undefined,
  limit: number,
): Promise<Paged<T>> {
  let hi = Math.min(before ?? Infinity, core.currentWatermark() + 1);
  const items: T[] = [];
  let scanned = 0;
  let window = Math.max(limit * 4, 200);
  while (hi > 0) {
    const lo = Math.max(0, hi - window);
    const rows = await read(lo, hi);
    scanned += rows.length;
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i]!;
      const value = r.value();
      if (value === undefined) continue;
      items.push(value);
      if (items.length === limit) return { items, next: i > 0 || lo > 0 ? r.watermark : null, scanned };
    }
    // The next window grows, but is kept to about WINDOW rows at the density just read: on a
    // sparse index range (one customer's invoices among a million) it covers the whole history
    // in a few reads instead of dozens.
    const density = rows.length / Math.max(1, hi - lo);
    window = Math.min(window * 4, density > 0 ? Math.max(WINDOW, Math.floor(WINDOW / density)) : Number.MAX_SAFE_INTEGER);
    hi = lo;
    if (scanned >= SCAN_BUDGET && hi > 0) return { items, next: hi, scanned };
  }
  return { items, next: null, scanned };
}

export interface BackofficeQueries extends BackofficeDetails {
  invoices(filter: InvoiceFilter): Promise<Paged<InvoiceRowView>>;
  customers(query: { q?: string; status?: 'open' | 'closed'; after?: string; limit?: number; sort?: 'identifier' | 'balance' }): Promise<{ items: Array<ReturnType<typeof customerListItem>>; next: string | null }>;
  payments(query: { customer?: string; before?: number; limit?: number }): Promise<Paged<PaymentRowView>>;
  orders(query: { before?: number; limit?: number }): Promise<Paged<OrderRowView>>;
  /** Gateway transactions made without an order, newest first (orders list the others). */
  transactions(query: { before?: number; limit?: number }): Promise<Paged<TransactionRowView>>;
  /** The aging of one currency (the shop's by default), with what is owed in each currency. */
  aging(currency?: string): Promise<AgingSummary>;
  search(q: string): Promise<SearchHit[]>;
}

export interface PaymentRowView {
  reference: string;
  token: string;
  customer_identifier: string;
  date: string;
  amount_cents: number;
  currency: string;
  method: string;
  status: string;
  unapplied_cents: number;
  watermark: number;
}

export interface OrderRowView {
  identifier: string;
  /** The order's own number: a register sale's receipt number (1-000003). */
  number: string | null;
  customer_identifier: string | null;
  amount_cents: number | null;
  currency: string | null;
  draft: boolean;
  /** One rule (orderStateOf): a register sale's is its sale's status, as the sale's pages show it. */
  state: OrderState;
  /** Refunded (or voided) of what its payments took; a register sale's, what the register gave back. */
  refunded_cents: number;
  created_at: string;
  watermark: number;
}

export interface TransactionRowView {
  token: string;
  action: string;
  state: string;
  amount_cents: number;
  currency: string;
  method: string;
  refunded_cents: number;
  created_at: string;
  watermark: number;
}

/** A list page's rows: 50 unless asked, 1 to 200. */
const pageLimit = (asked: number | undefined) => Math.min(Math.max(asked ?? 50, 1), 200);

export function createBackofficeQueries(
  core: EngineCore,
  account: Account,
  findSale: (key: string) => Promise<SaleLookup | undefined>,
  receivables: Pick<Receivables, 'viewInvoice' | 'invoiceDocument'>,
): BackofficeQueries {
  const today = () => dateInZone(core.clock.now(), account.profile().timezone);
  const byIdentifier = async (identifier: string) =>
    (await core.find<CustomerDoc & Row>('customers', { selector: { identifier }, sort: [{ identifier: 'asc' }], limit: 1 }))[0]?.id;
  /** The customer a list filter names: its identifier as typed, in upper case, or the one customer of that name. */
  const customerIdOf = async (typed: string) => {
    const key = typed.trim();
    const found = (await byIdentifier(key)) ?? (key.toUpperCase() !== key ? await byIdentifier(key.toUpperCase()) : undefined);
    if (found) return found;
    const named = await customersNamed(core, key, 2);
    return named.length === 1 ? named[0]!.id : undefined;
  };
  let agingCache: { key: string; value: Map<string, { sums: AgingSums; owing: number }> } | undefined;

  type CustomerQuery = Parameters<BackofficeQueries['customers']>[0];
  type CustomerPage = Awaited<ReturnType<BackofficeQueries['customers']>>;
  /** Customers in identifier order, on the identifier index; a search is a prefix range of it. */
  const customersByIdentifier = async (query: CustomerQuery): Promise<CustomerPage> => {
    const limit = pageLimit(query.limit);
    const ctx = { today: today(), accountCurrency: account.profile().currency };
    const q = query.q?.trim() ?? '';
    const lower = query.after ?? q;
    const items: Array<ReturnType<typeof customerListItem>> = [];
    let cursor = lower;
    let first = !query.after;
    for (let read = 0; read < SCAN_BUDGET && items.length < limit; ) {
      const selector = { identifier: { ...(first ? { $gte: cursor } : { $gt: cursor }), ...(q ? { $lt: `${q}\uffff` } : {}) } };
      const docs = await core.find<CustomerDoc & Row>('customers', { selector, sort: [{ identifier: 'asc' }], limit: query.status ? 500 : limit });
      first = false;
      if (docs.length === 0) return { items, next: null };
      read += docs.length;
      for (const d of docs) {
        cursor = d.identifier;
        if (query.status && d.data.account_status !== query.status) continue;
        items.push(customerListItem(d, ctx));
        if (items.length === limit) return { items, next: d.identifier };
      }
      if (docs.length < (query.status ? 500 : limit)) return { items, next: null };
    }
    return { items, next: cursor };
  };

  /**
   * How the customer list reads a search, whatever its order: the start of an identifier as typed,
   * else in upper case, else the words of a name (customersByIdentifier, then customersNamed).
   */
  const customerMatch = async (q: string): Promise<CustomerMatch> => {
    const starts = async (prefix: string) => (await core.find<CustomerDoc & Row>('customers', { selector: { identifier: { $gte: prefix, $lt: `${prefix}\uffff` } }, sort: [{ identifier: 'asc' }], limit: 1 })).length > 0;
    if (await starts(q)) return { prefix: q };
    if (q.toUpperCase() !== q && (await starts(q.toUpperCase()))) return { prefix: q.toUpperCase() };
    return { named: nameMatcher(q) ?? (() => false) };
  };

  const details = createBackofficeDetails(core, account, receivables);
  return {
    ...details,
    search: (q) => searchEverything(core, q, findSale),
    async invoices(filter) {
      const day = today();
      const limit = pageLimit(filter.limit);
      const status = filter.status ?? 'all';
      // Closed (status CLOSED) is read off two feeds, each on its index: an invoice a reconciliation
      // closed is in `deleted`, a settled zero or credit in `closed`.
      const feeds: readonly string[] = status === 'open' || status === 'overdue' ? ['open'] : status === 'paid' ? ['closed'] : status === 'closed' ? ['closed', 'deleted'] : [];
      const customer = filter.customer ? await customerIdOf(filter.customer) : undefined;
      if (filter.customer && !customer) return { items: [], next: null, scanned: 0 };
      const read = async (lo: number, hi: number) => {
        const range = { $gte: lo, $lt: hi };
        const packed = hi - lo <= WINDOW ? { limit: hi - lo } : {};
        const queries: Array<MangoQuery<StoredDoc>> = customer
          ? [{ selector: { customer, watermark: range }, sort: [{ customer: 'asc' }, { watermark: 'asc' }], ...packed }]
          : feeds.length
            ? feeds.map((feed): MangoQuery<StoredDoc> => ({ selector: { feed, watermark: range }, sort: [{ feed: 'asc' }, { watermark: 'asc' }], ...packed }))
            : [{ selector: { watermark: range }, sort: [{ watermark: 'asc' }], ...packed }];
        const rows = [];
        for (const query of queries) {
          const { values, bytes } = await core.project('invoices', query, INVOICE_EXPORT_FIELDS, INVOICE_VIEW_PATH);
          for (const [i, v] of values.entries()) {
            const [watermark, f, , st] = v as [number, string, number | null, StatusBasis];
            rows.push({ watermark, value: () => (feeds.length && !feeds.includes(f) ? undefined : invoiceRow(filter, day, watermark, f, st, bytes[i]!)) });
          }
        }
        return queries.length > 1 ? rows.sort((a, b) => a.watermark - b.watermark) : rows;
      };
      return newestFirst(core, read, filter.before, limit);
    },

    async customers(query) {
      const q = query.q?.trim() ?? '';
      // By balance, the same customers as by identifier, in another order: what was typed is read
      // the same way (an identifier's start, in upper case too, else the words of a name).
      if (query.sort === 'balance') {
        const { q: _typed, ...rest } = query;
        return details.customersByBalance({ ...rest, ...(q ? { match: await customerMatch(q) } : {}) });
      }
      const found = await customersByIdentifier(query);
      if (found.items.length || query.after || !q) return found;
      // Nothing starts with what was typed: an identifier typed in lower case, then a name.
      if (q.toUpperCase() !== q) {
        const upper = await customersByIdentifier({ ...query, q: q.toUpperCase() });
        if (upper.items.length) return upper;
      }
      const ctx = { today: today(), accountCurrency: account.profile().currency };
      const named = await customersNamed(core, q, pageLimit(query.limit));
      return { items: named.filter((c) => !query.status || c.data.account_status === query.status).map((c) => customerListItem(c, ctx)), next: null };
    },

    async payments(query) {
      const limit = pageLimit(query.limit);
      const customer = query.customer ? await customerIdOf(query.customer) : undefined;
      if (query.customer && !customer) return { items: [], next: null, scanned: 0 };
      const read = async (lo: number, hi: number) => {
        const range = { $gte: lo, $lt: hi };
        const docs = await core.find<PaymentDoc & Row>(
          'payments',
          customer ? { selector: { customer, watermark: range }, sort: [{ customer: 'asc' }, { watermark: 'asc' }] } : { selector: { watermark: range }, sort: [{ watermark: 'asc' }] },
        );
        return docs.map((d) => ({ watermark: d.watermark, value: () => paymentRow(d) }));
      };
      return newestFirst(core, read, query.before, limit);
    },

    async orders(query) {
      const limit = pageLimit(query.limit);
      const read = async (lo: number, hi: number) => {
        const docs = await core.find<OrderDoc & Row>('orders', { selector: { watermark: { $gte: lo, $lt: hi } }, sort: [{ watermark: 'asc' }] });
        return docs.map((raw) => ({ watermark: raw.watermark, value: () => orderRow(raw) }));
      };
      const page = await newestFirst(core, read, query.before, limit);
      const items = await Promise.all(
        page.items.map(async ({ register, ...o }): Promise<OrderRowView> => {
          // What went back to the payer, so the list says an order was refunded, not only its detail.
          const gateway = refundedOf(await core.find<TxDoc & Row>(TRANSACTIONS, { selector: { order_id: o.identifier } }));
          // A register sale: the state and money back its sale answers (cash takes no gateway
          // transaction; a void cancels the card's). A card refund made outside the register is
          // on the gateway only: the larger figure is shown, never less than went back.
          const sale = register ? await findSale(o.identifier) : undefined;
          const refunded = sale ? Math.max(sale.refunded_cents, gateway) : gateway;
          return { ...o, state: orderStateOf(o, refunded, sale), refunded_cents: refunded };
        }),
      );
      return { ...page, items };
    },

    async transactions(query) {
      const limit = pageLimit(query.limit);
      // Without an order, a transaction's order_id is '': a range of the [order_id, watermark] index.
      const read = async (lo: number, hi: number) => {
        const docs = await core.find<TxDoc & Row>(TRANSACTIONS, { selector: { order_id: '', watermark: { $gte: lo, $lt: hi } }, sort: [{ order_id: 'asc' }, { watermark: 'asc' }] });
        return docs.map((raw) => ({ watermark: raw.watermark, value: () => transactionRow(raw.data, raw.watermark) }));
      };
      return newestFirst(core, read, query.before, limit);
    },

    async aging(wanted) {
      const day = today();
      const main = account.profile().currency;
      // Every customer's ledger, summed per currency: kept while nothing is written and the day does not change.
      const key = `${core.currentWatermark()}:${day}:${main}`;
      if (agingCache?.key !== key) {
        const byCurrency = new Map<string, { sums: AgingSums; owing: number }>();
        let after = -1;
        for (;;) {
          const docs = await core.find<CustomerDoc & Row>('customers', { selector: { watermark: { $gt: after } }, sort: [{ watermark: 'asc' }], limit: 2000 });
          if (docs.length === 0) break;
          for (const d of docs) {
            for (const [currency, a] of agingOf(d.data.ledger, day).byCurrency) {
              let entry = byCurrency.get(currency);
              if (!entry) byCurrency.set(currency, (entry = noAging()));
              const t = entry.sums;
              t.current += a.current;
              t.d30 += a.d30;
              t.d60 += a.d60;
              t.d90 += a.d90;
              t.d120 += a.d120;
              t.d180 += a.d180;
              t.over180 += a.over180;
              t.credit += a.credit;
              if (a.current + a.aging > 0) entry.owing++;
            }
          }
          after = docs[docs.length - 1]!.watermark;
        }
        agingCache = { key, value: byCurrency };
      }
      const byCurrency = agingCache.value;
      const balanceOf = (t: AgingSums) => t.current + t.d30 + t.d60 + t.d90 + t.d120 + t.d180 + t.over180;
      // The shop's currency first, then the others with something owed or in credit.
      const currencies = [...byCurrency]
        .filter(([c, e]) => c === main || balanceOf(e.sums) !== 0 || e.sums.credit !== 0)
        .sort(([a], [b]) => (a === main ? -1 : b === main ? 1 : a.localeCompare(b)))
        .map(([currency, e]) => ({ currency, balance_cents: balanceOf(e.sums), customers_owing: e.owing }));
      const currency = wanted?.toLowerCase() ?? main;
      const entry = byCurrency.get(currency) ?? noAging();
      const sums = entry.sums;
      return {
        as_of: day,
        currency,
        customers_owing: entry.owing,
        buckets: [
          { bucket: 'current', cents: sums.current },
          { bucket: '1-30', cents: sums.d30 },
          { bucket: '31-60', cents: sums.d60 },
          { bucket: '61-90', cents: sums.d90 },
          { bucket: '91-120', cents: sums.d120 },
          { bucket: '121-180', cents: sums.d180 },
          { bucket: 'over 180', cents: sums.over180 },
        ],
        balance_cents: balanceOf(sums),
        credit_cents: sums.credit,
        currencies: currencies.some((c) => c.currency === main) ? currencies : [{ currency: main, balance_cents: 0, customers_owing: 0 }, ...currencies],
      };
    },
  };
}

const noAging = (): { sums: AgingSums; owing: number } => ({ sums: { current: 0, d30: 0, d60: 0, d90: 0, d120: 0, d180: 0, over180: 0, credit: 0 }, owing: 0 });

interface AgingSums {
  current: number;
  d30: number;
  d60: number;
  d90: number;
  d120: number;
  d180: number;
  over180: number;
  credit: number;
}

/** Whether an invoice's status basis passes the filter (no parsing: the basis is a stored projection). */
function keepBasis(filter: InvoiceFilter, day: string, basis: StatusBasis, feed: string): boolean {
  const [amount, owing, due, deleted] = basis;
  const status = filter.status ?? 'all';
  // Closed invoices (a reconciliation closes those the ERP no longer lists) stay in All and Closed.
  if ((feed === 'deleted' || deleted) && status !== 'all' && status !== 'closed') return false;
  if (status === 'closed' && invoiceStatusOf(basis, day) !== 'CLOSED') return false;
  if (status === 'overdue' && !(owing > 0 && due < day)) return false;
  if (status === 'paid' && !(owing <= 0 && amount > 0)) return false;
  if (filter.amount_min !== undefined && amount < filter.amount_min) return false;
  if (filter.amount_max !== undefined && amount > filter.amount_max) return false;
  if (filter.due_from && due < filter.due_from) return false;
  if (filter.due_to && due > filter.due_to) return false;
  return true;
}

/** An invoice's list row from its stored rendering, or undefined when the filter leaves it out. */
function invoiceRow(filter: InvoiceFilter, day: string, watermark: number, feed: string, st: StatusBasis, bytes: Buffer): InvoiceRowView | undefined {
  if (!keepBasis(filter, day, st, feed)) return undefined;
  if (filter.date_from || filter.date_to) {
    // Most rows a date filter reads are left out: decide on the date before parsing anything.
    const d = viewDate(bytes);
    if (d !== undefined && ((filter.date_from && d < filter.date_from) || (filter.date_to && d > filter.date_to))) return undefined;
  }
  const view = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  const date = String(view.date);
  if ((filter.date_from && date < filter.date_from) || (filter.date_to && date > filter.date_to)) return undefined;
  const division = (view.division as string | null | undefined) ?? null;
  if (filter.division && division !== filter.division) return undefined;
  return {
    number: String(view.number),
    display_number: String(view.display_number),
    customer_identifier: String(view.customer_identifier),
    date,
    due_date: (view.due_date as string | null) ?? null,
    // The status's own basis, so the screen shows the day OVERDUE was counted from without a rule of its own.
    due_on: st[2],
    currency: String(view.currency),
    amount_cents: st[0],
    owing_cents: st[1],
    status: invoiceStatusOf(st, day),
    division,
    watermark,
  };
}

function transactionRow(t: TxData, watermark: number): TransactionRowView {
  const method = t.card
    ? cardLabel(t.card.brand, t.card.last4)
    : t.bank
      ? bankLabel(t.bank.last4)
      : t.gift_last4
        ? `Gift card •••• ${t.gift_last4}`
        : t.payment_method.replace(/_/g, ' ');
  return { token: t.token, action: t.action, state: t.state, amount_cents: t.amount_cents, currency: t.currency, method, refunded_cents: t.refunded_cents, created_at: t.created_at, watermark };
}

/** Money given back on an order's payments: refunds and voids of its completed sales and captures. */
function refundedOf(txs: readonly TxDoc[]): number {
  return txs.filter((t) => (t.data.action === 'sale' || t.data.action === 'capture') && t.data.state === 'completed').reduce((sum, t) => sum + t.data.refunded_cents, 0);
}

/** A list row before its state and money back are known; `register`: a register sale's order (its sale says its state). */
function orderRow(raw: OrderDoc): Omit<OrderRowView, 'refunded_cents' | 'state'> & { register: boolean } {
  const d = hydrateOrder(raw);
  return {
    register: typeof d.data.attributes?.pos_lane === 'string',
    identifier: d.data.identifier,
    number: d.data.number ?? null,
    customer_identifier: d.data.customer_identifier ?? null,
    amount_cents: d.data.amount_cents,
    currency: d.data.currency,
    draft: d.data.draft,
    created_at: d.data.created_at,
    watermark: raw.watermark,
  };
}

function paymentRow(d: PaymentDoc): PaymentRowView {
  const p = d.data;
  return {
    reference: d.id,
    token: p.token,
    customer_identifier: p.customer_identifier,
    date: p.date,
    amount_cents: p.amount_cents,
    currency: p.currency,
    // An ERP names a cheque by payment_code (the CSV sample does); the channel ("erp") only when nothing names it.
    method: p.external_payment_type ?? p.payment_method ?? p.payment_code ?? p.source,
    status: p.status,
    unapplied_cents: p.unapplied_cents,
    watermark: d.watermark,
  };
}

export interface SearchHit {
  kind: 'customer' | 'invoice' | 'payment' | 'order' | 'transaction' | 'receipt';
  key: string;
  label: string;
}

/**
 * The back office's one search box: a customer (identifier prefix), an invoice number or display
 * number, a payment reference or token, an order, a transaction token, a receipt number, each one
 * index lookup. Keys are exact, so what finds nothing typed in lower case (an ERP's numbers and
 * identifiers are upper case, mostly) is looked up again in upper case; what no key matches is
 * looked for in customers' names (customersNamed, which reads them all).
 */
export async function searchEverything(core: EngineCore, q: string, findSale: (key: string) => Promise<SaleLookup | undefined>): Promise<SearchHit[]> {
  const key = q.trim();
  let hits = await searchExactly(core, key, findSale);
  if (hits.length === 0 && key.toUpperCase() !== key) hits = await searchExactly(core, key.toUpperCase(), findSale);
  if (hits.length) return hits;
  // Keys are one index lookup each; names are read customer by customer, so only when no key matched.
  return (await customersNamed(core, key, NAME_HITS)).map((c) => ({ kind: 'customer', key: c.identifier, label: `${c.identifier} · ${c.data.name}` }));
}

/** Customers found by name at most, in the search box's answer. */
const NAME_HITS = 5;
/** Customers read per store call when searching names. */
const NAME_PAGE = 2_000;

/** Lower case without accents: "Éric" is found by "eric". */
const folded = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Whether a customer's name holds every word typed (in any case, with or without accents); null for fewer than two letters. */
function nameMatcher(q: string): ((c: CustomerDoc) => boolean) | null {
  const words = folded(q).split(/\s+/).filter(Boolean);
  if (words.join('').length < 2) return null;
  return (c) => {
    const name = folded(c.data.name ?? '');
    return words.every((w) => name.includes(w));
  };
}

/**
 * Customers whose name holds every word typed (in any case, with or without accents), oldest
 * first. A clerk types a name more often than an identifier; names have no index, so this reads
 * the customers in pages until it has `limit` of them: a shop's few thousand customers answer in
 * milliseconds, 100,000 in the order of a second by the store's read rate (estimated, not
 * measured; a search is a submitted form, not a keystroke).
 */
async function customersNamed(core: EngineCore, q: string, limit: number): Promise<CustomerDoc[]> {
  const named = nameMatcher(q);
  if (!named) return [];
  const found: CustomerDoc[] = [];
  for (let after = -1; found.length < limit; ) {
    const page = await core.find<CustomerDoc & Row>('customers', { selector: { watermark: { $gt: after } }, sort: [{ watermark: 'asc' }], limit: NAME_PAGE });
    for (const c of page) {
      if (named(c) && found.length < limit) found.push(c);
    }
    if (page.length < NAME_PAGE) break;
    after = page.at(-1)!.watermark;
  }
  return found;
}

async function searchExactly(core: EngineCore, key: string, findSale: (key: string) => Promise<SaleLookup | undefined>): Promise<SearchHit[]> {
  if (!key) return [];
  const hits: SearchHit[] = [];
  const customers = await core.find<CustomerDoc & Row>('customers', { selector: { identifier: { $gte: key, $lt: `${key}\uffff` } }, sort: [{ identifier: 'asc' }], limit: 5 });
  for (const c of customers) hits.push({ kind: 'customer', key: c.identifier, label: `${c.identifier} · ${c.data.name}` });
  const invoice =
    (await core.get<Row & { display_number: string }>('invoices', key)) ??
    (await core.find<Row & { display_number: string }>('invoices', { selector: { display_number: key }, sort: [{ display_number: 'asc' }, { id: 'asc' }], limit: 1 }))[0];
  if (invoice) hits.push({ kind: 'invoice', key: invoice.id, label: `Invoice ${invoice.display_number || invoice.id}` });
  const payment =
    (await core.get<PaymentDoc & Row>('payments', key)) ?? (await core.find<PaymentDoc & Row>('payments', { selector: { token: key }, sort: [{ token: 'asc' }], limit: 1 }))[0];
  if (payment) hits.push({ kind: 'payment', key: payment.id, label: `Payment ${payment.id}` });
  const order = await core.get<OrderDoc & Row>('orders', key);
  if (order) hits.push({ kind: 'order', key: order.id, label: `Order ${order.id}` });
  const transaction = await core.get<Row>('transactions', key);
  if (transaction) hits.push({ kind: 'transaction', key: transaction.id, label: `Transaction ${transaction.id}` });
  const sale = await findSale(key);
  // Opened in the back office's own read-only view of the sale (its order), not at the register:
  // taking a lane from a cashier is a sign-in there.
  if (sale) hits.push({ kind: 'receipt', key: sale.id, label: `Receipt ${sale.number}` });
  return hits;
}
