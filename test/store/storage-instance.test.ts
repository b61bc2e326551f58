import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type {
  EventBulk,
  RxAttachmentWriteData,
  RxDocumentData,
  RxJsonSchema,
  RxStorageChangeEvent,
  RxStorageDefaultCheckpoint,
  RxStorageInstance,
  RxStorageWriteErrorConflict,
} from 'rxdb';
import { fillWithDefaultSettings } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
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
  paymentSchema,
  plain,
  prepare,
  removeDir,
  storedDoc,
  type Payment,
} from './helpers';

type Instance<T = Payment> = RxStorageInstance<T, SqliteInternals, SqliteInstanceOptions>;

let dir: string;
let storage: RxStorageSqlite;
let open: Array<RxStorageInstance<unknown, unknown, unknown>>;

async function newInstance<T = Payment>(
  schema: RxJsonSchema<RxDocumentData<T>> = filledPaymentSchema as unknown as RxJsonSchema<RxDocumentData<T>>,
  options: { databaseName?: string; collectionName?: string; multiInstance?: boolean } = {},
): Promise<Instance<T>> {
  const instance = await createInstance<T, SqliteInternals, SqliteInstanceOptions>(storage, schema, options);
  open.push(instance as RxStorageInstance<unknown, unknown, unknown>);
  return instance;
}

beforeEach(() => {
  dir = makeTempDir();
  storage = getRxStorageSqlite({ directory: dir });
  open = [];
});

afterEach(async () => {
  await Promise.all(open.map((instance) => instance.close()));
  removeDir(dir);
});

describe('the file', () => {
  it('is created in WAL mode with 16 KiB pages; a file made with 4 KiB pages opens and keeps them', async () => {
    const first = await newInstance();
    await first.bulkWrite(inserts([storedDoc(payment('p1'))]), 'seed');
    const check = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return { pageSize: db.pragma('page_size', { simple: true }), journal: db.pragma('journal_mode', { simple: true }) };
      } finally {
        db.close();
      }
    };
    expect(check(path.join(dir, 'laneway.sqlite'))).toEqual({ pageSize: 16384, journal: 'wal' });

    const olderDir = makeTempDir();
    try {
      const older = new Database(path.join(olderDir, 'laneway.sqlite'));
      older.pragma('page_size = 4096');
      older.pragma('journal_mode = WAL');
      older.close();
      const reopened = await createInstance<Payment, SqliteInternals, SqliteInstanceOptions>(getRxStorageSqlite({ directory: olderDir }), filledPaymentSchema);
      await reopened.bulkWrite(inserts([storedDoc(payment('p2'))]), 'seed');
      expect((await reopened.findDocumentsById(['p2'], false)).map((d) => d.id)).toEqual(['p2']);
      await reopened.close();
      expect(check(path.join(olderDir, 'laneway.sqlite'))).toEqual({ pageSize: 4096, journal: 'wal' });
    } finally {
      removeDir(olderDir);
    }
  });
});

