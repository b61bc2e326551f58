import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  BulkWriteRow,
  MangoQuery,
  PreparedQuery,
  RxDocumentData,
  RxJsonSchema,
  RxStorage,
  RxStorageInstance,
} from 'rxdb';
import { fillWithDefaultSettings, normalizeMangoQuery, prepareQuery, randomToken } from 'rxdb';

export function makeTempDir(prefix = 'laneway-store-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

export type Payment = {
  id: string;
  merchant: string;
  amount: number;
  status: string;
  captured: boolean;
  note?: string;
  tip?: number;
};

export const paymentSchema: RxJsonSchema<Payment> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 40 },
    merchant: { type: 'string', maxLength: 12 },
    amount: { type: 'integer', minimum: 0, maximum: 1_000_000, multipleOf: 1 },
    status: { type: 'string', maxLength: 12 },
    captured: { type: 'boolean' },
    note: { type: 'string' },
    tip: { type: 'number' },
  },
  required: ['id', 'merchant', 'amount', 'status', 'captured'],
  indexes: ['merchant', 'amount', ['status', 'amount'], 'captured'],
};

export const filledPaymentSchema: RxJsonSchema<RxDocumentData<Payment>> = fillWithDefaultSettings(paymentSchema);

let revCounter = 0;

/** A stored document as RxDB would hand it to a storage: meta fields set. */
export function storedDoc<T extends { id: string }>(
  data: T,
  options: { lwt?: number; deleted?: boolean; rev?: string } = {},
): RxDocumentData<T> {
  revCounter++;
  return {
    ...data,
    _deleted: options.deleted ?? false,
    _attachments: {},
    _rev: options.rev ?? `1-r${revCounter}`,
    _meta: { lwt: options.lwt ?? 1_700_000_000_000 + revCounter },
  };
}

/** The next revision of `previous` with `changes` applied. */
export function nextVersion<T>(
  previous: RxDocumentData<T>,
  changes: Partial<RxDocumentData<T>>,
  lwt?: number,
): BulkWriteRow<T> {
  revCounter++;
  const height = Number.parseInt(previous._rev.split('-')[0] ?? '1', 10) + 1;
  return {
    previous,
    document: {
      ...previous,
      ...changes,
      _rev: `${height}-r${revCounter}`,
      _meta: { lwt: lwt ?? previous._meta.lwt + 1 },
    },
  };
}

export function inserts<T>(docs: RxDocumentData<T>[]): BulkWriteRow<T>[] {
  return docs.map((document) => ({ document }));
}

/** Normalises and plans a mango query the way RxQuery does before calling the storage. */
export function prepare<T>(
  schema: RxJsonSchema<RxDocumentData<T>>,
  query: MangoQuery<RxDocumentData<T>>,
): PreparedQuery<T> {
  return prepareQuery(schema, normalizeMangoQuery<T>(schema, query as MangoQuery<T>));
}

export async function createInstance<T, I, O>(
  storage: RxStorage<I, O>,
  schema: RxJsonSchema<RxDocumentData<T>>,
  options: { databaseName?: string; collectionName?: string; multiInstance?: boolean } = {},
): Promise<RxStorageInstance<T, I, O>> {
  return storage.createStorageInstance<T>({
    databaseInstanceToken: randomToken(10),
    databaseName: options.databaseName ?? 'testdb',
    collectionName: options.collectionName ?? 'payments',
    schema,
    options: {} as O,
    multiInstance: options.multiInstance ?? false,
    devMode: true,
  });
}

export function payment(id: string, fields: Partial<Payment> = {}): Payment {
  return { id, merchant: 'm1', amount: 100, status: 'new', captured: false, ...fields };
}

/** The part of a stored document RxDB callers compare: everything, JSON-round-tripped. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A collection's stored row for `id`, every column, straight from the data folder's file. */
export function storedRowOf(directory: string, collection: string, id: string): Record<string, unknown> | undefined {
  const db = new Database(path.join(directory, 'laneway.sqlite'), { readonly: true });
  try {
    const table = db.prepare('SELECT id FROM laneway_rx_collections WHERE collection_name = ?').pluck().get(collection) as number;
    return db.prepare(`SELECT * FROM rxc_${table} WHERE id = ?`).get(Buffer.from(id, 'latin1')) as Record<string, unknown> | undefined;
  } finally {
    db.close();
  }
}
