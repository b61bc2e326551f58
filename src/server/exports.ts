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