describe('bulkWrite', () => {
  it('inserts, updates and deletes documents', async () => {
    const instance = await newInstance();
    const a = storedDoc(payment('a', { amount: 10 }));
    const b = storedDoc(payment('b', { amount: 20 }));
    expect((await instance.bulkWrite(inserts([a, b]), 'insert')).error).toEqual([]);
    expect(plain(await instance.findDocumentsById(['a', 'b'], false))).toEqual([a, b]);

    const update = nextVersion(a, { amount: 11, status: 'captured' });
    expect((await instance.bulkWrite([update], 'update')).error).toEqual([]);
    const [storedA] = await instance.findDocumentsById(['a'], false);
    expect(storedA).toEqual(update.document);

    const deletion = nextVersion(b, { _deleted: true });
    expect((await instance.bulkWrite([deletion], 'delete')).error).toEqual([]);
    expect(await instance.findDocumentsById(['b'], false)).toEqual([]);
    expect(await instance.findDocumentsById(['b'], true)).toEqual([deletion.document]);
  });

  it('returns 409 with the stored document for conflicts and writes the other rows', async () => {
    const instance = await newInstance();
    const a = storedDoc(payment('a'));
    const b = storedDoc(payment('b'));
    await instance.bulkWrite(inserts([a, b]), 'insert');

    const staleRev = { ...a, _rev: '1-stale' };
    const c = storedDoc(payment('c'));
    const result = await instance.bulkWrite(
      [
        // previous with a revision that is not the stored one
        { previous: staleRev, document: { ...a, amount: 999, _rev: '2-x', _meta: { lwt: a._meta.lwt + 5 } } },
        // no previous although the document exists
        { document: { ...b, amount: 555, _rev: '2-y' } },
        // a plain insert in the same call
        { document: c },
      ],
      'conflicts',
    );
    const errors = result.error as RxStorageWriteErrorConflict<Payment>[];
    expect(errors.map((e) => [e.documentId, e.status])).toEqual([
      ['a', 409],
      ['b', 409],
    ]);
    expect(plain(errors[0]!.documentInDb)).toEqual(a);
    expect(plain(errors[1]!.documentInDb)).toEqual(b);
    expect(errors[0]!.context).toBe('conflicts');
    expect(plain(await instance.findDocumentsById(['a', 'b', 'c'], true))).toEqual([a, b, c]);
  });

  it('treats a repeated id in one call as a second write that needs the first as previous', async () => {
    const instance = await newInstance();
    const first = storedDoc(payment('dup', { amount: 1 }));
    const second = storedDoc(payment('dup', { amount: 2 }));
    const result = await instance.bulkWrite(inserts([first, second]), 'dup');
    expect(result.error).toHaveLength(1);
    expect(result.error[0]!.status).toBe(409);
    expect(plain(await instance.findDocumentsById(['dup'], true))).toEqual([first]);
  });

  it('rejects the whole call and writes nothing when a row cannot be stored', async () => {
    const instance = await newInstance();
    const events: unknown[] = [];
    const sub = instance.changeStream().subscribe((e) => events.push(e));
    const good = storedDoc(payment('ok'));
    // BigInt cannot be serialised, so the write throws after the first row was inserted.
    const bad = storedDoc(payment('bad', { tip: 1n as unknown as number }));
    await expect(instance.bulkWrite(inserts([good, bad]), 'broken')).rejects.toThrow();
    expect(await instance.findDocumentsById(['ok', 'bad'], true)).toEqual([]);
    expect(events).toEqual([]);
    sub.unsubscribe();
  });
});

describe('findDocumentsById', () => {
  it('returns found documents in the asked order and honours withDeleted', async () => {
    const instance = await newInstance();
    const docs = ['x', 'y', 'z'].map((id) => storedDoc(payment(id)));
    const tomb = storedDoc(payment('gone'), { deleted: true });
    await instance.bulkWrite(inserts([...docs, tomb]), 'insert');
    expect((await instance.findDocumentsById(['z', 'missing', 'x', 'gone'], false)).map((d) => d.id)).toEqual([
      'z',
      'x',
    ]);
    expect((await instance.findDocumentsById(['z', 'missing', 'x', 'gone'], true)).map((d) => d.id)).toEqual([
      'z',
      'x',
      'gone',
    ]);
  });
});

const queryDocs: Payment[] = [
  payment('p01', { merchant: 'acme', amount: 500, status: 'captured', captured: true, note: 'coffee', tip: 1.5 }),
  payment('p02', { merchant: 'acme', amount: 120, status: 'new', note: 'tea' }),
  payment('p03', { merchant: 'bolt', amount: 120, status: 'refunded', captured: true, tip: 0 }),
  payment('p04', { merchant: 'bolt', amount: 75, status: 'captured', captured: true, note: 'Coffee beans' }),
  payment('p05', { merchant: 'crane', amount: 9000, status: 'new', tip: 3 }),
  payment('p06', { merchant: 'acme', amount: 1, status: 'void' }),
  payment('p07', { merchant: 'dune', amount: 42, status: 'captured', captured: true, note: 'cake', tip: 2 }),
  payment('p08', { merchant: 'crane', amount: 300, status: 'new' }),
];

