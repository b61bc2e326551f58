import type { MangoQuery } from 'rxdb';
import type { EngineCore } from '../core';
import { DAY_MS } from '../clock';
import type { StoredDoc } from '../../store/schema';

/** What the recently-updated exports cover: records changed in the last seven days. */
export const RECENT_MS = 7 * DAY_MS;

export interface Page {
  after: number;
  limit: number;
}

type Doc = StoredDoc & { data: { updated_ms?: number } };

/**
 * Documents of `collection` changed after `after`, oldest first, at most `limit`, through the
 * [watermark] index (or [feed, watermark] when `feed` is given). A predicate that drops records
 * keeps reading until the page is full or the range ends, so an export never answers an empty
 * page while later records exist (a poller would stop early).
 */
export async function byWatermark<T extends StoredDoc>(
  core: EngineCore,
  collection: string,
  page: Page,
  options: { feed?: string; keep?: (doc: T) => boolean } = {},
): Promise<T[]> {
  return collect(chunksByWatermark((query) => core.find<T>(collection, query), (doc) => doc.watermark, page, options));
}

/**
 * A page read in chunks of at most `options.chunk` records, each by its own query (`read`); a
 * predicate that drops records keeps reading until the page is full or the range ends.
 */
export async function* chunksByWatermark<R>(
  read: (query: MangoQuery<StoredDoc>) => Promise<R[]>,
  watermarkOf: (r: R) => number,
  page: Page,
  options: { feed?: string; keep?: (r: R) => boolean; chunk?: number },
): AsyncGenerator<R[]> {
  let left = page.limit;
  let after = page.after;
  while (left > 0) {
    const want = Math.min(left, options.chunk ?? left);
    const query: MangoQuery<StoredDoc> = options.feed
      ? { selector: { feed: options.feed, watermark: { $gt: after } }, sort: [{ feed: 'asc' }, { watermark: 'asc' }], limit: want }
      : { selector: { watermark: { $gt: after } }, sort: [{ watermark: 'asc' }], limit: want };
    const rows = await read(query);
    const kept = options.keep ? rows.filter(options.keep) : rows;
    if (kept.length > 0) yield kept;
    left -= kept.length;
    if (rows.length < want) return;
    after = watermarkOf(rows[rows.length - 1]!);
  }
}

/** Collects a chunked page. */
export async function collect<T>(chunks: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of chunks) out.push(...chunk);
  return out;
}

/**
 * One record's export JSON as UTF-8, in two parts sent one after the other: `head` (ASCII, what
 * is computed at read time) and `rest` (stored bytes). Pages of them are sent without any record
 * being parsed, serialised or turned into a string.
 */
export interface JsonParts {
  head: string;
  rest: Buffer;
}

/** Merges two watermark-ordered pages (the open and the deleted invoice feeds) into one. */
export function mergeByWatermark<T>(a: T[], b: T[], limit: number, watermarkOf: (x: T) => number): T[] {
  return [...a, ...b].sort((x, y) => watermarkOf(x) - watermarkOf(y)).slice(0, limit);
}

/**
 * The first watermark from which every version is recent (changed at or after `since` ms): found
 * by a binary search over the [watermark] index, since watermarks and change times grow together.
 * Recently-updated exports start there instead of scanning every older record.
 */
export async function recentFrom(core: EngineCore, collection: string, since: number): Promise<number> {
  let lo = 0;
  let hi = core.currentWatermark() + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const [doc] = await core.find<Doc>(collection, { selector: { watermark: { $gte: mid } }, sort: [{ watermark: 'asc' }], limit: 1 });
    if (!doc) hi = mid;
    else if ((doc.data.updated_ms ?? 0) >= since) hi = mid;
    else lo = doc.watermark + 1;
  }
  return lo;
}
