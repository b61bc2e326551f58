import type { JsonParts } from '../engine/receivables';
import type { ExportQuery } from '../shared/schemas/common';

/**
 * The export convention, in one place: read what changed after `watermark` (default 0), at most
 * `limit` (1..2500, default 100) records, oldest first; answer an object keyed by watermark, or with
 * `list=true` an array whose records carry `watermark`.
 */
export interface ExportParams {
  after: number;
  limit: number;
  list: boolean;
}

export function exportParams(query: ExportQuery): ExportParams {
  return { after: query.watermark ?? 0, limit: query.limit ?? 100, list: query.list === true };
}

export function exportShape<T extends { watermark: number }>(records: readonly T[], list: boolean): Record<string, T> | T[] {
  if (list) return [...records];
  const out: Record<string, T> = {};
  for (const r of records) out[String(r.watermark)] = r;
  return out;
}

/**
 * The same two shapes from records already serialised (exports that keep rendered JSON), wrapped
 * in `{ "<wrap>": ... }`, written straight into one buffer: the page is sent as the stored bytes,
 * never parsed, serialised or made a string.
 */
export function exportShapeBytes(wrap: string, records: ReadonlyArray<{ watermark: number; json: JsonParts }>, list: boolean): Buffer {
  const open = `{${JSON.stringify(wrap)}:${list ? '[' : '{'}`;
  const close = list ? ']}' : '}}';
  const keys = list ? undefined : records.map((r) => `"${r.watermark}":`);
  let size = Buffer.byteLength(open) + close.length + Math.max(0, records.length - 1);
  records.forEach((r, i) => {
    size += Buffer.byteLength(r.json.head) + r.json.rest.length + (keys ? keys[i]!.length : 0);
  });
  const out = Buffer.allocUnsafe(size);
  let at = out.write(open);
  records.forEach((r, i) => {
    if (i > 0) at = out.writeUInt8(0x2c, at);
    if (keys) at += out.write(keys[i]!, at, 'latin1');
    at += out.write(r.json.head, at);
    at += r.json.rest.copy(out, at);
  });
  at += out.write(close, at, 'latin1');
  if (at !== size) throw new Error(`export page size mismatch: wrote ${at} of ${size} bytes`);
  return out;
}