describe('query and count', () => {
  const cases: Array<[string, Parameters<typeof prepare<Payment>>[1], string[] | undefined]> = [
    ['range on an index', { selector: { amount: { $gte: 75, $lt: 500 } }, sort: [{ amount: 'asc' }] }, ['p04', 'p02', 'p03', 'p08']],
    ['$eq on an index', { selector: { merchant: 'bolt' } }, ['p03', 'p04']],
    ['$in', { selector: { merchant: { $in: ['dune', 'acme'] } }, sort: [{ id: 'asc' }] }, ['p01', 'p02', 'p06', 'p07']],
    ['$gt', { selector: { amount: { $gt: 300 } }, sort: [{ amount: 'asc' }] }, ['p01', 'p05']],
    ['$lt', { selector: { amount: { $lt: 75 } }, sort: [{ amount: 'desc' }] }, ['p07', 'p06']],
    ['$regex on an unindexed field', { selector: { note: { $regex: '^[cC]o' } }, sort: [{ id: 'asc' }] }, ['p01', 'p04']],
    [
      '$or',
      { selector: { $or: [{ merchant: 'dune' }, { amount: { $gte: 9000 } }] }, sort: [{ id: 'desc' }] },
      ['p07', 'p05'],
    ],
    ['sort desc on an index', { selector: {}, sort: [{ amount: 'desc' }] }, ['p05', 'p01', 'p08', 'p02', 'p03', 'p04', 'p07', 'p06']],
    ['sort on an unindexed field', { selector: { tip: { $gte: 0 } }, sort: [{ tip: 'desc' }] }, ['p05', 'p07', 'p01', 'p03']],
    ['compound index with skip and limit', { selector: { status: 'captured' }, sort: [{ amount: 'asc' }], skip: 1, limit: 1 }, ['p04']],
    ['limit 0', { selector: {}, limit: 0 }, []],
    ['skip past the end', { selector: { merchant: 'acme' }, skip: 10 }, []],
    ['boolean index', { selector: { captured: true }, sort: [{ id: 'asc' }] }, ['p01', 'p03', 'p04', 'p07']],
    ['deleted excluded the way RxDB asks', { selector: { _deleted: false, merchant: 'crane' } }, ['p05', 'p08']],
  ];

  it.each(cases)('%s: same documents and order as the memory storage', async (_name, mango, expected) => {
    const sqlite = await newInstance();
    const memory = await createInstance(getRxStorageMemory(), filledPaymentSchema, {
      databaseName: `mem-${Math.random()}`,
    });
    const docs = queryDocs.map((d, i) => storedDoc(d, { lwt: 1_000 + i }));
    // one tombstone that only a selector without _deleted=false may see
    const tomb = storedDoc(payment('p09', { merchant: 'crane', amount: 10 }), { deleted: true, lwt: 2_000 });
    await sqlite.bulkWrite(inserts([...docs, tomb]), 'seed');
    await memory.bulkWrite(inserts([...docs, tomb]), 'seed');

    const query = prepare(filledPaymentSchema, mango);
    const ours = (await sqlite.query(query)).documents;
    const theirs = (await memory.query(query)).documents;
    expect(plain(ours)).toEqual(plain(theirs));
    if (expected && !('_deleted' in (mango.selector ?? {}))) {
      // without _deleted in the selector the tombstone may appear, as in RxDB's storages
      expect(ours.map((d) => d.id).filter((id) => id !== 'p09')).toEqual(expected);
    } else if (expected) {
      expect(ours.map((d) => d.id)).toEqual(expected);
    }
    const count = await sqlite.count(query);
    expect(count.count).toBe(ours.length);
    await memory.remove();
  });

  it('counts with SQL when the index satisfies the selector and scans otherwise', async () => {
    const instance = await newInstance();
    await instance.bulkWrite(inserts(queryDocs.map((d) => storedDoc(d))), 'seed');
    const live = { _deleted: false, amount: { $gt: 100 } };
    expect(await instance.count(prepare(filledPaymentSchema, { selector: live }))).toEqual({ count: 5, mode: 'fast' });
    expect(
      await instance.count(prepare(filledPaymentSchema, { selector: { _deleted: false, note: { $regex: 'c' } } })),
    ).toEqual({ count: 2, mode: 'slow' });
    // skip and limit count the way query() returns documents
    expect((await instance.count(prepare(filledPaymentSchema, { selector: live, skip: 2, limit: 2 }))).count).toBe(2);
    expect((await instance.count(prepare(filledPaymentSchema, { selector: live, skip: 4, limit: 2 }))).count).toBe(1);
  });
});

