import type { MangoQuery } from 'rxdb';
import type { EngineCore } from '../../core';
import type { StoredDoc } from '../../../store/schema';
import { RECENT_MS, chunksByWatermark, collect, mergeByWatermark, recentFrom, type JsonParts, type Page } from '../exports';
import { invoiceJsonParts, type InvoiceFields } from '../invoice-codec';
import { INVOICE_EXPORT_FIELDS, INVOICE_VIEW_PATH } from '../invoice-layout';
import { createReadAhead, type RecordMeasure } from './read-ahead';

export type InvoiceFeed = 'all' | 'recent' | 'open';

/**
 * Records per chunk of an invoice export page: about 850 KB, so a 2,500-record page is sent in
 * five writes, the first after a fifth of the page's reading.
 */
export const EXPORT_CHUNK = 500;

/** A stored rendering's UTF-8 bytes beside a few fields of its record (see Store.project). */
export interface Projected<V extends readonly unknown[]> {
  /** The values of the fields asked for, in that order: the first is the watermark. */
  values: V;
  bytes: Buffer | null;
}

/** One record of an export page, as the JSON it is sent as. */
export interface JsonRecord {
  watermark: number;
  json: JsonParts;
}

/**
 * byWatermark (../exports.ts) for exports of stored renderings: no record is read whole, only
 * `fields` (the first must be `watermark`) and the bytes of the text at `textPath`. The page comes
 * in chunks of at most `chunk` records, each read by its own query, so that a chunk can be sent
 * while the next one is read; together they are the same page as one read would give.
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

export interface InvoicePages {
  /**
   * A page of the invoice export as JSON per record, in chunks of at most `chunk` records, each
   * read when the one before has been taken, and the day its statuses are computed for.
   */
  chunks(feed: InvoiceFeed, page: Page, options?: { includeDeleted?: boolean; chunk?: number }): { asOf: string; records: AsyncGenerator<JsonRecord[]> };
  /** Stops reading ahead and drops what was read (before the store closes). */
  close(): Promise<void>;
}

/**
 * The invoice export's pages: the stored renderings (the layout's text column) as bytes, with the
 * few fields that decide whether each is sent and what goes in front of it (INVOICE_EXPORT_FIELDS),
 * spliced into JSON by the codec, and read ahead where a page does not depend on the clock.
 */
export function createInvoicePages(core: EngineCore, options: { today: () => string; readAhead?: boolean }): InvoicePages {
  const recentAfter = async (page: Page): Promise<Page> => {
    const from = await recentFrom(core, 'invoices', core.clock.now() - RECENT_MS);
    return { after: Math.max(page.after, from - 1), limit: page.limit };
  };

  const invoiceChunks = async function* (feed: InvoiceFeed, page: Page, includeDeleted: boolean, chunk?: number): AsyncGenerator<Array<Projected<InvoiceFields>>> {
    const read = (p: Page, opts: { feed?: string; keep?: (v: InvoiceFields) => boolean }) =>
      byWatermarkProjected<InvoiceFields>(core, 'invoices', INVOICE_EXPORT_FIELDS, INVOICE_VIEW_PATH, p, { ...opts, ...(chunk ? { chunk } : {}) });
    if (feed === 'open') {
      if (!includeDeleted) return yield* read(page, { feed: 'open' });
      // Two feeds merged by watermark: each read whole, then merged into one chunk.
      const [open, deleted] = [await collect(read(page, { feed: 'open' })), await collect(read(page, { feed: 'deleted' }))];
      yield mergeByWatermark(open, deleted, page.limit, (r) => r.values[0]);
      return;
    }
    const since = core.clock.now() - RECENT_MS;
    const keep = ([, rowFeed, updatedMs]: InvoiceFields) => (includeDeleted || rowFeed !== 'deleted') && (feed !== 'recent' || (updatedMs ?? 0) >= since);
    yield* read(feed === 'recent' ? await recentAfter(page) : page, { keep });
  };

  const measure: RecordMeasure<Projected<InvoiceFields>> = { watermarkOf: (r) => r.values[0], bytesOf: (r) => r.bytes?.length ?? 0 };
  const readAhead = createReadAhead({ writeMark: () => `${core.currentWatermark()}:${core.commitStats().commits}`, enabled: options.readAhead ?? true });
  /** invoiceChunks, read ahead where a page does not depend on the clock (the recent feed does). */
  const invoicePages = (feed: InvoiceFeed, page: Page, includeDeleted: boolean, chunk?: number) =>
    feed === 'recent'
      ? invoiceChunks(feed, page, includeDeleted, chunk)
      : readAhead.pages(`invoices:${feed}:${includeDeleted}:${chunk ?? 0}`, page, (p) => invoiceChunks(feed, p, includeDeleted, chunk), measure);

  return {
    chunks(feed, page, opts = {}) {
      const includeDeleted = opts.includeDeleted === true;
      const day = options.today();
      const records = async function* () {
        for await (const rows of invoicePages(feed, page, includeDeleted, opts.chunk)) {
          yield rows.map(({ values: [watermark, , , st], bytes }) => ({ watermark, json: invoiceJsonParts({ watermark, st }, bytes, day, includeDeleted) }));
        }
      };
      return { asOf: day, records: records() };
    },
    close: () => readAhead.close(),
  };
}
