import type { EngineCore, Tx } from '../core';
import type { Account } from '../account';
import { fail, notFound } from '../errors';
import type { OrderInput } from '../../shared/schemas/orders';
import type { OrderTransactionView } from '../../shared/schemas/gateway';
import { TRANSACTIONS, transactionView, type TxDoc } from '../gateway/transaction-record';
import { settlementTokens } from '../gateway/settlement-tokens';
import {
  ORDERS,
  hydrateOrder,
  applyOrderInput,
  checkImportable,
  extendedAttribute,
  itemView,
  orderDoc,
  sameOrder,
  type OrderData,
  type OrderDoc,
} from './order-record';

export type { OrderData, OrderDoc } from './order-record';

/** The order as exports and views show it. */
export type OrderView = Record<string, unknown> & { watermark: number; identifier: string; transactions: OrderTransactionView[] };

export interface ResolvedOrder {
  data: OrderData;
  changed: boolean;
  created: boolean;
}

export interface ExportPage {
  after: number;
  limit: number;
}

export interface Orders {
  /** POST /api/imports/order: a new order; a retry with the same content answers the stored order. */
  create(input: OrderInput): Promise<{ message: string; identifier: string; order: OrderView }>;
  /** PATCH /api/imports/order: updates the order named by `identifier`. */
  update(input: OrderInput): Promise<{ message: string; identifier: string; order: OrderView }>;
  /** The order with its items and transactions; undefined when unknown. */
  view(identifier: string): Promise<OrderView | undefined>;
  exportOrders(page: ExportPage): Promise<OrderView[]>;
  exportPublished(page: ExportPage & { attributes?: Record<string, string> }): Promise<OrderView[]>;
  /** Inside a gateway unit of work: the order a transaction names (object: created or updated). */
  resolveInTx(tx: Tx, order: string | OrderInput, defaults: { amountCents: number; currency: string }): Promise<ResolvedOrder>;
  /** Writes an order resolved by resolveInTx (one put), when it changed. */
  putInTx(tx: Tx, resolved: ResolvedOrder): Promise<void>;
}

export interface OrdersDeps {
  core: EngineCore;
  account: Account;
}

export function createOrders(deps: OrdersDeps): Orders {
  const ctx = deps;
  const { core, account } = ctx;
  return {
    async create(input) {
      account.require('orders');
      checkImportable(input as Record<string, unknown>);
      return core.mutate((tx) => createOrderInTx(ctx, tx, input));
    },

    async update(input) {
      account.require('orders');
      checkImportable(input as Record<string, unknown>);
      if (!input.identifier) throw fail.precondition('identifier_unspecified', 'identifier is required to update an order');
      const identifier = input.identifier;
      return core.mutate((tx) => updateOrderInTx(ctx, tx, identifier, input));
    },

    async view(identifier) {
      const doc = hydrateOrder(await core.get<OrderDoc>(ORDERS, identifier));
      return doc ? orderView(ctx, core, doc) : undefined;
    },

    exportOrders(page) {
      return exportScan(ctx, {}, [{ watermark: 'asc' }], page, () => true);
    },

    exportPublished(page) {
      const wanted = Object.entries(page.attributes ?? {});
      return exportScan(ctx, { published: true }, [{ published: 'asc' }, { watermark: 'asc' }], page, (d) =>
        wanted.every(([k, v]) => {
          const value = extendedAttribute(d.data, k);
          return value !== undefined && value !== null && String(value) === v;
        }),
      );
    },

    resolveInTx: (tx, order, defaults) => resolveOrderInTx(ctx, tx, order, defaults),

    async putInTx(tx, resolved) {
      if (resolved.changed) await writeOrder(tx, resolved.data, resolved.created);
    },
  };
}

function validateOrder(ctx: OrdersDeps, data: OrderData): void {
  if (data.settlement_token && !settlementTokens(ctx.account.profile()).all.includes(data.settlement_token)) {
    throw notFound('settlement_token_not_found', `settlement_token ${data.settlement_token} is not one of this account's processors (see GET /api/whoami)`, 'precondition');
  }
  if (data.amount_cents !== null && data.amount_cents < 0) throw fail.precondition('invalid_amount', 'amount_cents must not be negative');
}

async function transactionsOf(ctx: OrdersDeps, reader: Tx | EngineCore, identifier: string, order: OrderData): Promise<OrderTransactionView[]> {
  const docs = await reader.find<TxDoc>(TRANSACTIONS, { selector: { order_id: identifier }, sort: [{ order_id: 'asc' }, { watermark: 'asc' }] });
  const summary = { identifier, number: order.number, amount_cents: order.amount_cents };
  return docs.map((d) => transactionView(d.data, { accountName: ctx.account.profile().name, order: summary }));
}

