import path from 'node:path';
import type { MangoQuery, RxDocumentData, RxJsonSchema, RxStorageInstance } from 'rxdb';
import { createRxDatabase, fillWithDefaultSettings, type RxCollection } from 'rxdb';
import { firstValueFrom } from 'rxjs';
import { filter } from 'rxjs/operators';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  commitAtomically,
  getRxStorageSqlite,
  type RxStorageSqlite,
  type SqliteInstanceOptions,
  type SqliteInternals,
} from '../../src/store/sqlite';
import {
  createInstance,
  filledPaymentSchema,
  inserts,
  makeTempDir,
  nextVersion,
  payment,
  plain,
  prepare,
  removeDir,
  storedDoc,
  type Payment,
} from './helpers';

type Entry = { id: string; paymentId: string; cents: number };
const entrySchema: RxJsonSchema<RxDocumentData<Entry>> = fillWithDefaultSettings<Entry>({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 40 },
    paymentId: { type: 'string', maxLength: 40 },
    cents: { type: 'integer', minimum: -1_000_000, maximum: 1_000_000, multipleOf: 1 },
  },
  required: ['id', 'paymentId', 'cents'],
  indexes: ['paymentId'],
});

type Inst<T> = RxStorageInstance<T, SqliteInternals, SqliteInstanceOptions>;

let dir: string;
let storage: RxStorageSqlite;
let toClose: Array<{ close(): Promise<unknown> }>;

beforeEach(() => {
  dir = makeTempDir();
  storage = getRxStorageSqlite({ directory: dir });
  toClose = [];
});

afterEach(async () => {
  await Promise.all(toClose.map((i) => i.close()));
  removeDir(dir);
});

async function open<T>(schema: RxJsonSchema<RxDocumentData<T>>, collectionName: string, on = storage): Promise<Inst<T>> {
  const instance = await createInstance<T, SqliteInternals, SqliteInstanceOptions>(on, schema, { collectionName });
  toClose.push(instance);
  return instance;
}

