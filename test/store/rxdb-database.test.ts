import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import {
  addRxPlugin,
  createRxDatabase,
  type RxCollection,
  type RxDatabase,
  type RxJsonSchema,
  type RxStorage,
} from 'rxdb';
import { RxDBAttachmentsPlugin } from 'rxdb/plugins/attachments';
import { disableWarnings, RxDBDevModePlugin } from 'rxdb/plugins/dev-mode';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { RxDBQueryBuilderPlugin } from 'rxdb/plugins/query-builder';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_NAME, getRxStorageSqlite } from '../../src/store/sqlite';
import { makeTempDir, removeDir } from './helpers';

type PaymentV0 = { id: string; merchant: string; amount: number; status: string };
type Payment = PaymentV0 & { currency?: string };
type LedgerEntry = { id: string; paymentId: string; cents: number };

const paymentSchemaV0: RxJsonSchema<PaymentV0> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 40 },
    merchant: { type: 'string', maxLength: 20 },
    amount: { type: 'integer', minimum: 0, maximum: 100_000_000, multipleOf: 1 },
    status: { type: 'string', maxLength: 12 },
  },
  required: ['id', 'merchant', 'amount', 'status'],
  indexes: ['amount', ['merchant', 'amount']],
  attachments: {},
};

const paymentSchemaV1: RxJsonSchema<Required<Payment>> = {
  ...paymentSchemaV0,
  version: 1,
  properties: { ...paymentSchemaV0.properties, currency: { type: 'string', maxLength: 3 } },
  required: ['id', 'merchant', 'amount', 'status', 'currency'],
  indexes: ['amount', ['merchant', 'amount'], 'currency'],
};

const ledgerSchema: RxJsonSchema<LedgerEntry> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 40 },
    paymentId: { type: 'string', maxLength: 40 },
    cents: { type: 'integer', minimum: -100_000_000, maximum: 100_000_000, multipleOf: 1 },
  },
  required: ['id', 'paymentId', 'cents'],
  indexes: ['paymentId'],
};

type Collections = {
  payments: RxCollection<Payment>;
  ledger: RxCollection<LedgerEntry>;
};

beforeAll(() => {
  disableWarnings();
  addRxPlugin(RxDBDevModePlugin);
  addRxPlugin(RxDBMigrationSchemaPlugin);
  addRxPlugin(RxDBAttachmentsPlugin);
  addRxPlugin(RxDBQueryBuilderPlugin);
});

let dir: string;
let openDbs: RxDatabase<Collections>[];

function storageFor(directory: string): RxStorage<unknown, unknown> {
  // dev-mode insists on a validating storage; the validator wraps ours
  return wrappedValidateAjvStorage({ storage: getRxStorageSqlite({ directory }) }) as RxStorage<unknown, unknown>;
}

async function openShop(
  options: {
    paymentSchema?: RxJsonSchema<PaymentV0> | RxJsonSchema<Required<Payment>>;
    multiInstance?: boolean;
    ignoreDuplicate?: boolean;
  } = {},
): Promise<RxDatabase<Collections>> {
  const db = await createRxDatabase<Collections>({
    name: 'shop',
    storage: storageFor(dir),
    multiInstance: options.multiInstance ?? false,
    ignoreDuplicate: options.ignoreDuplicate ?? false,
  });
  openDbs.push(db);
  const paymentSchema = options.paymentSchema ?? paymentSchemaV0;
  await db.addCollections({
    payments: {
      schema: paymentSchema as RxJsonSchema<Payment>,
      migrationStrategies:
        paymentSchema.version === 1 ? { 1: (old: Payment) => ({ ...old, currency: 'EUR' }) } : {},
    },
    ledger: { schema: ledgerSchema },
  });
  return db;
}

beforeEach(() => {
  dir = makeTempDir();
  openDbs = [];
});

afterEach(async () => {
  await Promise.all(openDbs.filter((db) => !db.closed).map((db) => db.close()));
  removeDir(dir);
});

const seed: Payment[] = Array.from({ length: 30 }, (_, i) => ({
  id: `pay-${String(i).padStart(3, '0')}`,
  merchant: i % 3 === 0 ? 'acme' : 'bolt',
  amount: (i * 37) % 1000,
  status: i % 4 === 0 ? 'refunded' : 'captured',
}));

