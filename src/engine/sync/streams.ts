import type { MangoQuery } from 'rxdb';
import type { EngineCore, Tx } from '../core';
import type { StoredDoc } from '../../store/schema';
import { KIND } from '../register/model';

/**
 * What flows between a lane and its hub, one replication stream each. The owner of a stream's
 * documents is the only side that writes them: a lane owns its sales and what they bring with
 * them (orders, gateway transactions, journal, Z reports, shifts, drawer openings, refund and void
 * documents) and pushes them up; the hub owns the catalog, the cashiers and the register's
 * settings and sends them down. Owner wins: a pushed lane document replaces the hub's copy, a
 * pulled hub document replaces the lane's.
 *
 * Customers are the exception: edited on both sides, merged field by field on the hub
 * (customer-merge.ts).
 *
 * Deletions do not flow: nothing in these streams is deleted (a product or cashier is deactivated).
 */
export interface SyncStream {
  name: string;
  collection: 'records' | 'orders' | 'transactions' | 'customers';
  /** For `records`: the kinds of the stream. */
  kinds?: readonly string[];
  /** `up`: lane → hub (the lane owns them); `down`: hub → lane; `both`: edited on both, merged on the hub. */
  direction: 'up' | 'down' | 'both';
}

export const LANE_OWNED_KINDS = [KIND.sale, KIND.register, KIND.journal, KIND.z, KIND.shift, KIND.drawer, KIND.document, 'pos_offline_spend'] as const;
export const HUB_OWNED_KINDS = [KIND.product, KIND.cashier, KIND.settings, 'gift_card_copy', 'pos_hub_reversal'] as const;

export const SYNC_STREAMS: readonly SyncStream[] = [
  { name: 'lane_records', collection: 'records', kinds: LANE_OWNED_KINDS, direction: 'up' },
  { name: 'orders', collection: 'orders', direction: 'up' },
  { name: 'transactions', collection: 'transactions', direction: 'up' },
  { name: 'hub_records', collection: 'records', kinds: HUB_OWNED_KINDS, direction: 'down' },
  { name: 'customers', collection: 'customers', direction: 'both' },
];

export function streamNamed(name: string): SyncStream | undefined {
  return SYNC_STREAMS.find((s) => s.name === name);
}

/** A document as it travels: the stored document without RxDB's bookkeeping, watermark included. */
export type SyncDoc = StoredDoc & { _deleted?: boolean };

/**
 * Two versions hold the same document when they differ at most in the watermark: each install
 * stamps its own watermark on what it stores, so the watermark never says whether data differs.
 */
export function sameDocument(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!a || !b) return a === b;
  return canonical(bodyOf(a)) === canonical(bodyOf(b));
}

export function bodyOf(doc: Record<string, unknown>): Record<string, unknown> {
  const { watermark: _w, _rev: _r, _meta: _m, _attachments: _a, _deleted: _d, ...body } = doc;
  return body;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
    }
    return v;
  });
}

export function inStream(stream: SyncStream, doc: Record<string, unknown>): boolean {
  if (stream.collection !== 'records') return true;
  return typeof doc.kind === 'string' && (stream.kinds ?? []).includes(doc.kind);
}

/**
 * The stream's documents after `watermark`, oldest first, at most `limit`: the watermark is the
 * checkpoint on both sides (the spec's polling rule: the greatest watermark seen is the next start).
 */
export async function changesSince(reader: EngineCore | Tx, stream: SyncStream, watermark: number, limit: number): Promise<SyncDoc[]> {
  if (stream.collection !== 'records') {
    const query: MangoQuery<StoredDoc> = { selector: { watermark: { $gt: watermark } }, sort: [{ watermark: 'asc' }], limit };
    return reader.find<SyncDoc>(stream.collection, query);
  }
  const pages = await Promise.all(
    (stream.kinds ?? []).map((kind) =>
      reader.find<SyncDoc>('records', { selector: { kind, watermark: { $gt: watermark } }, sort: [{ kind: 'asc' }, { watermark: 'asc' }], limit }),
    ),
  );
  return pages.flat().sort((a, b) => a.watermark - b.watermark).slice(0, limit);
}

/** The lane a lane-owned document belongs to, where the document says ('' when it does not). */
export function laneOfDocument(stream: SyncStream, doc: SyncDoc): string {
  const data = (doc.data ?? {}) as Record<string, unknown>;
  if (stream.collection === 'orders') {
    const attributes = (data.attributes ?? {}) as Record<string, unknown>;
    return typeof attributes.pos_lane === 'string' ? attributes.pos_lane : '';
  }
  if (stream.collection !== 'records') return typeof data.laneid === 'string' ? data.laneid : '';
  const key = String(doc.key ?? '');
  const ref = String(doc.ref ?? '');
  switch (doc.kind) {
    case KIND.sale:
    case KIND.shift:
    case 'pos_offline_spend':
      return String(data.laneid ?? '');
    case KIND.register:
      return key;
    case KIND.journal:
      return ref.slice(0, ref.indexOf('/'));
    case KIND.z:
      return key.slice(0, key.indexOf('/'));
    case KIND.drawer:
      return ref;
    case KIND.document:
      return key.slice(0, key.lastIndexOf('-'));
    default:
      return '';
  }
}

/** The lane of a receipt number `<laneid>-<seq>` (saleNumber), '' when it is not one. */
export function laneOfNumber(number: unknown): string {
  const m = typeof number === 'string' ? /^([A-Za-z0-9][A-Za-z0-9_.-]{0,31})-[0-9]{1,8}$/.exec(number) : null;
  return m ? m[1]! : '';
}

/** The event a replicated write announces: the document's own entity, verb `synced`. */
export function syncEventOf(stream: SyncStream, doc: SyncDoc): { type: string; entity: string; key: string } {
  const entity = stream.collection === 'records' ? String(doc.kind) : stream.collection === 'orders' ? 'order' : stream.collection === 'transactions' ? 'transaction' : 'customer';
  const key = stream.collection === 'records' ? String(doc.key) : doc.id;
  return { type: `${entity}.synced`, entity, key };
}

/** How many of the stream's documents come after `watermark` (an index count, no documents read). */
export async function countSince(core: EngineCore, stream: SyncStream, watermark: number): Promise<number> {
  if (stream.collection !== 'records') return core.store.count(stream.collection, { watermark: { $gt: watermark } });
  const counts = await Promise.all((stream.kinds ?? []).map((kind) => core.store.count('records', { kind, watermark: { $gt: watermark } })));
  return counts.reduce((a, b) => a + b, 0);
}
