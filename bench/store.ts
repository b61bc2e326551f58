/**
 * Store benchmark: the laneway RxDB SQLite storage against raw better-sqlite3
 * doing the same work (same table shape, JSON, index-key columns, indexes,
 * pragmas and batch transactions).
 *
 *   npx tsx bench/store.ts            # 1,000,000 documents
 *   npx tsx bench/store.ts --docs 50000
 *
 * (a) 100k inserts through RxDB (`collection.bulkInsert`, batches of 1,000)
 *     vs raw INSERTs in the same batches.
 * (b) fill both to --docs documents, then 1,000 indexed range queries
 *     returning 100 documents each: RxDB `find().exec()` vs raw SQL + JSON.parse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  createRxDatabase,
  normalizeMangoQuery,
  prepareQuery,
  type MangoQuery,
  type RxCollection,
  type RxDatabase,
  type RxJsonSchema,
} from 'rxdb';
import { getRxStorageSqlite } from '../src/store/sqlite';
import { SQLITE_PRAGMAS } from '../src/store/sqlite/connection';
import { encodeKey } from '../src/store/sqlite/key-encoding';

type Payment = {
  id: string;
  merchant: string;
  amount: number;
  createdAt: number;
  status: string;
  currency: string;
  note: string;
};

const ID_LEN = 24;
const MERCHANT_LEN = 16;
const AMOUNT_MAX = 1_000_000;
const CREATED_MIN = 1_600_000_000_000;
const CREATED_MAX = 1_900_000_000_000;

const schema: RxJsonSchema<Payment> = {
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: ID_LEN },
    merchant: { type: 'string', maxLength: MERCHANT_LEN },
    amount: { type: 'integer', minimum: 0, maximum: AMOUNT_MAX, multipleOf: 1 },
    createdAt: { type: 'integer', minimum: CREATED_MIN, maximum: CREATED_MAX, multipleOf: 1 },
    status: { type: 'string' },
    currency: { type: 'string' },
    note: { type: 'string' },
  },
  required: ['id', 'merchant', 'amount', 'createdAt', 'status', 'currency'],
  indexes: ['merchant', 'amount', 'createdAt'],
};

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]?.replaceAll('_', ''));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return Math.floor(value);
}

const TOTAL_DOCS = arg('docs', 1_000_000);
const INSERT_DOCS = Math.min(100_000, TOTAL_DOCS);
const BATCH = 1_000;
const FILL_BATCH = 10_000;
const QUERIES = arg('queries', 1_000);
const PAGE = 100;

// Deterministic data so both sides store the same documents; document n is a
// pure function of n, so nothing holds a million documents in memory.
function mix(n: number): number {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
let querySeed = 42;
function random(): number {
  querySeed = (Math.imul(querySeed, 1_103_515_245) + 12_345) >>> 0;
  return querySeed / 2 ** 32;
}
const MERCHANTS = Array.from({ length: 200 }, (_, i) => `merchant-${String(i).padStart(3, '0')}`);
const STATUSES = ['authorized', 'captured', 'refunded', 'voided'];

function makePayment(n: number): Payment {
  const a = mix(n);
  const b = mix(n + 0x51ed270b);
  return {
    id: `pay-${String(n).padStart(12, '0')}`,
    merchant: MERCHANTS[a % MERCHANTS.length]!,
    amount: b % AMOUNT_MAX,
    createdAt: CREATED_MIN + (mix(n + 0x2545f491) % 10_000_000) * 1_000,
    status: STATUSES[(a >>> 8) % STATUSES.length]!,
    currency: 'EUR',
    note: `terminal ${(a >>> 12) % 50} lane ${(b >>> 12) % 8} — receipt ${n}`,
  };
}

function payments(from: number, to: number): Payment[] {
  return Array.from({ length: to - from }, (_, i) => makePayment(from + i));
}

/**
 * Writes on this storage resolve without an I/O wait, so a tight loop of them
 * never lets timers run, and RxDB defers its doc-cache and change-buffer work
 * to idle timers. Real callers yield between batches; the bench does too,
 * outside the timed regions.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function fmt(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 3 : 1)} ms`;
}

function rssMiB(): string {
  return `${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`;
}

type Timing = { totalMs: number; samples: number[]; ops: number };

function report(label: string, timing: Timing, unit: string): void {
  const sorted = [...timing.samples].sort((a, b) => a - b);
  console.log(
    `  ${label.padEnd(34)} total ${fmt(timing.totalMs).padStart(10)}  ` +
      `${Math.round((timing.ops / timing.totalMs) * 1000).toLocaleString('en-US').padStart(10)} ${unit}/s  ` +
      `p50 ${fmt(percentile(sorted, 50)).padStart(9)}  p99 ${fmt(percentile(sorted, 99)).padStart(9)}`,
  );
}

// ---------------------------------------------------------------- raw side

/**
 * The raw table mirrors what the storage creates: encoded primary key, meta
 * columns, the document JSON and one encoded RxDB index string per index
 * (`[_deleted, field, id]` for each schema index plus `[_meta.lwt, id]`),
 * with the same SQLite indexes and pragmas.
 */