describe('a real RxDB database on the SQLite storage', () => {
  it('inserts, queries through RxQuery and keeps everything across a reopen', async () => {
    const db = await openShop();
    const inserted = await db.payments.bulkInsert(seed);
    expect(inserted.error).toEqual([]);
    await db.ledger.bulkInsert(seed.map((p) => ({ id: `l-${p.id}`, paymentId: p.id, cents: p.amount })));

    const page = await db.payments
      .find({ selector: { amount: { $gte: 100 } } })
      .sort({ amount: 'desc' })
      .skip(2)
      .limit(5)
      .exec();
    const expected = seed
      .filter((p) => p.amount >= 100)
      .sort((a, b) => b.amount - a.amount || (a.id < b.id ? -1 : 1))
      .slice(2, 7)
      .map((p) => p.id);
    expect(page.map((d) => d.id)).toEqual(expected);

    const acme = await db.payments.find({ selector: { merchant: 'acme', amount: { $lt: 500 } } }).exec();
    expect(acme.map((d) => d.id).sort()).toEqual(
      seed.filter((p) => p.merchant === 'acme' && p.amount < 500).map((p) => p.id),
    );
    expect(await db.payments.count({ selector: { amount: { $gte: 100 } } }).exec()).toBe(
      seed.filter((p) => p.amount >= 100).length,
    );

    await db.payments.upsert({ ...seed[0]!, status: 'voided' });
    const doc = await db.payments.findOne('pay-001').exec();
    await doc!.incrementalPatch({ amount: 4242 });
    await (await db.payments.findOne('pay-002').exec())!.remove();
    await db.close();

    const reopened = await openShop();
    const all = await reopened.payments.find().exec();
    expect(all).toHaveLength(29);
    expect((await reopened.payments.findOne('pay-000').exec())!.status).toBe('voided');
    expect((await reopened.payments.findOne('pay-001').exec())!.amount).toBe(4242);
    expect(await reopened.payments.findOne('pay-002').exec()).toBeNull();
    expect(await reopened.ledger.count().exec()).toBe(30);
    expect(fs.readdirSync(dir)).toContain(DEFAULT_FILE_NAME);
  });

  it('drives $ observables from committed writes', async () => {
    const db = await openShop();
    const query = db.payments.find({ selector: { merchant: 'acme' }, sort: [{ amount: 'asc' }] });
    const results: string[][] = [];
    const sub = query.$.subscribe((docs) => results.push(docs.map((d) => d.id)));
    await firstValueFrom(query.$.pipe(filter((docs) => docs.length === 0)));
    await db.payments.insert({ id: 'p1', merchant: 'acme', amount: 20, status: 'new' });
    await db.payments.insert({ id: 'p2', merchant: 'bolt', amount: 5, status: 'new' });
    await db.payments.insert({ id: 'p3', merchant: 'acme', amount: 10, status: 'new' });
    const last = await firstValueFrom(query.$.pipe(filter((docs) => docs.length === 2)));
    expect(last.map((d) => d.id)).toEqual(['p3', 'p1']);
    expect(results[0]).toEqual([]);
    sub.unsubscribe();
  });

  it('migrates a collection to a new schema version and drops the old table', async () => {
    const db = await openShop();
    await db.payments.bulkInsert(seed.slice(0, 10));
    await db.close();

    const migrated = await openShop({ paymentSchema: paymentSchemaV1 });
    await migrated.payments.getMigrationState().migratePromise();
    const docs = await migrated.payments.find({ selector: { currency: 'EUR' } }).exec();
    expect(docs.map((d) => d.id).sort()).toEqual(seed.slice(0, 10).map((p) => p.id));

    const raw = new Database(path.join(dir, DEFAULT_FILE_NAME), { readonly: true });
    const versions = raw
      .prepare(`SELECT schema_version FROM laneway_rx_collections WHERE collection_name = 'payments'`)
      .pluck()
      .all();
    raw.close();
    expect(versions).toEqual([1]);
  });

  it('stores attachments as Blobs through the attachments plugin', async () => {
    const db = await openShop();
    const doc = await db.payments.insert({ id: 'p1', merchant: 'acme', amount: 1, status: 'new' });
    await doc.putAttachment({ id: 'receipt.txt', data: new Blob(['paid \u{1F4B3}'], { type: 'text/plain' }), type: 'text/plain' });
    await db.close();
    const reopened = await openShop();
    const again = await reopened.payments.findOne('p1').exec();
    const attachment = again!.getAttachment('receipt.txt');
    expect(attachment).not.toBeNull();
    expect(await (await attachment!.getData()).text()).toBe('paid \u{1F4B3}');
    expect(await attachment!.getStringData()).toBe('paid \u{1F4B3}');
  });

  it('shares change events between two in-process instances when multiInstance is on', async () => {
    const a = await openShop({ multiInstance: true, ignoreDuplicate: true });
    const b = await openShop({ multiInstance: true, ignoreDuplicate: true });
    const seenByB = firstValueFrom(b.payments.find().$.pipe(filter((docs) => docs.length === 1)));
    await a.payments.insert({ id: 'shared', merchant: 'acme', amount: 1, status: 'new' });
    expect((await seenByB).map((d) => d.id)).toEqual(['shared']);
  });

  it('remove() of the database deletes the SQLite file', async () => {
    const db = await openShop();
    await db.payments.insert({ id: 'p1', merchant: 'acme', amount: 1, status: 'new' });
    await db.remove();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