describe('getChangedDocumentsSince', () => {
  it('pages by (lwt, id) without repeating or skipping and resumes from a checkpoint', async () => {
    const instance = await newInstance();
    // several documents share an lwt so the id decides inside one timestamp
    const docs = Array.from({ length: 23 }, (_, i) =>
      storedDoc(payment(`c${String(22 - i).padStart(2, '0')}`), { lwt: 5_000 + Math.floor(i / 4) }),
    );
    await instance.bulkWrite(inserts(docs), 'seed');
    const expectedOrder = [...docs]
      .sort((x, y) => x._meta.lwt - y._meta.lwt || (x.id < y.id ? -1 : 1))
      .map((d) => d.id);

    const seen: string[] = [];
    let checkpoint: RxStorageDefaultCheckpoint | undefined;
    for (;;) {
      const page = await instance.getChangedDocumentsSince!(5, checkpoint);
      seen.push(...page.documents.map((d) => d.id));
      checkpoint = page.checkpoint;
      if (page.documents.length < 5) {
        break;
      }
    }
    expect(seen).toEqual(expectedOrder);

    // nothing new since the last checkpoint
    expect((await instance.getChangedDocumentsSince!(5, checkpoint)).documents).toEqual([]);
    // an update moves a document behind the checkpoint
    const [target] = await instance.findDocumentsById(['c10'], false);
    await instance.bulkWrite([nextVersion(target!, { amount: 1 }, 9_000)], 'update');
    const after = await instance.getChangedDocumentsSince!(5, checkpoint);
    expect(after.documents.map((d) => d.id)).toEqual(['c10']);
    expect(after.checkpoint).toEqual({ id: 'c10', lwt: 9_000 });
  });
});

describe('changeStream', () => {
  it('emits after the commit, so a reader inside the callback sees the data', async () => {
    const instance = await newInstance();
    const filePath = instance.internals.filePath;
    const seenInside: Array<{ fromInstance: string[]; fromOtherConnection: number }> = [];
    const bulks: Array<EventBulk<RxStorageChangeEvent<Payment>, RxStorageDefaultCheckpoint>> = [];
    const reader = new Database(filePath, { readonly: true });
    const sub = instance.changeStream().subscribe((bulk) => {
      bulks.push(bulk);
      // findDocumentsById runs synchronously up to its resolved promise
      const pending = instance.findDocumentsById(
        bulk.events.map((e) => e.documentId),
        true,
      );
      const entry = { fromInstance: [] as string[], fromOtherConnection: 0 };
      seenInside.push(entry);
      void pending.then((docs) => entry.fromInstance.push(...docs.map((d) => d.id)));
      // a second connection only ever sees committed data
      entry.fromOtherConnection = reader
        .prepare(`SELECT COUNT(*) FROM "${instance.internals.tableName}"`)
        .pluck()
        .get() as number;
    });
    const docs = [storedDoc(payment('e1')), storedDoc(payment('e2'))];
    await instance.bulkWrite(inserts(docs), 'ctx-insert');
    expect(bulks).toHaveLength(1);
    expect(bulks[0]!.context).toBe('ctx-insert');
    expect(bulks[0]!.events.map((e) => [e.operation, e.documentId])).toEqual([
      ['INSERT', 'e1'],
      ['INSERT', 'e2'],
    ]);
    expect(bulks[0]!.checkpoint).toEqual({ id: 'e2', lwt: docs[1]!._meta.lwt });
    expect(seenInside[0]!.fromOtherConnection).toBe(2);
    expect(seenInside[0]!.fromInstance).toEqual(['e1', 'e2']);

    const update = nextVersion(docs[0]!, { amount: 7 });
    await instance.bulkWrite([update], 'ctx-update');
    expect(bulks[1]!.events[0]!.operation).toBe('UPDATE');
    expect(bulks[1]!.events[0]!.previousDocumentData).toEqual(docs[0]);

    // a write that only conflicts emits nothing
    await instance.bulkWrite(inserts([docs[1]!]), 'ctx-conflict');
    expect(bulks).toHaveLength(2);
    sub.unsubscribe();
    reader.close();
  });

  it('keeps event order when a subscriber writes from inside its callback', async () => {
    const instance = await newInstance();
    const order: string[] = [];
    const subA = instance.changeStream().subscribe((bulk) => {
      order.push(`A:${bulk.context}`);
      if (bulk.context === 'first') {
        void instance.bulkWrite(inserts([storedDoc(payment('nested'))]), 'nested');
      }
    });
    const subB = instance.changeStream().subscribe((bulk) => order.push(`B:${bulk.context}`));
    await instance.bulkWrite(inserts([storedDoc(payment('outer'))]), 'first');
    expect(order).toEqual(['A:first', 'B:first', 'A:nested', 'B:nested']);
    subA.unsubscribe();
    subB.unsubscribe();
  });
});

