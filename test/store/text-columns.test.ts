import path from 'node:path';
import Database from 'better-sqlite3';
import type { RxDocumentData, RxJsonSchema, RxStorageInstance } from 'rxdb';
import { fillWithDefaultSettings, randomToken } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/database';
import { defineCollection } from '../../src/store/schema';
import { getRxStorageSqlite, type SqliteInstanceOptions } from '../../src/store/sqlite';
import type { SqliteStorageInstance } from '../../src/store/sqlite/storage-instance';
import { inserts, makeTempDir, nextVersion, plain, prepare, removeDir, storedDoc, storedRowOf } from './helpers';

/** A record with a pre-rendered JSON text (what invoices keep as `data.view`). */
type Rendered = { id: string; merchant: string; amount: number; body: { view?: unknown; n: number } };

const schema: RxJsonSchema<RxDocumentData<Rendered>> = fillWithDefaultSettings({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 20 },
    merchant: { type: 'string', maxLength: 12 },
    amount: { type: 'integer', minimum: 0, maximum: 1_000_000, multipleOf: 1 },
    body: { type: 'object' },
  },
  required: ['id', 'merchant', 'amount', 'body'],
  indexes: ['merchant', 'amount'],
});

const view = (id: string, amount: number) => JSON.stringify({ id, amount, note: `"quoted" ${id} \\ é ✓ 😀`, lines: [{ a: 1 }, { b: null }] });
const rendered = (id: string, amount: number, merchant = 'm1'): Rendered => ({ id, merchant, amount, body: { view: view(id, amount), n: amount } });

let dir: string;
let open: Array<RxStorageInstance<unknown, unknown, unknown>>;

async function instance(textColumns?: string[]): Promise<SqliteStorageInstance<Rendered>> {
  const storage = getRxStorageSqlite({ directory: dir });
  const options: SqliteInstanceOptions = textColumns ? { textColumns } : {};
  const created = (await storage.createStorageInstance<Rendered>({
    databaseInstanceToken: randomToken(10),
    databaseName: 'testdb',
    collectionName: 'rendered',
    schema,
    options,
    multiInstance: false,
    devMode: true,
  })) as SqliteStorageInstance<Rendered>;
  open.push(created as RxStorageInstance<unknown, unknown, unknown>);
  return created;
}

/** What the file holds for a document: the JSON column and the text column (when there is one). */
const storedRow = (id: string) => storedRowOf(dir, 'rendered', id) as { data: string; t0?: string | null };

beforeEach(() => {
  dir = makeTempDir();
  open = [];
});

afterEach(async () => {
  await Promise.all(open.map((i) => i.close()));
  removeDir(dir);
});

