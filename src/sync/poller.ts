/**
 * The client side of watermark polling, as the spec's polling protocol describes it: ask for what
 * changed after the greatest watermark seen, starting from 0, until a page comes back short. Used
 * by replication from another install or an upstream service, and by tests that act as an ERP.
 */
export interface PageRequest {
  watermark: number;
  limit: number;
  list: boolean;
}

/** Fetches one export page; returns the parsed body (an object keyed by watermark, or an array). */
export type PageFetcher = (request: PageRequest) => Promise<unknown>;

export interface DrainOptions {
  from?: number;
  limit?: number;
  list?: boolean;
  /** Picks the records out of a body that wraps them (e.g. `{ orders: ... }`). */
  unwrap?: (body: unknown) => unknown;
  /** Safety stop for a misbehaving server that never returns a short page. */
  maxPages?: number;
}

export interface WatermarkedRecord {
  watermark: number;
  [field: string]: unknown;
}

/** Records of one page in watermark order, whatever shape the page came in. */
export function pageRecords(body: unknown): WatermarkedRecord[] {
  if (Array.isArray(body)) return body as WatermarkedRecord[];
  if (body && typeof body === 'object') {
    return Object.entries(body as Record<string, WatermarkedRecord>)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([key, record]) => ({ ...record, watermark: typeof record.watermark === 'number' ? record.watermark : Number(key) }));
  }
  return [];
}

/** Yields pages until the export is drained; the last watermark is the resume point. */
export async function* drainExport(fetchPage: PageFetcher, options: DrainOptions = {}): AsyncGenerator<WatermarkedRecord[], number> {
  let watermark = options.from ?? 0;
  const limit = options.limit ?? 100;
  const list = options.list ?? true;
  for (let page = 0; page < (options.maxPages ?? Number.MAX_SAFE_INTEGER); page++) {
    const body = await fetchPage({ watermark, limit, list });
    const records = pageRecords(options.unwrap ? options.unwrap(body) : body);
    for (const r of records) {
      if (!(r.watermark > watermark)) throw new Error(`export returned watermark ${r.watermark} not after ${watermark}: it would loop`);
      watermark = r.watermark;
    }
    if (records.length > 0) yield records;
    if (records.length < limit) return watermark;
  }
  throw new Error(`export not drained after ${options.maxPages} pages`);
}
