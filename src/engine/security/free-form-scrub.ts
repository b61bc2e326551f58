import type { EngineCore } from '../core';
import { getRecord, putRecord } from '../records';
import { maskFreeFormCardData } from './card-data';
import type { ScrubbableStore } from './key-upgrade';

/**
 * Free-form values (customers', invoices' and their lines', orders' and their items' extra keys
 * and attributes) were kept as sent before they were masked whatever their key (60713f6): an
 * install may still hold a card number or CVV an ERP put under `card_number` or `cvv`. Once per
 * install, after its start, this walks those records in pages by watermark, rewrites each one
 * masking changes (as an update: exports, webhooks and sync carry the masked version on), then
 * VACUUMs the file when it still holds a removed value. Its progress is a record, so a stop
 * part way resumes at the next start where the last page left it.
 */
const KIND = 'maintenance';
// The second walk: the first (free_form_card_data) ran before longer CVV and PIN names
// (card_cvv, pin_code) were known as theirs, and left their values in clear.
const KEY = 'free_form_card_data_2';
const PAGE = 500;

interface Progress {
  /** The last watermark of every collection at the first start: records written after it were masked when written. */
  until: number;
  collection: number;
  after: number;
  done_at?: string;
}

type Doc = Record<string, unknown> & { id: string; watermark: number; data: Record<string, unknown> };
type Rewrite = (doc: Doc) => { doc: Doc; removed: string[] } | undefined;

const WALKS: Array<{ collection: string; entity: string; key: (d: Doc) => string; rewrite: Rewrite }> = [
  { collection: 'customers', entity: 'customer', key: (d) => String(d.identifier ?? d.id), rewrite: (d) => maskedIn(d, d.data, ['extra']) },
  { collection: 'invoices', entity: 'invoice', key: (d) => d.id, rewrite: rewriteInvoiceView },
  {
    collection: 'orders',
    entity: 'order',
    key: (d) => d.id,
    rewrite: (d) => {
      const items = Array.isArray(d.data.order_items) ? (d.data.order_items as Array<Record<string, unknown>>) : [];
      return maskedIn(d, d.data, ['extra', 'attributes'], items.map((item) => [item, ['extra', 'attributes']] as const));
    },
  },
];

/** A new install masks free-form values from its first write: nothing to walk, ever. */
export async function freeFormScrubNotNeeded(core: EngineCore): Promise<void> {
  await core.mutate((tx) => putRecord(tx, KIND, KEY, { until: 0, collection: WALKS.length, after: 0, done_at: tx.at } satisfies Progress, { type: 'maintenance.progress', entity: KIND, key: KEY }));
}

export async function scrubFreeFormCardData(core: EngineCore, store: ScrubbableStore, stopped: () => boolean): Promise<void> {
  let progress = (await getRecord<Progress>(core, KIND, KEY))?.data ?? { until: core.currentWatermark(), collection: 0, after: 0 };
  if (progress.done_at) return;
  const removed = new Set<string>();
  let rewritten = 0;
  while (progress.collection < WALKS.length) {
    if (stopped()) return;
    const walk = WALKS[progress.collection]!;
    const page = await core.find<Doc>(walk.collection, { selector: { watermark: { $gt: progress.after, $lte: progress.until } }, sort: [{ watermark: 'asc' }], limit: PAGE });
    const at = progress;
    const next: Progress = page.length < PAGE ? { ...at, collection: at.collection + 1, after: 0 } : { ...at, after: page.at(-1)!.watermark };
    await core.mutate(async (tx) => {
      await tx.prefetch(walk.collection, page.map((d) => d.id));
      for (const found of page) {
        // Read again in the unit: an edit made since the page was read is kept (and was masked then).
        const current = await tx.get<Doc>(walk.collection, found.id);
        if (!current || current.watermark !== found.watermark) continue;
        const change = walk.rewrite(structuredClone(current));
        if (!change) continue;
        const { watermark: _w, ...doc } = change.doc;
        await tx.put(walk.collection, doc, { type: `${walk.entity}.updated`, entity: walk.entity, key: walk.key(current) });
        for (const value of change.removed) removed.add(value);
        rewritten += 1;
      }
      if (next.collection >= WALKS.length) next.done_at = tx.at;
      await putRecord(tx, KIND, KEY, next, { type: 'maintenance.progress', entity: KIND, key: KEY });
    });
    progress = next;
  }
  // What a rewrite replaced may rest in freed pages and the WAL until the file is rewritten.
  const scrubbed = (await store.scrub?.([...removed])) ?? { vacuumed: false };
  if (rewritten > 0) core.logger.warn({ rewritten, vacuumed: scrubbed.vacuumed }, 'card data found in free-form values stored by an earlier version was masked');
}

/** The doc with the named free-form fields of `owner` (and of each `[part, fields]`) masked, or undefined when nothing changes. */
function maskedIn(doc: Doc, owner: Record<string, unknown>, fields: readonly string[], parts: ReadonlyArray<readonly [Record<string, unknown>, readonly string[]]> = []): { doc: Doc; removed: string[] } | undefined {
  const removed: string[] = [];
  const mask = (o: Record<string, unknown>, names: readonly string[]) => {
    for (const name of names) {
      if (o[name] === undefined || o[name] === null) continue;
      const masked = maskFreeFormCardData(o[name]);
      if (JSON.stringify(masked) === JSON.stringify(o[name])) continue;
      removed.push(...differingLeaves(o[name], masked));
      o[name] = masked;
    }
  };
  mask(owner, fields);
  for (const [part, names] of parts) mask(part, names);
  return removed.length > 0 ? { doc, removed } : undefined;
}

/** An invoice rests as its rendering (invoice-codec.ts): its extended attributes and its lines' are masked there. */
function rewriteInvoiceView(doc: Doc): { doc: Doc; removed: string[] } | undefined {
  const view = JSON.parse(String(doc.data.view)) as Record<string, unknown> & { line_item_attributes?: Array<Record<string, unknown>> };
  const change = maskedIn(doc, view, ['extended_attributes'], (view.line_item_attributes ?? []).map((l) => [l, ['extended_attributes']] as const));
  if (!change) return undefined;
  return { doc: { ...doc, data: { ...doc.data, view: JSON.stringify(view) } }, removed: change.removed };
}

/** The strings and numbers (and key names) of `before` that masking changed: what the file must no longer hold. */
function differingLeaves(before: unknown, after: unknown): string[] {
  if (before === after) return [];
  if (Array.isArray(before)) return before.flatMap((v, i) => differingLeaves(v, (after as unknown[] | undefined)?.[i]));
  if (before && typeof before === 'object') {
    const a = (after ?? {}) as Record<string, unknown>;
    const keysAfter = Object.keys(a);
    return Object.entries(before).flatMap(([k, v], i) => [...(keysAfter[i] !== k ? [k] : []), ...differingLeaves(v, a[keysAfter[i] ?? k])]);
  }
  return typeof before === 'string' || typeof before === 'number' ? [String(before)] : [];
}
