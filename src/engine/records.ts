import type { EngineCore, EventSpec, Tx } from './core';

/**
 * Helpers for the shared `records` collection, where small record kinds live as
 * `{ id: '<kind>/<key>', kind, key, ref, watermark, data }`. `ref` is one optional secondary
 * lookup key (a wallet's customer, a lane's port...), indexed with the kind.
 */
export interface RecordDoc<T> {
  id: string;
  kind: string;
  key: string;
  ref: string;
  watermark: number;
  data: T;
}

export const recordId = (kind: string, key: string) => `${kind}/${key}`;

export async function getRecord<T>(reader: Tx | EngineCore, kind: string, key: string): Promise<RecordDoc<T> | undefined> {
  return reader.get<RecordDoc<T> & { [k: string]: unknown }>('records', recordId(kind, key));
}

export async function putRecord<T>(
  tx: Tx,
  kind: string,
  key: string,
  data: T,
  event: EventSpec,
  ref = '',
): Promise<RecordDoc<T>> {
  return tx.put('records', { id: recordId(kind, key), kind, key, ref, data }, event) as Promise<RecordDoc<T>>;
}

/** Records of a kind by watermark (exports), oldest first. */
export async function recordsSince<T>(reader: Tx | EngineCore, kind: string, after: number, limit: number): Promise<Array<RecordDoc<T>>> {
  return reader.find<RecordDoc<T> & { [k: string]: unknown }>('records', {
    selector: { kind, watermark: { $gt: after } },
    sort: [{ kind: 'asc' }, { watermark: 'asc' }],
    limit,
  });
}

export async function recordsByRef<T>(reader: Tx | EngineCore, kind: string, ref: string): Promise<Array<RecordDoc<T>>> {
  return reader.find<RecordDoc<T> & { [k: string]: unknown }>('records', {
    selector: { kind, ref },
    sort: [{ kind: 'asc' }, { ref: 'asc' }, { id: 'asc' }],
  });
}

export async function recordsOfKind<T>(reader: Tx | EngineCore, kind: string): Promise<Array<RecordDoc<T>>> {
  return reader.find<RecordDoc<T> & { [k: string]: unknown }>('records', {
    selector: { kind },
    sort: [{ kind: 'asc' }, { watermark: 'asc' }],
  });
}
