import fc from 'fast-check';
import type { RxDocumentData, RxJsonSchema } from 'rxdb';
import { fillWithDefaultSettings, randomToken } from 'rxdb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getRxStorageSqlite } from '../../src/store/sqlite';
import { inOrder } from '../../src/store/sqlite/packed-read';
import type { SqliteStorageInstance } from '../../src/store/sqlite/storage-instance';
import { inserts, makeTempDir, plain, prepare, removeDir } from './helpers';

/**
 * queryProjected reads an export-shaped page (index range, index order, a limit) as one
 * concatenated row (packed-read.ts). Whatever SQLite concatenates, each document must come with
 * its own fields and text, in order, exactly as the row-by-row query() sees them.
 */
type Doc = { id: string; amount: number; body: { view?: unknown; note?: unknown; n: number; flag?: boolean } };
const FIELDS = ['amount', 'id', 'body.note', 'body.flag', 'body.n'];
const OTHER_FIELDS = ['body.flag', 'amount'];
const valueAt = (doc: unknown, path: string) => {
  let value = doc;
  for (const key of path.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value === undefined ? null : value;
};

const schema: RxJsonSchema<RxDocumentData<Doc>> = fillWithDefaultSettings({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 20 },
    amount: { type: 'integer', minimum: 0, maximum: 1000, multipleOf: 1 },
    body: { type: 'object' },
  },
  required: ['id', 'amount', 'body'],
  indexes: ['amount'],
});

// Texts whose byte and character lengths differ, JSON-looking texts, separators SQLite might use.
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', ',', '"', '\\', '{', '}', '[', ']', 'é', '✓', '😀', '\u0000', '\n'), maxLength: 12 }),
  fc.json({ maxDepth: 2 }),
);
const field = fc.oneof(text, text, fc.constant(''), fc.constant(null), fc.constant(undefined), fc.constant({ nested: [1, 'x'] }), fc.integer());

const docsArb = fc.array(fc.record({ amount: fc.integer({ min: 0, max: 30 }), view: field, note: field, flag: fc.option(fc.boolean()), deleted: fc.boolean() }), { maxLength: 40 }).map((items) =>
  items.map((item, i): RxDocumentData<Doc> => {
    const body: Doc['body'] = { n: i };
    if (item.flag !== null) body.flag = item.flag;
    if (item.view !== undefined) body.view = item.view;
    if (item.note !== undefined) body.note = item.note;
    return { id: `d${String(i).padStart(3, '0')}`, amount: item.amount, body, _deleted: item.deleted, _attachments: {}, _rev: `1-r${i}`, _meta: { lwt: 1_700_000_000_000 + i } };
  }),
);

let dir: string;
beforeAll(() => {
  dir = makeTempDir();
});
afterAll(() => removeDir(dir));

describe('packed page reads (queryProjected)', () => {
  it('give every document its own fields and text bytes, in index order, the same as reading row by row', async () => {
    const storage = getRxStorageSqlite({ directory: dir });
    let packedReads = 0;
    await fc.assert(
      fc.asyncProperty(docsArb, fc.integer({ min: 0, max: 31 }), fc.integer({ min: 1, max: 45 }), fc.integer({ min: 0, max: 5 }), async (docs, above, limit, skip) => {
        const instance = (await storage.createStorageInstance<Doc>({
          databaseInstanceToken: randomToken(10),
          databaseName: `db${randomToken(8)}`,
          collectionName: 'docs',
          schema,
          options: { textColumns: ['body.view'], projections: [FIELDS] },
          multiInstance: false,
          devMode: true,
        })) as SqliteStorageInstance<Doc>;
        const statement = vi.spyOn(instance.table, 'statement');
        try {
          if (docs.length > 0) await instance.bulkWrite(inserts(docs), 'seed');
          const query = prepare(schema, { selector: { _deleted: false, amount: { $gt: above } }, sort: [{ amount: 'asc' }], limit, skip });
          const whole = plain((await instance.query(query)).documents);
          const page = await instance.queryProjected(query, FIELDS, 'body.view');

          expect(page.bytes.map((b) => b?.toString('utf8') ?? null)).toEqual(whole.map((d) => (typeof d.body.view === 'string' ? d.body.view : null)));
          expect(page.values).toEqual(whole.map((d) => FIELDS.map((f) => valueAt(d, f))));
          // A fields list no projection column holds is extracted from the documents' JSON.
          const other = await instance.queryProjected(query, OTHER_FIELDS, 'body.view');
          expect(other.values).toEqual(whole.map((d) => OTHER_FIELDS.map((f) => valueAt(d, f))));
          expect(other.bytes).toEqual(page.bytes);
          packedReads += statement.mock.calls.filter(([key]) => key.startsWith('packed:')).length;
        } finally {
          statement.mockRestore();
          await instance.remove();
        }
      }),
      { numRuns: 150 },
    );
    // The pages above were read packed, not by the row-by-row fallback.
    expect(packedReads).toBeGreaterThan(200);
  });

  it('reads a page without a limit, or whose selector the index does not cover, row by row with the same answer', async () => {
    const storage = getRxStorageSqlite({ directory: dir });
    const instance = (await storage.createStorageInstance<Doc>({
      databaseInstanceToken: randomToken(10),
      databaseName: 'rowbyrow',
      collectionName: 'docs',
      schema,
      options: { textColumns: ['body.view'] },
      multiInstance: false,
      devMode: true,
    })) as SqliteStorageInstance<Doc>;
    try {
      const docs = [1, 2, 3].map((n): RxDocumentData<Doc> => ({ id: `r${n}`, amount: n, body: { view: `{"n":${n}}`, n }, _deleted: false, _attachments: {}, _rev: `1-r${n}`, _meta: { lwt: n } }));
      await instance.bulkWrite(inserts(docs), 'seed');
      const statement = vi.spyOn(instance.table, 'statement');
      const unlimited = await instance.queryProjected(prepare(schema, { selector: { _deleted: false, amount: { $gt: 1 } }, sort: [{ amount: 'asc' }] }), ['id'], 'body.view');
      const matched = await instance.queryProjected(prepare(schema, { selector: { _deleted: false, 'body.n': 2 }, sort: [{ amount: 'asc' }], limit: 5 }), ['id'], 'body.view');
      expect(statement.mock.calls.some(([key]) => key.startsWith('packed:'))).toBe(false);
      expect(unlimited.bytes.map(String)).toEqual(['{"n":2}', '{"n":3}']);
      expect(matched.values).toEqual([['r2']]);
      expect(matched.bytes.map(String)).toEqual(['{"n":2}']);
    } finally {
      await instance.remove();
    }
  });

  it('puts a page SQLite handed over out of order back in the query\'s order, each text with its values', () => {
    const page = { values: [[3, 'c'], [1, 'a'], [2, 'b'], [2, 'a']], bytes: ['3c', '1a', '2b', '2a'].map((t) => Buffer.from(t)) };
    const fixed = inOrder(page, ['n', 'id'], [{ n: 'asc' }, { id: 'asc' }]);
    expect(fixed.values).toEqual([[1, 'a'], [2, 'a'], [2, 'b'], [3, 'c']]);
    expect(fixed.bytes.map(String)).toEqual(['1a', '2a', '2b', '3c']);
    const descending = inOrder(page, ['n', 'id'], [{ n: 'desc' }]);
    expect(descending.values.map((v) => v[0])).toEqual([3, 2, 2, 1]);
    // A page already in order is handed back as it is.
    expect(inOrder(fixed, ['n', 'id'], [{ n: 'asc' }, { id: 'asc' }])).toBe(fixed);
  });
});