describe('text columns', () => {
  it('keep the text out of the document JSON and give back the same documents, key order included', async () => {
    const store = await instance(['body.view']);
    const docs = [rendered('r1', 10), rendered('r2', 20, 'm2'), rendered('r3', 30)].map((d) => storedDoc(d));
    await store.bulkWrite(inserts(docs), 'seed');

    const row = storedRow('r1');
    expect(row.t0).toBe(docs[0]!.body.view);
    expect(JSON.parse(row.data).body).toEqual({ view: null, n: 10 });

    const [byId] = await store.findDocumentsById(['r1'], false);
    expect(JSON.stringify(byId)).toBe(JSON.stringify(docs[0]));
    const byIndex = await store.query(prepare(schema, { selector: { _deleted: false, amount: { $gte: 20 } }, sort: [{ amount: 'asc' }] }));
    expect(plain(byIndex.documents)).toEqual([docs[1], docs[2]]);
    // A selector the index range does not cover is matched against the whole document.
    const matched = await store.query(prepare(schema, { selector: { _deleted: false, merchant: 'm1', 'body.n': 30 } }));
    expect(plain(matched.documents)).toEqual([docs[2]]);
    const changes = await store.getChangedDocumentsSince(10);
    expect(plain(changes.documents)).toEqual(docs);

    const updated = nextVersion(docs[0]!, { body: { view: view('r1', 11), n: 11 }, amount: 11 });
    await store.bulkWrite([updated], 'update');
    expect(plain(await store.findDocumentsById(['r1'], false))).toEqual([updated.document]);
    expect(storedRow('r1').t0).toBe(updated.document.body.view);
  });

  it('leave a field that is not a string in the JSON', async () => {
    const store = await instance(['body.view']);
    const odd = [
      storedDoc<Rendered>({ id: 'n1', merchant: 'm1', amount: 1, body: { view: null, n: 1 } }),
      storedDoc<Rendered>({ id: 'n2', merchant: 'm1', amount: 2, body: { n: 2 } }),
      storedDoc<Rendered>({ id: 'n3', merchant: 'm1', amount: 3, body: { view: { nested: true }, n: 3 } }),
      storedDoc<Rendered>({ id: 'n4', merchant: 'm1', amount: 4, body: { view: '', n: 4 } }),
    ];
    await store.bulkWrite(inserts(odd), 'seed');
    expect(plain(await store.findDocumentsById(['n1', 'n2', 'n3', 'n4'], false))).toEqual(odd);
    expect(storedRow('n3').t0).toBeNull();
    expect(storedRow('n4').t0).toBe('');
  });

  it('hand the stored bytes of a text over beside the values of the fields asked for', async () => {
    const store = await instance(['body.view']);
    const docs = [rendered('r1', 10), rendered('r2', 20), storedDoc({ id: 'r3', merchant: 'm1', amount: 30, body: { n: 30 } })].map((d) =>
      '_rev' in d ? d : storedDoc(d),
    );
    await store.bulkWrite(inserts(docs as RxDocumentData<Rendered>[]), 'seed');
    const query = prepare(schema, { selector: { _deleted: false, amount: { $gt: 0 } }, sort: [{ amount: 'asc' }] });
    // Without a limit (row by row) and with one (one packed row): the same answer.
    for (const q of [query, prepare(schema, { selector: { _deleted: false, amount: { $gt: 0 } }, sort: [{ amount: 'asc' }], limit: 10 })]) {
      const { values, bytes } = await store.queryProjected(q, ['id', 'body.n', 'body.missing'], 'body.view');
      expect(values).toEqual([['r1', 10, null], ['r2', 20, null], ['r3', 30, null]]);
      expect(bytes.map((b) => b?.toString('utf8') ?? null)).toEqual([view('r1', 10), view('r2', 20), null]);
    }
    await expect(store.queryProjected(query, ['id'], 'body.n')).rejects.toThrow(/no text column body.n/);
    await expect(store.queryProjected(query, ['body.view'], 'body.view')).rejects.toThrow(/overlaps the text column body.view/);
    await expect(store.queryProjected(query, ["id') --"], 'body.view')).rejects.toThrow(/not a field path/);
  });

  it('are refused on indexed fields, the primary key and RxDB fields', async () => {
    await expect(instance(['merchant'])).rejects.toThrow(/cannot be a text column/);
    await expect(instance(['id'])).rejects.toThrow(/cannot be a text column/);
    await expect(instance(['_meta.lwt'])).rejects.toThrow(/cannot be a text column/);
    await expect(instance(['body', 'body.view'])).rejects.toThrow(/overlaps/);
  });

  it('move stored rows in and out when a collection is reopened with other text columns', async () => {
    const plainFirst = await instance();
    const docs = [rendered('r1', 10), rendered('r2', 20)].map((d) => storedDoc(d));
    await plainFirst.bulkWrite(inserts(docs), 'seed');
    expect(JSON.parse(storedRow('r1').data).body.view).toBe(docs[0]!.body.view);
    await plainFirst.close();

    const withText = await instance(['body.view']);
    expect(storedRow('r1').t0).toBe(docs[0]!.body.view);
    expect(plain(await withText.findDocumentsById(['r1', 'r2'], false))).toEqual(docs);
    await withText.close();

    const back = await instance();
    expect(storedRow('r2')).not.toHaveProperty('t0');
    expect(JSON.parse(storedRow('r2').data).body.view).toBe(docs[1]!.body.view);
    expect(plain(await back.findDocumentsById(['r1', 'r2'], false))).toEqual(docs);
  });

  it('upgrade a file of the first layout (no text columns in its registry) when it is opened', async () => {
    const first = await instance();
    const docs = [rendered('r1', 10)].map((d) => storedDoc(d));
    await first.bulkWrite(inserts(docs), 'seed');
    await first.close();
    const db = new Database(path.join(dir, 'laneway.sqlite'));
    db.exec('ALTER TABLE laneway_rx_collections DROP COLUMN text_columns');
    db.exec('ALTER TABLE laneway_rx_collections DROP COLUMN projections');
    db.pragma('user_version = 1');
    db.close();

    const upgraded = await instance(['body.view']);
    expect(plain(await upgraded.findDocumentsById(['r1'], false))).toEqual(docs);
    expect(storedRow('r1').t0).toBe(docs[0]!.body.view);
    await upgraded.close();
    const check = new Database(path.join(dir, 'laneway.sqlite'), { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(3);
    check.close();
  });

  it('refuse a file of a later layout', async () => {
    const first = await instance();
    await first.close();
    const db = new Database(path.join(dir, 'laneway.sqlite'));
    db.pragma('user_version = 99');
    db.close();
    await expect(instance()).rejects.toThrow(/layout version 99, this build reads 3/);
  });
});

describe('Store.project', () => {
  const collection = defineCollection('rendered', { fields: { merchant: { type: 'string', maxLength: 12 } }, indexes: [['merchant', 'watermark']], textColumns: ['data.view'] });
  const docs = [1, 2, 3].map((n) => ({ id: `r${n}`, watermark: n, merchant: 'm1', data: { view: view(`r${n}`, n), n, flag: n === 2 } }));

  async function filled(store: Store): Promise<Array<{ values: unknown[]; bytes: string | null }>> {
    await store.commit(docs.map((doc) => ({ collection: 'rendered', doc })));
    const { values, bytes } = await store.project('rendered', { selector: { merchant: 'm1', watermark: { $gt: 1 } }, sort: [{ merchant: 'asc' }, { watermark: 'asc' }], limit: 100 }, ['watermark', 'id', 'data.flag', 'data.nothing'], 'data.view');
    return values.map((v, i) => ({ values: v, bytes: bytes[i]?.toString('utf8') ?? null }));
  }

  it('gives the same answer on our SQLite storage (one packed row) and on another storage', async () => {
    const sqlite = await openStore({ storage: getRxStorageSqlite({ directory: dir }) as never, collections: [collection], name: 'sq' });
    const memory = await openStore({ storage: getRxStorageMemory() as never, collections: [collection], name: `mem${randomToken(6)}` });
    try {
      const expected = docs.slice(1).map((d) => ({ values: [d.watermark, d.id, d.data.flag, null], bytes: d.data.view }));
      expect(await filled(sqlite)).toEqual(expected);
      expect(await filled(memory)).toEqual(expected);
      // The documents find() returns are whole.
      expect((await sqlite.find('rendered', { selector: { merchant: 'm1' }, sort: [{ merchant: 'asc' }, { watermark: 'asc' }] })).map((d) => d.data)).toEqual(docs.map((d) => d.data));
    } finally {
      await sqlite.close();
      await memory.close();
    }
  });
});
