import fc from 'fast-check';
import type { MangoQuery, MangoQuerySelector, MangoQuerySortPart, RxDocumentData, RxJsonSchema } from 'rxdb';
import { fillWithDefaultSettings } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRxStorageSqlite, type RxStorageSqlite } from '../../src/store/sqlite';
import { createInstance, inserts, makeTempDir, plain, prepare, removeDir } from './helpers';

type Item = {
  id: string;
  name: string;
  qty: number;
  price: number;
  flag: boolean;
  label: string;
  score: number;
};

const schema: RxJsonSchema<RxDocumentData<Item>> = fillWithDefaultSettings<Item>({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 16 },
    name: { type: 'string', maxLength: 8 },
    qty: { type: 'integer', minimum: 0, maximum: 100, multipleOf: 1 },
    price: { type: 'number', minimum: 0, maximum: 1000, multipleOf: 0.01 },
    flag: { type: 'boolean' },
    // label and score have no index
    label: { type: 'string' },
    score: { type: 'number' },
  },
  required: ['id', 'name', 'qty', 'price', 'flag', 'label', 'score'],
  indexes: ['name', 'qty', ['flag', 'qty'], ['name', 'price']],
});

// Mix of characters whose UTF-8 and UTF-16 orders disagree, plus ordinary ones.
const CHARS = ['a', 'b', 'B', 'z', ' ', '\u00e9', '\uE000', '\uFFFD', '\uFF21', '\u{1F600}', '\u{10400}', '0'];
const text = (maxUnits: number) =>
  fc
    .array(fc.constantFrom(...CHARS), { maxLength: maxUnits })
    .map((parts) => {
      let value = '';
      for (const part of parts) {
        if ((value + part).length <= maxUnits) {
          value += part;
        }
      }
      return value;
    });

const cents = fc.integer({ min: 0, max: 100_000 }).map((c) => c / 100);
const finite = fc.double({ min: -1000, max: 1000, noNaN: true }).map((x) => (Object.is(x, -0) ? 0 : x));

const itemArb = fc.record({
  name: text(4),
  qty: fc.integer({ min: 0, max: 100 }),
  price: cents,
  flag: fc.boolean(),
  label: text(3),
  score: finite,
  deleted: fc.boolean(),
  lwt: fc.integer({ min: 1, max: 6 }),
});

const docsArb = fc
  .array(itemArb, { minLength: 0, maxLength: 40 })
  .map((items) =>
    items.map(
      (item, i): RxDocumentData<Item> => ({
        id: `d${String(i).padStart(3, '0')}${item.name.slice(0, 2)}`,
        name: item.name,
        qty: item.qty,
        price: item.price,
        flag: item.flag,
        label: item.label,
        score: item.score,
        _deleted: item.deleted,
        _attachments: {},
        _rev: `1-r${i}`,
        _meta: { lwt: 1_000 + item.lwt },
      }),
    ),
  );

type Selector = MangoQuerySelector<RxDocumentData<Item>>;
type Condition = Record<string, unknown>;

/** Values from the stored documents mixed with fresh ones, so ranges both hit and miss. */
function near<T>(stored: T[], fresh: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return stored.length > 0 ? fc.oneof(fc.constantFrom(...stored), fresh) : fresh;
}

function stringCondition(values: fc.Arbitrary<string>): fc.Arbitrary<Condition> {
  return fc.oneof(
    values.map((v) => ({ $eq: v })),
    values.map((v) => ({ $gt: v })),
    values.map((v) => ({ $gte: v })),
    values.map((v) => ({ $lt: v })),
    fc.tuple(values, values).map(([a, b]) => (a < b ? { $gte: a, $lte: b } : { $gt: b, $lt: a })),
    fc.array(values, { minLength: 1, maxLength: 3 }).map((v) => ({ $in: v })),
    fc.constantFrom('^a', 'b', '\u{1F600}', '^$', 'z$', '\uFFFD').map((v) => ({ $regex: v })),
    values.map((v) => ({ $ne: v })),
  );
}

function numberCondition(values: fc.Arbitrary<number>): fc.Arbitrary<Condition> {
  return fc.oneof(
    values.map((v) => ({ $eq: v })),
    values.map((v) => ({ $gt: v })),
    values.map((v) => ({ $lte: v })),
    fc.tuple(values, values).map(([a, b]) => ({ $gte: Math.min(a, b), $lt: Math.max(a, b) })),
    fc.tuple(values, values).map(([a, b]) => ({ $gt: Math.min(a, b), $lte: Math.max(a, b) })),
    fc.array(values, { minLength: 1, maxLength: 3 }).map((v) => ({ $in: v })),
    values.map((v) => ({ $ne: v })),
  );
}

