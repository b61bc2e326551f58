import type { MangoQuery } from 'rxdb';
import type { EngineCore } from '../core';
import type { StoredDoc } from '../../store/schema';

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
export async function byWatermark<T extends Doc>(
  core: EngineCore,
  collection: string,
  page: Page,
  options: { feed?: string; keep?: (doc: T) => boolean } = {},
): Promise<T[]> {
  return pageByWatermark((query) => core.find<T>(collection, query), (doc) => doc, page, options);
}

/** A stored rendering's UTF-8 bytes beside its document (see Store.findWithBytes). */
export interface WithBytes<T> {
  doc: T;
  bytes: Buffer | null;
}

/** byWatermark, each document with the bytes of its string at `path` (a stored rendering). */
export async function byWatermarkWithBytes<T extends Doc>(
  core: EngineCore,
  collection: string,
  path: string,
  page: Page,
  options: { feed?: string; keep?: (doc: T) => boolean } = {},
): Promise<Array<WithBytes<T>>> {
  return pageByWatermark((query) => core.findWithBytes<T>(collection, query, path), (r) => r.doc, page, options);
}

async function pageByWatermark<R, T extends Doc>(
  read: (query: MangoQuery<StoredDoc>) => Promise<R[]>,
  docOf: (r: R) => T,
  page: Page,
  options: { feed?: string; keep?: (doc: T) => boolean },
): Promise<R[]> {
  const out: R[] = [];
  let after = page.after;
  for (;;) {
    const want = page.limit - out.length;
    const query: MangoQuery<StoredDoc> = options.feed
      ? { selector: { feed: options.feed, watermark: { $gt: after } }, sort: [{ feed: 'asc' }, { watermark: 'asc' }], limit: want }
      : { selector: { watermark: { $gt: after } }, sort: [{ watermark: 'asc' }], limit: want };
    const rows = await read(query);
    for (const row of rows) if (!options.keep || options.keep(docOf(row))) out.push(row);
    if (rows.length < want || out.length >= page.limit) return out;
    after = docOf(rows[rows.length - 1]!).watermark;
  }
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

export const jsonPartsText = (parts: JsonParts): string => parts.head + parts.rest.toString('utf8');

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
