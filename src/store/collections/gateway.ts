import { defineCollection, keyField, watermarkField, type CollectionDef } from '../schema';

/** Epoch milliseconds in an index (0 = none). */
const instantField = { ...watermarkField } as const;

/**
 * Orders, keyed by their identifier. `published` (draft=false) and the watermark serve the two
 * exports; the record body lives in `data`.
 */
export const orders = defineCollection('orders', {
  fields: { published: { type: 'boolean' } },
  indexes: [['watermark'], ['published', 'watermark']],
  idLength: 100,
});

/**
 * Gateway transactions, keyed by token. Indexed for: the order view (`order_id`), duplicate
 * requests (`unique_reference`: the retry key `<action>/<order>/<reference>`, '' when none), a
 * lookup by the client's own unique_reference, newest first (`client_reference`, '' when none),
 * the clock-driven work (`due_at`: the instant at which the processing-day cut-off, a hold release
 * or an ACH settlement next concerns this transaction, 0 when nothing is pending), a settlement
 * batch's contents (`batch_id`) and a fund's history, newest first (`recency` = RECENCY_BASE -
 * created ms, so an ascending index scan starts at the newest).
 *
 * `client_reference` came later, with its index: a folder from before opens (database.ts
 * acceptLayoutChanges) and its rows, which lack it, are indexed under '' (found by token or by the
 * retry key they showed as their unique_reference).
 */
export const transactions = defineCollection('transactions', {
  fields: {
    order_id: keyField(100),
    unique_reference: keyField(240),
    client_reference: keyField(240),
    due_at: instantField,
    batch_id: keyField(120),
    fund: keyField(40),
    recency: instantField,
  },
  // Each index costs every sale an index write: only those the gateway queries.
  indexes: [['order_id', 'watermark'], ['unique_reference'], ['client_reference', 'recency'], ['due_at'], ['batch_id', 'watermark'], ['fund', 'recency']],
  idLength: 40,
});

/** Wallets (a customer's vaulted payment methods), by token; searchable by customer and email. */
export const wallets = defineCollection('wallets', {
  fields: { customer: keyField(100), email: keyField(200), updated_ms: instantField },
  indexes: [['watermark'], ['customer'], ['email'], ['updated_ms']],
  idLength: 40,
});

/** Payment methods (funds) inside wallets, by fund token; searchable by wallet and vault token. */
export const funds = defineCollection('funds', {
  fields: { wallet: keyField(40), vault: keyField(80) },
  indexes: [['wallet'], ['vault']],
  idLength: 40,
});

/** `recency` of a transaction created at `ms`. */
export const RECENCY_BASE = 9_000_000_000_000_000;

export const gatewayCollections: CollectionDef[] = [orders, transactions, wallets, funds];
