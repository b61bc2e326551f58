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
  return pageByWatermark((query) => core.find<T>(collection, query), (doc) => doc.watermark, page, options);
}

/** A stored rendering's UTF-8 bytes beside a few fields of its record (see Store.project). */
export interface Projected<V extends readonly unknown[]> {
  /** The values of the fields asked for, in that order: the first is the watermark. */
  values: V;
  bytes: Buffer | null;
}

/**
 * byWatermark for exports of stored renderings: no record is read whole, only `fields` (the
 * first must be `watermark`) and the bytes of the text at `textPath`.
 */
export async function byWatermarkProjected<V extends readonly [number, ...unknown[]]>(
  core: EngineCore,
  collection: string,
  fields: readonly ['watermark', ...string[]],
  textPath: string,
  page: Page,
  options: { feed?: string; keep?: (values: V) => boolean } = {},
): Promise<Array<Projected<V>>> {
  const read = async (query: MangoQuery<StoredDoc>) => {
    const { values, bytes } = await core.project(collection, query, fields, textPath);
    return values.map((v, i) => ({ values: v as unknown as V, bytes: bytes[i] ?? null }));
  };
  return pageByWatermark(read, (r) => r.values[0], page, { ...options, keep: options.keep && ((r: Projected<V>) => options.keep!(r.values)) });
}

async function pageByWatermark<R>(
  read: (query: MangoQuery<StoredDoc>) => Promise<R[]>,
  watermarkOf: (r: R) => number,
  page: Page,
  options: { feed?: string; keep?: (r: R) => boolean },
): Promise<R[]> {
  const out: R[] = [];
  let after = page.after;
  for (;;) {
    const want = page.limit - out.length;
    const query: MangoQuery<StoredDoc> = options.feed
      ? { selector: { feed: options.feed, watermark: { $gt: after } }, sort: [{ feed: 'asc' }, { watermark: 'asc' }], limit: want }
      : { selector: { watermark: { $gt: after } }, sort: [{ watermark: 'asc' }], limit: want };
    const rows = await read(query);
    for (const row of rows) if (!options.keep || options.keep(row)) out.push(row);
    if (rows.length < want || out.length >= page.limit) return out;
    after = watermarkOf(rows[rows.length - 1]!);
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
