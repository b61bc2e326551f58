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
  return collect(chunksByWatermark((query) => core.find<T>(collection, query), (doc) => doc.watermark, page, options));
}

/** A stored rendering's UTF-8 bytes beside a few fields of its record (see Store.project). */
export interface Projected<V extends readonly unknown[]> {
  /** The values of the fields asked for, in that order: the first is the watermark. */
  values: V;
  bytes: Buffer | null;
}

/**
 * byWatermark for exports of stored renderings: no record is read whole, only `fields` (the
 * first must be `watermark`) and the bytes of the text at `textPath`. The page comes in chunks of
 * at most `chunk` records, each read by its own query, so that a chunk can be sent while the next
 * one is read; together they are the same page as one read would give.
 */
export async function* byWatermarkProjected<V extends readonly [number, ...unknown[]]>(
  core: EngineCore,
  collection: string,
  fields: readonly ['watermark', ...string[]],
  textPath: string,
  page: Page,
  options: { feed?: string; keep?: (values: V) => boolean; chunk?: number } = {},
): AsyncGenerator<Array<Projected<V>>> {
  const read = async (query: MangoQuery<StoredDoc>) => {
    const { values, bytes } = await core.project(collection, query, fields, textPath);
    return values.map((v, i) => ({ values: v as unknown as V, bytes: bytes[i] ?? null }));
  };
  const keep = options.keep && ((r: Projected<V>) => options.keep!(r.values));
  yield* chunksByWatermark(read, (r) => r.values[0], page, { ...options, keep });
}

async function* chunksByWatermark<R>(
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