class RawStore {
  readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly range: Database.Statement;

  constructor(file: string) {
    this.db = new Database(file);
    for (const pragma of SQLITE_PRAGMAS) {
      this.db.pragma(pragma);
    }
    this.db.exec(`
      CREATE TABLE payments (
        id BLOB NOT NULL PRIMARY KEY, deleted INTEGER NOT NULL, lwt REAL NOT NULL, rev TEXT NOT NULL,
        data TEXT NOT NULL, i0 BLOB NOT NULL, i1 BLOB NOT NULL, i2 BLOB NOT NULL, i3 BLOB NOT NULL);
      CREATE INDEX payments_i0 ON payments (i0);
      CREATE INDEX payments_i1 ON payments (i1);
      CREATE INDEX payments_i2 ON payments (i2);
      CREATE INDEX payments_i3 ON payments (i3);
      CREATE INDEX payments_tombstones ON payments (lwt) WHERE deleted = 1;`);
    this.insert = this.db.prepare(
      'INSERT INTO payments (id, deleted, lwt, rev, data, i0, i1, i2, i3) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.range = this.db
      .prepare('SELECT data FROM payments INDEXED BY payments_i1 WHERE i1 >= ? AND i1 <= ? ORDER BY i1 LIMIT ?')
      .pluck(true);
  }

  static keys(p: Payment, lwt: number): Buffer[] {
    const id = p.id.padEnd(ID_LEN, ' ');
    const lwtInt = Math.floor(lwt);
    const lwtDec = Math.min(Math.round((lwt - lwtInt) * 100), 99);
    return [
      encodeKey(`0${p.merchant.padEnd(MERCHANT_LEN, ' ')}${id}`),
      encodeKey(`0${String(p.amount).padStart(7, '0')}${id}`),
      encodeKey(`0${String(p.createdAt - CREATED_MIN).padStart(12, '0')}${id}`),
      encodeKey(`${String(lwtInt - 1).padStart(15, '0')}${String(lwtDec).padStart(2, '0')}${id}`),
    ];
  }

  writeBatch(payments: Payment[], lwt: number, rev: string): void {
    this.db
      .transaction(() => {
        for (const p of payments) {
          const doc = { ...p, _deleted: false, _attachments: {}, _meta: { lwt }, _rev: rev };
          this.insert.run(encodeKey(p.id), 0, lwt, rev, JSON.stringify(doc), ...RawStore.keys(p, lwt));
        }
      })
      .immediate();
  }

  rangeFromAmount(amount: number, limit: number): unknown[] {
    const lower = encodeKey(`0${String(amount).padStart(7, '0')}${''.padEnd(ID_LEN, '\x00')}`);
    const upper = encodeKey(`0${'9'.repeat(7)}${''.padEnd(ID_LEN, '\uffff')}`);
    return (this.range.all(lower, upper, limit) as string[]).map((json) => JSON.parse(json) as unknown);
  }
}

// ---------------------------------------------------------------- run

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'laneway-bench-'));
  console.log(`laneway store bench: ${TOTAL_DOCS.toLocaleString('en-US')} docs, node ${process.version}, ${os.cpus().length} CPUs`);
  console.log(`  temp dir ${root}`);
  let db: RxDatabase<{ payments: RxCollection<Payment> }> | undefined;
  let raw: RawStore | undefined;
  try {
    db = await createRxDatabase<{ payments: RxCollection<Payment> }>({
      name: 'bench',
      storage: getRxStorageSqlite({ directory: path.join(root, 'rxdb') }),
      multiInstance: false,
    });
    await db.addCollections({ payments: { schema } });
    const collection = db.payments;
    fs.mkdirSync(path.join(root, 'raw'));
    raw = new RawStore(path.join(root, 'raw', 'raw.sqlite'));

    // (a) inserts
    console.log(`\n(a) ${INSERT_DOCS.toLocaleString('en-US')} inserts in batches of ${BATCH}`);
    // Batches alternate between the two sides so both see the same disk conditions.
    const ours: Timing = { totalMs: 0, samples: [], ops: INSERT_DOCS };
    const rawInsert: Timing = { totalMs: 0, samples: [], ops: INSERT_DOCS };
    for (let i = 0; i < INSERT_DOCS; i += BATCH) {
      const batch = payments(i, Math.min(i + BATCH, INSERT_DOCS));
      let t = performance.now();
      const result = await collection.bulkInsert(batch);
      let dt = performance.now() - t;
      if (result.error.length > 0) throw new Error(`insert errors: ${result.error.length}`);
      ours.samples.push(dt);
      ours.totalMs += dt;

      const rawBatch = payments(i, Math.min(i + BATCH, INSERT_DOCS));
      t = performance.now();
      raw.writeBatch(rawBatch, Date.now() + 0.01, '1-benchrawrev');
      dt = performance.now() - t;
      rawInsert.samples.push(dt);
      rawInsert.totalMs += dt;
      await yieldToEventLoop();
    }
    report('RxDB bulkInsert (laneway sqlite)', ours, 'docs');
    report('raw better-sqlite3', rawInsert, 'docs');
    const insertRatio = ours.totalMs / rawInsert.totalMs;
    console.log(`  ratio ours/raw: ${insertRatio.toFixed(2)}x (target <= 3x)   RSS ${rssMiB()}`);

    // sanity: both sides wrote the same index keys for the same document
    const sample = makePayment(0);
    const ourTable = (collection.storageInstance.internals as { tableName: string }).tableName;
    const check = new Database(path.join(root, 'rxdb', 'laneway.sqlite'), { readonly: true });
    const ourRow = check
      .prepare(`SELECT i0, i1, i2, i3, lwt FROM "${ourTable}" WHERE id = ?`)
      .get(encodeKey(sample.id)) as { i0: Buffer; i1: Buffer; i2: Buffer; i3: Buffer; lwt: number };
    check.close();
    const rawKeys = RawStore.keys(sample, ourRow.lwt);
    const sameKeys = [ourRow.i0, ourRow.i1, ourRow.i2, ourRow.i3].every((k, i) => k.equals(rawKeys[i]!));
    if (!sameKeys) throw new Error('raw index keys differ from the storage ones; the comparison would be unfair');

    // (b) fill
    if (TOTAL_DOCS > INSERT_DOCS) {
      console.log(
        `\n(b) fill to ${TOTAL_DOCS.toLocaleString('en-US')} docs in batches of ${FILL_BATCH.toLocaleString('en-US')}` +
          ' (ours: collection.storageInstance.bulkWrite, i.e. RxDB\'s storage wrapper without RxDocument creation)',
      );
      const storageInstance = collection.storageInstance;
      let oursFill = 0;
      let rawFill = 0;
      for (let i = INSERT_DOCS; i < TOTAL_DOCS; i += FILL_BATCH) {
        const end = Math.min(i + FILL_BATCH, TOTAL_DOCS);
        const rows = payments(i, end).map((p) => ({
          document: { ...p, _deleted: false, _attachments: {}, _meta: { lwt: 0 }, _rev: '' },
        }));
        let t = performance.now();
        const result = await storageInstance.bulkWrite(rows, 'bench-fill');
        oursFill += performance.now() - t;
        if (result.error.length > 0) throw new Error(`fill errors: ${result.error.length}`);
        const rawRows = payments(i, end);
        t = performance.now();
        raw.writeBatch(rawRows, Date.now() + 0.01, '1-benchrawrev');
        rawFill += performance.now() - t;
        await yieldToEventLoop();
      }
      const filled = TOTAL_DOCS - INSERT_DOCS;
      console.log(
        `  ours ${fmt(oursFill)} (${Math.round((filled / oursFill) * 1000).toLocaleString('en-US')} docs/s), ` +
          `raw ${fmt(rawFill)} (${Math.round((filled / rawFill) * 1000).toLocaleString('en-US')} docs/s), ` +
          `ratio ${(oursFill / rawFill).toFixed(2)}x   RSS ${rssMiB()}`,
      );
    }
    const count = await collection.count().exec();
    if (count !== TOTAL_DOCS) throw new Error(`expected ${TOTAL_DOCS} docs, found ${count}`);

    // (c) queries
    console.log(`\n(c) ${QUERIES.toLocaleString('en-US')} indexed range queries, ${PAGE} docs each, over ${TOTAL_DOCS.toLocaleString('en-US')} docs`);
    const starts = Array.from({ length: QUERIES }, () => Math.floor(random() * AMOUNT_MAX * 0.99));
    // warm both sides a little so the first statement preparation is not measured
    for (const start of starts.slice(0, 20)) {
      await collection.find({ selector: { amount: { $gte: start } }, sort: [{ amount: 'asc' }], limit: PAGE }).exec();
      raw.rangeFromAmount(start, PAGE);
    }
    const oursQuery: Timing = { totalMs: 0, samples: [], ops: QUERIES };
    let oursDocs = 0;
    for (const start of starts) {
      const t = performance.now();
      const docs = await collection
        .find({ selector: { amount: { $gte: start } }, sort: [{ amount: 'asc' }], limit: PAGE })
        .exec();
      const dt = performance.now() - t;
      oursDocs += docs.length;
      oursQuery.samples.push(dt);
      oursQuery.totalMs += dt;
    }
    // The storage alone (query preparation included), to separate it from RxQuery/RxDocument costs.
    const storageQuery: Timing = { totalMs: 0, samples: [], ops: QUERIES };
    const instance = collection.storageInstance;
    for (const start of starts) {
      const t = performance.now();
      const prepared = prepareQuery(
        instance.schema,
        normalizeMangoQuery(instance.schema, {
          selector: { _deleted: { $eq: false }, amount: { $gte: start } },
          sort: [{ amount: 'asc' }],
          limit: PAGE,
        } as MangoQuery<Payment>),
      );
      const result = await instance.query(prepared);
      const dt = performance.now() - t;
      if (result.documents.length !== PAGE) throw new Error('storage query returned a short page');
      storageQuery.samples.push(dt);
      storageQuery.totalMs += dt;
    }
    const rawQuery: Timing = { totalMs: 0, samples: [], ops: QUERIES };
    let rawDocs = 0;
    for (const start of starts) {
      const t = performance.now();
      const docs = raw.rangeFromAmount(start, PAGE);
      const dt = performance.now() - t;
      rawDocs += docs.length;
      rawQuery.samples.push(dt);
      rawQuery.totalMs += dt;
    }
    if (oursDocs !== rawDocs) throw new Error(`query results differ: ${oursDocs} vs ${rawDocs} docs`);
    report('RxDB find().exec() (laneway sqlite)', oursQuery, 'queries');
    report('storage query() alone', storageQuery, 'queries');
    report('raw SQL range + JSON.parse', rawQuery, 'queries');
    const p50 = percentile([...oursQuery.samples].sort((a, b) => a - b), 50);
    console.log(
      `  ratio ours/raw: ${(oursQuery.totalMs / rawQuery.totalMs).toFixed(2)}x   ` +
        `ours p50 ${fmt(p50)} (target < 2 ms)   ${(oursDocs / QUERIES).toFixed(0)} docs/query   RSS ${rssMiB()}`,
    );

    const size = (dir: string) =>
      fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0) / 1024 / 1024;
    console.log(
      `\nfiles: ours ${size(path.join(root, 'rxdb')).toFixed(0)} MiB, raw ${size(path.join(root, 'raw')).toFixed(0)} MiB`,
    );
    console.log(
      `targets: inserts ${insertRatio <= 3 ? 'MET' : 'MISSED'} (${insertRatio.toFixed(2)}x <= 3x), ` +
        `query p50 ${p50 < 2 ? 'MET' : 'MISSED'} (${fmt(p50)} < 2 ms)`,
    );
  } finally {
    if (db) await db.close();
    raw?.db.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();
