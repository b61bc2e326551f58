import path from 'node:path';
import Database from 'better-sqlite3';
import type { RxDocumentData, RxJsonSchema } from 'rxdb';
import { fillWithDefaultSettings, randomToken } from 'rxdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getRxStorageSqlite, type SqliteInstanceOptions } from '../../src/store/sqlite';
import type { RelayoutNotice } from '../../src/store/sqlite/types';
import type { SqliteStorageInstance } from '../../src/store/sqlite/storage-instance';
import { inserts, makeTempDir, nextVersion, prepare, removeDir, storedDoc, storedRowOf } from './helpers';

/** An invoice-like record: a stored rendering, and the few fields an export page reads beside it. */
type Rec = { id: string; watermark: number; feed: string; data: { view: string; st: [number, string]; flag?: boolean } };

const schema: RxJsonSchema<RxDocumentData<Rec>> = fillWithDefaultSettings({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 20 },
    watermark: { type: 'number', minimum: 0, maximum: 1e9, multipleOf: 1 },
    feed: { type: 'string', maxLength: 8 },
    data: { type: 'object' },
  },
  required: ['id', 'watermark', 'feed', 'data'],
  indexes: ['watermark'],
});

const FIELDS = ['watermark', 'feed', 'data.st', 'data.flag'];
const rec = (n: number, feed = 'open'): Rec => ({ id: `r${n}`, watermark: n, feed, data: { view: `{"n":${n},"s":"é"}`, st: [n * 100, `2026-03-0${n}`], ...(n % 2 ? { flag: true } : {}) } });
const expected = (r: Rec) => [r.watermark, r.feed, r.data.st, r.data.flag ?? null];
const page = prepare(schema, { selector: { _deleted: false, watermark: { $gt: 0 } }, sort: [{ watermark: 'asc' }], limit: 100 });

let dir: string;
let open: SqliteStorageInstance<Rec>[];

async function instance(options: SqliteInstanceOptions, onRelayout?: (notice: RelayoutNotice) => void): Promise<SqliteStorageInstance<Rec>> {
  const created = (await getRxStorageSqlite({ directory: dir, ...(onRelayout ? { onRelayout } : {}) }).createStorageInstance<Rec>({
    databaseInstanceToken: randomToken(10),
    databaseName: 'db',
    collectionName: 'recs',
    schema,
    options,
    multiInstance: false,
    devMode: true,
  })) as SqliteStorageInstance<Rec>;
  open.push(created);
  return created;
}

/** The projection column as stored, straight from the file (undefined when the table has none). */
function storedProjection(id: string): unknown {
  const text = storedRowOf(dir, 'recs', id)?.p0 as string | null | undefined;
  return typeof text === 'string' ? JSON.parse(text) : text;
}

beforeEach(() => {
  dir = makeTempDir();
  open = [];
});

afterEach(async () => {
  await Promise.all(open.map((i) => i.close()));
  removeDir(dir);
});

