/**
 * The invoice export speed-up, in one place. What it is for: an ERP catching up drains the
 * invoice feed (`GET /api/exports/invoices`, open and recent alike) page after page, 2,500 records
 * a page; the targets are 50,000 records/s and a page p99 under 50 ms over loopback HTTP, with the
 * serving process under 500 MB. Read and sent the plain way (parse each document, build the
 * record, JSON.stringify the page) a page cost several times that. What it takes, layer by layer:
 *
 * - The row layout (../invoice-layout.ts, given to the store when it opens): each invoice keeps
 *   its export rendering as JSON text in a column of its own (neither escaped on write nor parsed
 *   on read), and the four fields a page needs besides it (watermark, feed, change time, status
 *   basis) as a projection column.
 * - Packed reads (the store's generic primitive, Store.project / store/sqlite/packed-read.ts,
 *   which knows no domain): SQLite builds a 500-record chunk as one row, the renderings in one
 *   BLOB and the projected fields in one JSON array: no document is parsed.
 * - The assembly (invoice-pages.ts): which rows a feed sends, the chunks, and the codec's splice
 *   of status and watermark (what changes without a write) in front of each stored rendering.
 * - Read-ahead (read-ahead.ts): after a full page, the next one is read while the client parses
 *   this one, and answers the next request only if nothing was written in between.
 *   `serve --no-read-ahead` turns it off.
 * - The wire (wire.ts): each chunk's bytes are written into reused buffers and sent while the
 *   next chunk is read (Transfer-Encoding: chunked); a failure after the first chunk drops the
 *   connection, so a client never takes a short page for a whole one.
 * - Outside this folder, two things the numbers below also rely on: the server answers static
 *   API paths from a map instead of the router's walk (src/server/static-dispatch.ts, pinned by
 *   test/server/static-dispatch.test.ts), and `npm run serve` runs Node with
 *   `--max-semi-space-size=32` (fewer scavenges while a page's buffers are built).
 *
 * Measured (README, Benchmarks; `npm run bench:exports`, 1M invoices, limit 2500, on the 2-core
 * shared development machine): 72.1k-87.6k records/s over 5 runs at steal <= 1% (raw SQL scan
 * 138k-195k/s); page p50 10.1-12.9 ms, p99 27.2-30.1 ms; with `--no-read-ahead` 55.6k-65.8k/s,
 * p50 18.6-22.6 ms, p99 35.4-44.4 ms; serving process RSS 362-370 MB peak. On a busy host (steal
 * 16-31%) 44k-55k/s, p99 83-100 ms (raw scan p99 41-76 ms).
 *
 * Where a page's time goes: a page of 2,500 invoices is 4.3 MB. The server spends 16-21 ms of CPU
 * on it: reading it as one SQLite row per 500-record chunk is about 7 ms a page; splicing each
 * record's status and watermark in front of its rendering into reused buffers, and sending each
 * chunk while reading the next; the kernel's share (file reads, socket writes) is about 4 ms. The
 * client parses each page (20-25 ms of JSON.parse) before it asks for the next, which counts in
 * records/s, and is when the server reads the next page ahead: a page's time, from request to
 * whole body, is then mostly the transfer itself. Building a page's bytes took 1.8 ms into new
 * buffers and 0.6 ms into reused ones (89 scavenges instead of 145 over a 1M drain).
 */
export { EXPORT_CHUNK, byWatermarkProjected, createInvoicePages, type InvoiceFeed, type InvoicePages, type JsonRecord, type Projected } from './invoice-pages';
export { createReadAhead, type ReadAhead, type ReadAheadOptions, type RecordMeasure } from './read-ahead';
export { exportRecordBytes, sendExportChunks } from './wire';