describe('cleanup', () => {
  it('purges only tombstones older than the given age', async () => {
    const instance = await newInstance();
    const wallNow = Date.now();
    const oldTomb = storedDoc(payment('old'), { deleted: true, lwt: wallNow - 60_000 });
    const freshTomb = storedDoc(payment('fresh'), { deleted: true, lwt: wallNow });
    const live = storedDoc(payment('live'), { lwt: wallNow - 60_000 });
    await instance.bulkWrite(inserts([oldTomb, freshTomb, live]), 'seed');
    expect(await instance.cleanup(30_000)).toBe(true);
    expect((await instance.findDocumentsById(['old', 'fresh', 'live'], true)).map((d) => d.id)).toEqual([
      'fresh',
      'live',
    ]);
    expect(await instance.cleanup(0)).toBe(true);
    expect((await instance.findDocumentsById(['old', 'fresh', 'live'], true)).map((d) => d.id)).toEqual(['live']);
  });
});

describe('close and remove', () => {
  it('close is idempotent and later operations reject clearly', async () => {
    const instance = await newInstance();
    await instance.close();
    await expect(instance.close()).resolves.toBeUndefined();
    await expect(instance.findDocumentsById(['a'], false)).rejects.toThrow(/is closed/);
    await expect(instance.bulkWrite(inserts([storedDoc(payment('a'))]), 'late')).rejects.toThrow(/is closed/);
    await expect(instance.query(prepare(filledPaymentSchema, { selector: {} }))).rejects.toThrow(/is closed/);
    await expect(instance.remove()).rejects.toThrow(/is closed/);
  });

  it('remove drops the collection and deletes the file once nothing else lives in it', async () => {
    const a = await newInstance(filledPaymentSchema, { collectionName: 'a' });
    const b = await newInstance(filledPaymentSchema, { collectionName: 'b' });
    await a.bulkWrite(inserts([storedDoc(payment('1'))]), 'seed');
    const file = a.internals.filePath;
    await a.remove();
    expect(fs.existsSync(file)).toBe(true);
    await b.close();
    expect(fs.existsSync(file)).toBe(true);

    // reopening 'a' finds it empty, 'b' still registered; removing both deletes the file
    const a2 = await newInstance(filledPaymentSchema, { collectionName: 'a' });
    expect(await a2.findDocumentsById(['1'], true)).toEqual([]);
    const b2 = await newInstance(filledPaymentSchema, { collectionName: 'b' });
    await a2.remove();
    await b2.remove();
    expect(fs.readdirSync(path.dirname(file))).toEqual([]);
  });

  it('rebuilds the index columns when a version is reopened with other indexes', async () => {
    const first = await newInstance();
    const docs = queryDocs.map((d) => storedDoc(d));
    await first.bulkWrite(inserts(docs), 'seed');
    await first.close();

    const changed = fillWithDefaultSettings({
      ...paymentSchema,
      indexes: ['merchant', ['captured', 'amount'], ['status', 'amount']],
    });
    const reopened = await newInstance(changed);
    expect(plain(await reopened.findDocumentsById(['p01', 'p05'], false))).toEqual([docs[0], docs[4]]);
    const capturedBig = prepare(changed, {
      selector: { _deleted: false, captured: true, amount: { $gte: 100 } },
      sort: [{ amount: 'asc' }],
    });
    expect(capturedBig.queryPlan.index).toEqual(['_deleted', 'captured', 'amount', 'id']);
    expect((await reopened.query(capturedBig)).documents.map((d) => d.id)).toEqual(['p03', 'p01']);
    expect(await reopened.count(capturedBig)).toEqual({ count: 2, mode: 'fast' });
    await reopened.close();

    const back = await newInstance();
    const byAmount = prepare(filledPaymentSchema, { selector: { _deleted: false, amount: { $lt: 75 } } });
    expect((await back.query(byAmount)).documents.map((d) => d.id)).toEqual(['p06', 'p07']);
  });

  it('refuses to reopen a collection version under another primary key', async () => {
    const first = await newInstance();
    await first.close();
    const rekeyed = fillWithDefaultSettings({ ...paymentSchema, primaryKey: 'merchant' });
    await expect(newInstance(rekeyed)).rejects.toThrow(/changes the primary key needs a new version/);
  });
});