describe('projection columns', () => {
  it('are written with every version of a document and are what a projected page read takes', async () => {
    const store = await instance({ textColumns: ['data.view'], projections: [FIELDS] });
    const docs = [rec(1), rec(2), rec(3, 'closed')].map((r) => storedDoc(r));
    await store.bulkWrite(inserts(docs), 'seed');
    expect(storedProjection('r2')).toEqual(expected(rec(2)));
    const changed = nextVersion(docs[1]!, { feed: 'closed', data: { ...docs[1]!.data, st: [0, '2026-04-01'] } });
    await store.bulkWrite([changed], 'update');
    expect(storedProjection('r2')).toEqual([2, 'closed', [0, '2026-04-01'], null]);

    const read = await store.queryProjected(page, FIELDS, 'data.view');
    expect(read.values).toEqual([expected(rec(1)), [2, 'closed', [0, '2026-04-01'], null], expected(rec(3, 'closed'))]);
    expect(read.bytes.map(String)).toEqual([rec(1), rec(2), rec(3)].map((r) => r.data.view));

    // The page comes from the column: a value changed in the file behind the storage's back shows.
    const db = new Database(path.join(dir, 'laneway.sqlite'));
    const table = db.prepare("SELECT id FROM laneway_rx_collections WHERE collection_name = 'recs'").pluck().get() as number;
    db.prepare(`UPDATE rxc_${table} SET p0 = '[1,"marker",null,null]' WHERE id = ?`).run(Buffer.from('r1', 'latin1'));
    db.close();
    expect((await store.queryProjected(page, FIELDS, 'data.view')).values[0]).toEqual([1, 'marker', null, null]);
  });

  it('are filled for stored rows when a collection is opened with them, and dropped when opened without', async () => {
    const before = await instance({ textColumns: ['data.view'] });
    const docs = [rec(1), rec(2), rec(3)].map((r) => storedDoc(r));
    await before.bulkWrite(inserts(docs), 'seed');
    await before.close();
    expect(storedProjection('r1')).toBeUndefined();

    const notices: RelayoutNotice[] = [];
    const withThem = await instance({ textColumns: ['data.view'], projections: [FIELDS] }, (n) => notices.push(n));
    // Whoever opens the store is told before the rows are rewritten (a long step on a big file),
    // then as they are.
    expect(notices).toEqual([
      { collection: 'recs', rows: 3, change: 'projections', done: 0 },
      { collection: 'recs', rows: 3, change: 'projections', done: 3 },
    ]);
    expect(storedProjection('r1')).toEqual(expected(rec(1)));
    expect((await withThem.queryProjected(page, FIELDS, 'data.view')).values).toEqual([rec(1), rec(2), rec(3)].map(expected));
    await withThem.close();

    // Other projections, and the text column given up: every row is relaid out.
    const other = await instance({ projections: [['feed', 'data.view']] }, (n) => notices.push(n));
    expect(notices.slice(2).map((n) => [n.change, n.done])).toEqual([
      ['text columns', 0],
      ['text columns', 3],
      ['projections', 0],
      ['projections', 3],
    ]);
    expect(storedProjection('r3')).toEqual(['open', rec(3).data.view]);
    const [doc] = await other.findDocumentsById(['r3'], false);
    expect(doc!.data).toEqual(rec(3).data);
    await other.close();

    const without = await instance({ textColumns: ['data.view'] });
    expect(storedProjection('r1')).toBeUndefined();
    expect((await without.queryProjected(page, FIELDS, 'data.view')).values).toEqual([rec(1), rec(2), rec(3)].map(expected));
  });

  it('tell their filling of a large table step by step, up to every row', async () => {
    const before = await instance({ textColumns: ['data.view'] });
    const count = 45_000;
    for (let from = 1; from <= count; from += 5_000) {
      await before.bulkWrite(inserts(Array.from({ length: 5_000 }, (_, i) => storedDoc(rec(from + i)))), 'seed');
    }
    await before.close();
    const notices: RelayoutNotice[] = [];
    const after = await instance({ textColumns: ['data.view'], projections: [FIELDS] }, (n) => notices.push(n));
    const done = notices.map((n) => n.done);
    // Filled in rowid ranges of 20,000: told at the start, after each range, and at the end.
    expect(done).toEqual([0, 20_000, 40_000, 45_000]);
    expect(notices.every((n) => n.rows === count && n.change === 'projections')).toBe(true);
    expect(storedProjection(`r${count}`)).toEqual(expected(rec(count)));
    await after.close();
  });

  it('refuse fields that are not dot paths, RxDB fields, or inside a text column', async () => {
    await expect(instance({ textColumns: ['data.view'], projections: [['data.view']] })).rejects.toThrow(/overlaps the text column data.view/);
    await expect(instance({ projections: [['_meta.lwt']] })).rejects.toThrow(/not a field path/);
    await expect(instance({ projections: [["feed') --"]] })).rejects.toThrow(/not a field path/);
    await expect(instance({ projections: [[]] })).rejects.toThrow(/at least one field/);
  });

  it('upgrade a file of layout 2 (no projections in its registry) when it is opened', async () => {
    const first = await instance({ textColumns: ['data.view'] });
    await first.bulkWrite(inserts([storedDoc(rec(1))]), 'seed');
    await first.close();
    const db = new Database(path.join(dir, 'laneway.sqlite'));
    db.exec('ALTER TABLE laneway_rx_collections DROP COLUMN projections');
    db.pragma('user_version = 2');
    db.close();

    const upgraded = await instance({ textColumns: ['data.view'], projections: [FIELDS] });
    expect(storedProjection('r1')).toEqual(expected(rec(1)));
    expect((await upgraded.queryProjected(page, FIELDS, 'data.view')).values).toEqual([expected(rec(1))]);
    await upgraded.close();
    const check = new Database(path.join(dir, 'laneway.sqlite'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(3);
    check.close();
  });
});