describe('commitAtomically', () => {
  it('lands writes to two collections together and emits each after the one commit', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const ledger = await open<Entry>(entrySchema, 'ledger');
    const existing = storedDoc(payment('p0', { amount: 5 }));
    await payments.bulkWrite(inserts([existing]), 'seed');

    // When the payments event arrives, the ledger rows of the same commit must already be readable.
    const ledgerSeenFromPaymentsEvent: string[] = [];
    const contexts: string[] = [];
    const subP = payments.changeStream().subscribe((bulk) => {
      contexts.push(`payments:${bulk.context}`);
      void ledger.findDocumentsById(['l1', 'l2'], false).then((docs) => ledgerSeenFromPaymentsEvent.push(...docs.map((d) => d.id)));
    });
    const subL = ledger.changeStream().subscribe((bulk) => contexts.push(`ledger:${bulk.context}`));

    const p1 = storedDoc(payment('p1', { amount: 700 }));
    const l1 = storedDoc<Entry>({ id: 'l1', paymentId: 'p1', cents: 700 });
    const l2 = storedDoc<Entry>({ id: 'l2', paymentId: 'p0', cents: -5 });
    const result = await commitAtomically([
      { instance: payments, rows: [{ document: p1 }, nextVersion(existing, { status: 'refunded' })], context: 'capture' },
      { instance: ledger, rows: inserts([l1, l2]), context: 'capture-ledger' },
    ]);
    expect(result).toEqual({ ok: true });
    expect(contexts).toEqual(['payments:capture', 'ledger:capture-ledger']);
    await Promise.resolve();
    expect(ledgerSeenFromPaymentsEvent).toEqual(['l1', 'l2']);
    expect((await payments.findDocumentsById(['p0', 'p1'], false)).map((d) => [d.id, d.status])).toEqual([
      ['p0', 'refunded'],
      ['p1', 'new'],
    ]);
    expect(plain(await ledger.findDocumentsById(['l1', 'l2'], false))).toEqual([l1, l2]);
    subP.unsubscribe();
    subL.unsubscribe();
  });

  it('writes nothing anywhere and emits nothing when one collection conflicts', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const ledger = await open<Entry>(entrySchema, 'ledger');
    const stored = storedDoc(payment('p0'));
    await payments.bulkWrite(inserts([stored]), 'seed');
    const events: string[] = [];
    const subs = [
      payments.changeStream().subscribe((b) => events.push(b.context)),
      ledger.changeStream().subscribe((b) => events.push(b.context)),
    ];

    const stale = { ...stored, _rev: '1-someone-else' };
    const result = await commitAtomically([
      { instance: ledger, rows: inserts([storedDoc<Entry>({ id: 'l1', paymentId: 'p0', cents: 1 })]), context: 'a' },
      {
        instance: payments,
        rows: [
          { document: storedDoc(payment('p-new')) },
          { previous: stale, document: { ...stored, status: 'captured', _rev: '2-x' } },
        ],
        context: 'b',
      },
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.instanceIndex).toBe(1);
    expect(result.errors[0]!.errors.map((e) => [e.documentId, e.status])).toEqual([['p0', 409]]);
    const conflict = result.errors[0]!.errors[0]!;
    expect(conflict.status === 409 && plain(conflict.documentInDb)).toEqual(stored);

    expect(await ledger.findDocumentsById(['l1'], true)).toEqual([]);
    expect(await payments.findDocumentsById(['p-new'], true)).toEqual([]);
    expect((await payments.findDocumentsById(['p0'], true))[0]!.status).toBe('new');
    expect(events).toEqual([]);
    subs.forEach((s) => s.unsubscribe());
  });

  it('refuses an insert whose id is taken, live or deleted, as a conflict carrying the stored document', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const ledger = await open<Entry>(entrySchema, 'ledger');
    const live = storedDoc(payment('p-live'));
    const gone = storedDoc(payment('p-gone'), { deleted: true });
    await payments.bulkWrite(inserts([live, gone]), 'seed');
    for (const taken of [live, gone]) {
      const result = await commitAtomically([
        { instance: ledger, rows: inserts([storedDoc<Entry>({ id: 'l1', paymentId: taken.id, cents: 1 })]), context: 'a' },
        { instance: payments, rows: inserts([storedDoc(payment('p-other')), { ...storedDoc(payment(taken.id, { amount: 9 })), _rev: '1-mine' }]), context: 'b' },
      ]);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((e) => [e.instanceIndex, e.errors.map((x) => [x.documentId, x.status])])).toEqual([[1, [[taken.id, 409]]]]);
      const conflict = result.errors[0]!.errors[0]!;
      expect(conflict.status === 409 && plain(conflict.documentInDb)).toEqual(taken);
      expect(await ledger.findDocumentsById(['l1'], true)).toEqual([]);
      expect(await payments.findDocumentsById(['p-other'], true)).toEqual([]);
      expect(plain((await payments.findDocumentsById([taken.id], true))[0])).toEqual(taken);
    }
  });

  it('keeps every index right when an update changes some indexed fields and leaves the others', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const p1 = storedDoc(payment('p1', { merchant: 'm1', amount: 5, status: 'new' }));
    const p2 = storedDoc(payment('p2', { merchant: 'm2', amount: 7, status: 'new' }));
    await payments.bulkWrite(inserts([p1, p2]), 'seed');
    const moved = nextVersion(p1, { amount: 9, status: 'captured' }, 1_900_000_000_000);
    expect(await commitAtomically([{ instance: payments, rows: [moved], context: 'c' }])).toEqual({ ok: true });
    const ids = async (query: MangoQuery<Payment>) => (await payments.query(prepare(filledPaymentSchema, query))).documents.map((d) => d.id);
    expect(await ids({ selector: { merchant: 'm1' } })).toEqual(['p1']);
    expect(await ids({ selector: { amount: { $gt: 8 } }, sort: [{ amount: 'asc' }] })).toEqual(['p1']);
    expect(await ids({ selector: { amount: { $lt: 6 } }, sort: [{ amount: 'asc' }] })).toEqual([]);
    expect(await ids({ selector: { status: 'captured' }, sort: [{ status: 'asc' }, { amount: 'asc' }] })).toEqual(['p1']);
    expect(await ids({ selector: { status: 'new' }, sort: [{ status: 'asc' }, { amount: 'asc' }] })).toEqual(['p2']);
    const changes = await payments.getChangedDocumentsSince!(10);
    expect(changes.documents.map((d) => d.id)).toEqual(['p2', 'p1']);
    expect(plain((await payments.findDocumentsById(['p1'], false))[0])).toEqual(plain(moved.document));
  });

  it('lets a later write in the same commit build on an earlier one to the same collection', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const first = storedDoc(payment('p1', { amount: 1 }));
    const result = await commitAtomically([
      { instance: payments, rows: inserts([first]), context: 'create' },
      { instance: payments, rows: [nextVersion(first, { amount: 2 })], context: 'adjust' },
    ]);
    expect(result).toEqual({ ok: true });
    expect((await payments.findDocumentsById(['p1'], false))[0]!.amount).toBe(2);
  });

  it('refuses instances that live in different SQLite files', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const elsewhere = getRxStorageSqlite({ directory: path.join(dir, 'other') });
    const ledger = await open<Entry>(entrySchema, 'ledger', elsewhere);
    await expect(
      commitAtomically([
        { instance: payments, rows: inserts([storedDoc(payment('p1'))]), context: 'x' },
        { instance: ledger, rows: inserts([storedDoc<Entry>({ id: 'l1', paymentId: 'p1', cents: 1 })]), context: 'y' },
      ]),
    ).rejects.toThrow(/one SQLite file/);
    expect(await payments.findDocumentsById(['p1'], true)).toEqual([]);
  });

  it('refuses rows without _rev or _meta.lwt and closed instances', async () => {
    const payments = await open<Payment>(filledPaymentSchema, 'payments');
    const bare = { ...storedDoc(payment('p1')), _meta: {} } as unknown as RxDocumentData<Payment>;
    await expect(commitAtomically([{ instance: payments, rows: [{ document: bare }], context: 'x' }])).rejects.toThrow(
      /_meta\.lwt/,
    );
    await payments.close();
    await expect(
      commitAtomically([{ instance: payments, rows: inserts([storedDoc(payment('p2'))]), context: 'x' }]),
    ).rejects.toThrow(/is closed/);
    expect(await commitAtomically([])).toEqual({ ok: true });
  });

  it("accepts RxDB's wrapped collection.storageInstance and RxDB sees the commit", async () => {
    type Collections = { payments: RxCollection<Payment>; ledger: RxCollection<Entry> };
    const db = await createRxDatabase<Collections>({ name: 'atomic', storage, multiInstance: false });
    toClose.push(db);
    const { paymentSchema } = await import('./helpers');
    await db.addCollections({
      payments: { schema: paymentSchema },
      ledger: {
        schema: {
          version: 0,
          primaryKey: 'id',
          type: 'object',
          properties: entrySchema.properties,
          required: ['id', 'paymentId', 'cents'],
          indexes: ['paymentId'],
        } as RxJsonSchema<Entry>,
      },
    });
    const watch = firstValueFrom(db.ledger.find().$.pipe(filter((docs) => docs.length === 1)));
    const result = await commitAtomically([
      { instance: db.payments.storageInstance, rows: inserts([storedDoc(payment('p1'))]), context: 'engine' },
      {
        instance: db.ledger.storageInstance,
        rows: inserts([storedDoc<Entry>({ id: 'l1', paymentId: 'p1', cents: 100 })]),
        context: 'engine',
      },
    ]);
    expect(result).toEqual({ ok: true });
    expect((await watch).map((d) => d.id)).toEqual(['l1']);
    expect((await db.payments.findOne('p1').exec())?.amount).toBe(100);
  });
});
