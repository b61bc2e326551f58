import type { EngineCore } from '../core';
import { notFound } from '../errors';
import { getRecord, putRecord, recordsOfKind } from '../records';

/**
 * Sync exceptions (`sync_exception` records: a push the hub refused, a gift card spent beyond the
 * floor while lanes were apart, a record the upstream cannot be told of) are work for a person:
 * each is open until someone marks it handled, saying who and when. A new occurrence of the same
 * exception (the same record key) is open again: it replaces the handled one.
 */
export const SYNC_EXCEPTION = 'sync_exception';

export interface Handling {
  handled_at: string;
  handled_by: string;
  handled_note?: string;
}

type Exception = Record<string, unknown> & { key: string; handled_at: string | null };

/** Open ones first, then handled ones, each newest first; `limit` in all. */
export async function listExceptions(core: EngineCore, limit: number): Promise<Exception[]> {
  const rows = (await recordsOfKind<Record<string, unknown>>(core, SYNC_EXCEPTION)).reverse();
  const all = rows.map((r) => ({ ...r.data, key: r.key, handled_at: typeof r.data.handled_at === 'string' ? r.data.handled_at : null }));
  return [...all.filter((e) => e.handled_at === null), ...all.filter((e) => e.handled_at !== null)].slice(0, limit);
}

/** Marks one exception handled (once: marking it again changes nothing and answers it as it is). */
export async function handleException(core: EngineCore, key: string, by: string, note?: string): Promise<Exception> {
  const row = await core.mutate(async (tx) => {
    const current = await getRecord<Record<string, unknown>>(tx, SYNC_EXCEPTION, key);
    if (!current) throw notFound('sync_exception_not_found', `No sync exception ${key}`);
    if (typeof current.data.handled_at === 'string') return current;
    const handling: Handling = { handled_at: tx.at, handled_by: by, ...(note ? { handled_note: note } : {}) };
    return putRecord(tx, SYNC_EXCEPTION, key, { ...current.data, ...handling }, { type: 'sync_exception.handled', entity: 'sync_exception', key, data: { handled_by: by } }, current.ref);
  });
  return { ...row.data, key: row.key, handled_at: row.data.handled_at as string };
}
