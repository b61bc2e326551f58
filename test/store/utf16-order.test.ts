import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { RxDocumentData, RxStorageDefaultCheckpoint, RxStorageInstance } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getRxStorageSqlite, type SqliteInstanceOptions, type SqliteInternals } from '../../src/store/sqlite';
import { decodeKey, encodeKey } from '../../src/store/sqlite/key-encoding';
import {
  createInstance,
  filledPaymentSchema,
  inserts,
  makeTempDir,
  payment,
  plain,
  prepare,
  removeDir,
  storedDoc,
  type Payment,
} from './helpers';

/**
 * Characters where UTF-8 byte order and UTF-16 code-unit order disagree:
 * astral characters (surrogate pairs D800–DFFF) sort BEFORE U+E000–U+FFFD in
 * JavaScript but AFTER them in UTF-8.
 */
const TRICKY = [
  'a',
  'a\u{1F600}', // 😀 astral
  'a\uFFFD', // replacement character
  'a\uE000', // private use, just above the surrogates
  'a\uFF21', // fullwidth A
  '\u{10FFFF}', // highest code point, astral
  '\u{1F4B3}x', // 💳
  '\uFFFDz',
  'z',
  'zz',
  '\u00e9',
  'a\uD7FF', // just below the surrogates
];

function jsSorted(values: string[]): string[] {
  return [...values].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}

describe('UTF-16 key encoding', () => {
  it('sorts like JavaScript strings under memcmp and round-trips, lone surrogates included', () => {
    const values = [...TRICKY, 'a\uD800', '\uDC00b', ''];
    const bySqliteOrder = [...values].sort((x, y) => Buffer.compare(encodeKey(x), encodeKey(y)));
    expect(bySqliteOrder).toEqual(jsSorted(values));
    for (const value of values) {
      expect(decodeKey(encodeKey(value))).toBe(value);
    }
  });

  it('orders any strings of arbitrary UTF-16 code units like JavaScript (property)', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0x7f }),
      fc.integer({ min: 0x80, max: 0xffff }),
      fc.constantFrom(0, 0x7f, 0x80, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd, 0xffff),
    );
    const text = fc.array(unit, { maxLength: 8 }).map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(text, text, (x, y) => {
        const js = x < y ? -1 : x > y ? 1 : 0;
        expect(Math.sign(Buffer.compare(encodeKey(x), encodeKey(y)))).toBe(js);
        expect(decodeKey(encodeKey(x))).toBe(x);
      }),
      { numRuns: 2000 },
    );
  });

  it('is needed: SQLite TEXT order differs from JavaScript order for these strings', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (v TEXT)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    for (const value of TRICKY) {
      insert.run(value);
    }
    const textOrder = db.prepare('SELECT v FROM t ORDER BY v').pluck().all() as string[];
    expect(textOrder).not.toEqual(jsSorted(TRICKY));
    db.close();
  });
});

describe('index order in the storage', () => {
  let dir: string;
  let sqlite: RxStorageInstance<Payment, SqliteInternals, SqliteInstanceOptions>;
  let memory: RxStorageInstance<Payment, unknown, unknown>;
  let docs: RxDocumentData<Payment>[];

  beforeEach(async () => {
    dir = makeTempDir();
    sqlite = await createInstance<Payment, SqliteInternals, SqliteInstanceOptions>(
      getRxStorageSqlite({ directory: dir }),
      filledPaymentSchema,
    );
    memory = await createInstance<Payment, unknown, unknown>(getRxStorageMemory(), filledPaymentSchema, {
      databaseName: `utf16-${Math.random()}`,
    });
    // ids and merchants both carry the tricky characters; every lwt is equal
    // so the change feed orders purely by id
    docs = TRICKY.map((value, i) =>
      storedDoc(payment(`id${value}`, { merchant: value, amount: i }), { lwt: 1_000 }),
    );
    await sqlite.bulkWrite(inserts(docs), 'seed');
    await memory.bulkWrite(inserts(docs), 'seed');
  });

  afterEach(async () => {
    await sqlite.close();
    await memory.remove();
    removeDir(dir);
  });

  it('returns an indexed sort in JavaScript string order', async () => {
    const asc = await sqlite.query(prepare(filledPaymentSchema, { selector: { _deleted: false }, sort: [{ merchant: 'asc' }] }));
    expect(asc.documents.map((d) => d.merchant)).toEqual(jsSorted(TRICKY));
    const byId = await sqlite.query(prepare(filledPaymentSchema, { selector: {}, sort: [{ id: 'asc' }] }));
    expect(byId.documents.map((d) => d.id)).toEqual(jsSorted(TRICKY.map((v) => `id${v}`)));
  });

  it.each([
    ['$gt U+E000', { $gt: 'a\uE000' }],
    ['$lt U+FFFD', { $lt: 'a\uFFFD' }],
    ['$gte astral', { $gte: 'a\u{1F600}' }],
    ['$lte astral', { $lte: '\u{1F4B3}x' }],
    ['between astral and U+FFxx', { $gt: 'a\u{1F600}', $lt: 'a\uFF21' }],
    ['$eq astral', { $eq: '\u{10FFFF}' }],
  ])('range %s matches JavaScript comparison and the memory storage', async (_name, range) => {
    const query = prepare(filledPaymentSchema, {
      selector: { _deleted: false, merchant: range },
      sort: [{ merchant: 'asc' }],
    });
    expect(query.queryPlan.index).toContain('merchant');
    const ours = (await sqlite.query(query)).documents;
    const theirs = (await memory.query(query)).documents;
    expect(plain(ours)).toEqual(plain(theirs));

    const matchesRange = (value: string) =>
      ('$gt' in range ? value > range.$gt! : true) &&
      ('$gte' in range ? value >= range.$gte! : true) &&
      ('$lt' in range ? value < range.$lt! : true) &&
      ('$lte' in range ? value <= range.$lte! : true) &&
      ('$eq' in range ? value === range.$eq : true);
    expect(ours.map((d) => d.merchant)).toEqual(jsSorted(TRICKY.filter(matchesRange)));
    expect((await sqlite.count(query)).count).toBe(ours.length);
  });

  it('pages the change feed in JavaScript id order', async () => {
    const seen: string[] = [];
    let checkpoint: RxStorageDefaultCheckpoint | undefined;
    for (;;) {
      const page = await sqlite.getChangedDocumentsSince!(2, checkpoint);
      seen.push(...page.documents.map((d) => d.id));
      checkpoint = page.checkpoint;
      if (page.documents.length < 2) {
        break;
      }
    }
    expect(seen).toEqual(jsSorted(docs.map((d) => d.id)));
  });
});
