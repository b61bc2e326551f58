import { fail } from '../errors';
import type { SyncDoc, SyncStream } from './streams';

/**
 * On a chain's central install, every shop's documents live side by side, and what a hub holds is
 * keyed within its shop only: two shops both have `pos_register/2`, Z report `2/2026-11-23`, and
 * order or transaction ids that a test install (or a restored backup) hands out again. So the
 * central keys a shop's document by the shop: the id (and, for records, the key) starts with
 * `<shop>:`, and so do the indexed fields that name another document of the same shop (a record's
 * `ref`, a transaction's `order_id`, `unique_reference`, `client_reference` and `batch_id`), so a lookup on the
 * central stays within the shop. The body (`data`) is the hub's, unchanged; the shop is read back
 * from the key with `shopOfCentralId`.
 */
const SHOP = /^[A-Za-z0-9_-]{1,20}$/;

/** A shop's name as it goes in subjects and keys: letters, digits, `-` and `_`, at most 20. */
export function requireShopName(shop: string): string {
  if (!SHOP.test(shop)) throw fail.invalid('chain_shop_invalid', `A shop's name is 1 to 20 letters, digits, - or _ (got "${shop}")`);
  return shop;
}

const prefixed = (shop: string, value: unknown) => (typeof value === 'string' && value !== '' ? `${shop}:${value}` : value);

/** The document as the central install stores it for `shop`. */
export function centralDocument(shop: string, stream: SyncStream, doc: SyncDoc): SyncDoc {
  if (stream.collection === 'records') {
    const key = `${shop}:${String(doc.key)}`;
    return { ...doc, id: `${String(doc.kind)}/${key}`, key, ref: prefixed(shop, doc.ref) } as SyncDoc;
  }
  const out = { ...doc, id: `${shop}:${doc.id}` } as SyncDoc & Record<string, unknown>;
  if (stream.collection === 'transactions') {
    for (const field of ['order_id', 'unique_reference', 'client_reference', 'batch_id']) out[field] = prefixed(shop, out[field]);
  }
  return out;
}

/** The shop a central document came from ('' for one that is not a shop's). */
export function shopOfCentralId(collection: SyncStream['collection'], id: string): string {
  const local = collection === 'records' ? id.slice(id.indexOf('/') + 1) : id;
  const colon = local.indexOf(':');
  return colon > 0 ? local.slice(0, colon) : '';
}