function selectorFor(docs: RxDocumentData<Item>[]): fc.Arbitrary<Selector> {
  const conditions: Record<string, fc.Arbitrary<Condition>> = {
    id: stringCondition(near(docs.map((d) => d.id), fc.constantFrom('d000', 'd01', 'd5', 'e'))),
    name: stringCondition(near(docs.map((d) => d.name), text(4))),
    qty: numberCondition(near(docs.map((d) => d.qty), fc.integer({ min: -5, max: 105 }))),
    price: numberCondition(near(docs.map((d) => d.price), cents)),
    flag: fc.boolean().map((v) => ({ $eq: v })),
    label: stringCondition(near(docs.map((d) => d.label), text(3))),
    score: numberCondition(near(docs.map((d) => d.score), finite)),
  };
  const fields = fc.uniqueArray(fc.constantFrom(...Object.keys(conditions)), { maxLength: 2 });
  const simple = fields.chain((names) =>
    fc.tuple(...names.map((n) => conditions[n]!)).map((conds) => {
      const selector: Record<string, unknown> = {};
      names.forEach((n, i) => (selector[n] = conds[i]));
      return selector;
    }),
  );
  // RxQuery always adds `_deleted: {$eq: false}`; raw storage callers may not.
  const deleted = fc.constantFrom<Condition | undefined>({ $eq: false }, { $eq: false }, { $eq: false }, undefined, { $eq: true });
  const base = fc.tuple(simple, deleted).map(([selector, del]) => (del ? { ...selector, _deleted: del } : selector));
  return fc.oneof(
    { weight: 5, arbitrary: base },
    {
      weight: 1,
      arbitrary: fc
        .tuple(base, fc.array(simple, { minLength: 1, maxLength: 3 }))
        .map(([selector, alternatives]) => ({ ...selector, $or: alternatives })),
    },
  ) as fc.Arbitrary<Selector>;
}

const SORT_FIELDS = ['id', 'name', 'qty', 'price', 'flag', 'label', 'score', '_deleted'] as const;
type Sort = MangoQuerySortPart<RxDocumentData<Item>>[];
const randomSort = fc
  .uniqueArray(fc.constantFrom(...SORT_FIELDS), { minLength: 1, maxLength: 3 })
  .chain((fields) => fc.tuple(...fields.map((f) => fc.constantFrom('asc', 'desc').map((dir) => ({ [f]: dir })))));
// Sorts in index order, so the "index already sorted" paths get exercised too.
const indexSort = fc.constantFrom<Sort>(
  [{ name: 'asc' }],
  [{ qty: 'asc' }],
  [{ flag: 'asc' }, { qty: 'asc' }],
  [{ name: 'asc' }, { price: 'asc' }],
  [{ _deleted: 'asc' }, { qty: 'asc' }],
  [{ id: 'asc' }],
);
const sortArb = fc.oneof(fc.constant(undefined), randomSort, indexSort) as fc.Arbitrary<Sort | undefined>;

function queryFor(docs: RxDocumentData<Item>[]): fc.Arbitrary<MangoQuery<RxDocumentData<Item>>> {
  return fc
    .record({
      selector: selectorFor(docs),
      sort: sortArb,
      skip: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
    })
    .map((q) => {
      const query: MangoQuery<RxDocumentData<Item>> = { selector: q.selector };
      if (q.sort) query.sort = q.sort;
      if (q.skip !== undefined) query.skip = q.skip;
      if (q.limit !== undefined) query.limit = q.limit;
      return query;
    });
}

const caseArb = docsArb.chain((docs) =>
  fc.tuple(fc.constant(docs), fc.array(queryFor(docs), { minLength: 1, maxLength: 15 })),
);

describe('query results equal the memory storage (property)', () => {
  let dir: string;
  let storage: RxStorageSqlite;
  let run = 0;

  beforeAll(() => {
    dir = makeTempDir();
    storage = getRxStorageSqlite({ directory: dir });
  });
  afterAll(() => removeDir(dir));

  it('same documents, same order, same counts', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ([docs, queries]) => {
        run++;
        const sqlite = await createInstance<Item, unknown, unknown>(storage, schema, { collectionName: `items${run}` });
        const memory = await createInstance<Item, unknown, unknown>(getRxStorageMemory(), schema, {
          databaseName: `prop-${run}-${Math.random()}`,
        });
        try {
          expect((await sqlite.bulkWrite(inserts(docs), 'seed')).error).toEqual([]);
          await memory.bulkWrite(inserts(docs), 'seed');
          for (const mango of queries) {
            const prepared = prepare(schema, mango);
            const ours = (await sqlite.query(prepared)).documents;
            const theirs = (await memory.query(prepared)).documents;
            expect(plain(ours)).toEqual(plain(theirs));
            expect((await sqlite.count(prepared)).count).toBe(ours.length);
            // RxQuery never sends skip/limit with count(); compare that form too
            const unpaged = prepare(schema, { selector: mango.selector, sort: mango.sort });
            expect((await sqlite.count(unpaged)).count).toBe((await memory.count(unpaged)).count);
          }
        } finally {
          await sqlite.remove();
          await memory.remove();
        }
      }),
      { numRuns: 150 },
    );
  });
});