async function orderView(ctx: OrdersDeps, reader: Tx | EngineCore, stored: OrderDoc): Promise<OrderView> {
  const doc = hydrateOrder(stored);
  const o = doc.data;
  const { extra, order_items, published_at: _p, ...fields } = o;
  return {
    ...extra,
    ...fields,
    watermark: doc.watermark,
    order_items: order_items.map(itemView),
    transactions: await transactionsOf(ctx, reader, o.identifier, o),
  };
}

const message = (o: OrderData) => `1 order ${o.order_items.length} order item(s)`;

const writeOrder = async (tx: Tx, data: OrderData, created: boolean) =>
  (await tx.put(ORDERS, orderDoc(data), {
    type: created ? 'order.created' : 'order.updated',
    entity: 'order',
    key: data.identifier,
    data: { draft: data.draft, amount_cents: data.amount_cents, currency: data.currency },
  })) as OrderDoc;

async function exportScan(ctx: OrdersDeps, selector: Record<string, unknown>, sort: Array<Record<string, 'asc'>>, page: ExportPage, keep: (o: OrderDoc) => boolean): Promise<OrderView[]> {
  const out: OrderDoc[] = [];
  let after = page.after;
  // Filtered exports read the index in chunks until the page is full: a filter never shortens a
  // page whose later records would match.
  for (;;) {
    const chunk = (await ctx.core.find<OrderDoc>(ORDERS, { selector: { ...selector, watermark: { $gt: after } }, sort, limit: Math.max(page.limit, 200) })).map(hydrateOrder);
    for (const d of chunk) {
      if (keep(d)) out.push(d);
      if (out.length >= page.limit) break;
    }
    if (out.length >= page.limit || chunk.length < Math.max(page.limit, 200)) break;
    after = chunk[chunk.length - 1]!.watermark;
  }
  return Promise.all(out.map((d) => orderView(ctx, ctx.core, d)));
}

/** A new order; the same content sent again answers the stored order. */
async function createOrderInTx(ctx: OrdersDeps, tx: Tx, input: OrderInput) {
  const identifier = input.identifier ?? ctx.core.ids.token();
  const existing = hydrateOrder(await tx.get<OrderDoc>(ORDERS, identifier));
  const next = applyOrderInput(undefined, input, identifier, tx.at);
  if (existing) {
    if (!sameOrder(existing.data, next)) throw fail.precondition('order_exists', `Order ${identifier} already exists: update it with PATCH /api/imports/order`);
    return { message: message(existing.data), identifier, order: await orderView(ctx, tx, existing) };
  }
  validateOrder(ctx, next);
  const doc = await writeOrder(tx, next, true);
  return { message: message(next), identifier, order: await orderView(ctx, tx, doc) };
}

async function updateOrderInTx(ctx: OrdersDeps, tx: Tx, identifier: string, input: OrderInput) {
  const existing = hydrateOrder(await tx.get<OrderDoc>(ORDERS, identifier));
  if (!existing) throw notFound('order_not_found', `No order ${identifier}`, 'precondition');
  if (input.draft === true && !existing.data.draft) {
    throw fail.precondition('order_published', `Order ${identifier} is published and cannot become a draft again`);
  }
  const next = { ...applyOrderInput(existing.data, input, identifier, tx.at), updated_at: tx.at };
  validateOrder(ctx, next);
  const doc = await writeOrder(tx, next, false);
  return { message: message(next), identifier, order: await orderView(ctx, tx, doc) };
}

/** Inside a gateway unit of work: the order a transaction names (object: created or updated). */
async function resolveOrderInTx(ctx: OrdersDeps, tx: Tx, order: string | OrderInput, defaults: { amountCents: number; currency: string }): Promise<ResolvedOrder> {
  if (typeof order === 'string') {
    const doc = hydrateOrder(await tx.get<OrderDoc>(ORDERS, order));
    if (!doc) throw notFound('order_not_found', `No order ${order}`, 'gateway');
    return { data: doc.data, changed: false, created: false };
  }
  try {
    checkImportable(order as Record<string, unknown>);
  } catch (err) {
    throw fail.gateway('not_importable', (err as Error).message);
  }
  const identifier = order.identifier ?? ctx.core.ids.token();
  const existing = order.identifier ? hydrateOrder(await tx.get<OrderDoc>(ORDERS, identifier)) : undefined;
  const withDefaults: OrderInput = existing
    ? order
    : { ...order, amount_cents: order.amount_cents ?? defaults.amountCents, currency: order.currency ?? defaults.currency };
  let next = applyOrderInput(existing?.data, withDefaults, identifier, tx.at);
  if (existing && existing.data.draft === false && next.draft) next = { ...next, draft: false };
  if (existing) next = { ...next, updated_at: tx.at };
  try {
    validateOrder(ctx, next);
  } catch (err) {
    throw fail.gateway((err as { code: string }).code, (err as Error).message);
  }
  const changed = !existing || !sameOrder(existing.data, next);
  return { data: changed || !existing ? next : existing.data, changed, created: !existing };
}