describe('attachments', () => {
  type WithFile = { id: string; name: string };
  const attachmentSchema = fillWithDefaultSettings<WithFile>({
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: { id: { type: 'string', maxLength: 20 }, name: { type: 'string' } },
    attachments: {},
  });

  function withAttachment(
    doc: RxDocumentData<WithFile>,
    id: string,
    text: string,
    digest: string,
  ): RxDocumentData<WithFile> {
    const data = new Blob([text], { type: 'text/plain' });
    const write: RxAttachmentWriteData = { data, digest, length: data.size, type: 'text/plain' };
    return { ...doc, _attachments: { ...doc._attachments, [id]: write } };
  }

  it('round-trips, replaces and removes attachment data with the document', async () => {
    const instance = await newInstance<WithFile>(attachmentSchema, { collectionName: 'files' });
    const base = storedDoc({ id: 'r1', name: 'receipt' });
    const doc = withAttachment(base, 'pdf', 'héllo \u{1F600}', 'd1');
    expect((await instance.bulkWrite([{ document: doc }], 'att')).error).toEqual([]);

    const [stored] = await instance.findDocumentsById(['r1'], false);
    expect(stored!._attachments).toEqual({ pdf: { digest: 'd1', length: doc._attachments.pdf!.length, type: 'text/plain' } });
    const blob = await instance.getAttachmentData('r1', 'pdf', 'd1');
    expect(blob.type).toBe('text/plain');
    expect(await blob.text()).toBe('héllo \u{1F600}');
    await expect(instance.getAttachmentData('r1', 'pdf', 'other-digest')).rejects.toThrow(/does not exist/);

    const replaced = nextVersion(stored!, withAttachment(stored!, 'pdf', 'second', 'd2'));
    expect((await instance.bulkWrite([replaced], 'att-update')).error).toEqual([]);
    expect(await (await instance.getAttachmentData('r1', 'pdf', 'd2')).text()).toBe('second');

    const [current] = await instance.findDocumentsById(['r1'], false);
    await instance.bulkWrite([nextVersion(current!, { _deleted: true, _attachments: {} })], 'att-delete');
    await expect(instance.getAttachmentData('r1', 'pdf', 'd2')).rejects.toThrow(/does not exist/);
  });

  it('applies writes in call order even when an earlier one first has to read Blobs', async () => {
    const instance = await newInstance<WithFile>(attachmentSchema, { collectionName: 'files' });
    const created = withAttachment(storedDoc({ id: 'r3', name: 'v1' }), 'a', 'bytes', 'd1');
    const stub = { ...created, _attachments: { a: { digest: 'd1', length: 5, type: 'text/plain' } } };
    const update = nextVersion<WithFile>(stub, { name: 'v2' });
    // not awaited in between: the second write must queue behind the first
    const first = instance.bulkWrite([{ document: created }], 'first');
    const second = instance.bulkWrite([update], 'second');
    expect((await first).error).toEqual([]);
    expect((await second).error).toEqual([]);
    expect((await instance.findDocumentsById(['r3'], false))[0]!.name).toBe('v2');
    expect(await (await instance.getAttachmentData('r3', 'a', 'd1')).text()).toBe('bytes');
  });

  it('reports 510 for an attachment stub without data and writes nothing for that row', async () => {
    const instance = await newInstance<WithFile>(attachmentSchema, { collectionName: 'files' });
    const events: unknown[] = [];
    const sub = instance.changeStream().subscribe((e) => events.push(e));
    const doc = { ...storedDoc({ id: 'r2', name: 'x' }), _attachments: { a: { digest: 'd', length: 1, type: 't' } } };
    const result = await instance.bulkWrite([{ document: doc }], 'stub');
    expect(result.error.map((e) => e.status)).toEqual([510]);
    expect(await instance.findDocumentsById(['r2'], true)).toEqual([]);
    expect(events).toEqual([]);
    sub.unsubscribe();
  });
});
