import { defineCollection, keyField, type CollectionDef } from '../schema';

/**
 * Small record kinds (account, credentials, lanes, divisions, wallets' satellites, batches...) share
 * one collection, keyed `<kind>/<key>`: RxDB's open core allows 13 open collections per process, so
 * only the large, separately exported entities get collections of their own.
 */
export const records = defineCollection('records', {
  fields: { kind: keyField(40), key: keyField(160), ref: keyField(160) },
  indexes: [
    ['kind', 'watermark'],
    ['kind', 'ref'],
  ],
});

/** The outbox: one row per record change, id = zero-padded watermark so id order is watermark order. */
export const events = defineCollection('events', {
  fields: { type: keyField(60), entity: keyField(40), key: keyField(160) },
  indexes: [['entity', 'watermark']],
  idLength: 20,
});

export const foundationCollections: CollectionDef[] = [records, events];
