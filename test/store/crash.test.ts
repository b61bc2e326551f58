import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { RxDocumentData, RxJsonSchema, RxStorageInstance } from 'rxdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FILE_NAME, getRxStorageSqlite } from '../../src/store/sqlite';
import {
  ATOMIC_BATCH_SIZE,
  PLAIN_BATCH_SIZE,
  expectedDoc,
  lineSchema,
  orderSchema,
  type Order,
} from './fixtures/crash-docs';
import { createInstance, makeTempDir, plain, prepare, removeDir } from './helpers';

const here = path.dirname(fileURLToPath(import.meta.url));
const writerScript = path.join(here, 'fixtures', 'crash-writer.ts');
const repoRoot = path.resolve(here, '..', '..');

type Reported = { kind: 'P' | 'A'; batch: string };

/**
 * Starts the writer, waits until it has acknowledged a first batch, lets it
 * run a random short while longer and SIGKILLs it. Returns what it reported.
 */
function runAndKill(directory: string, tag: string): Promise<Reported[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writerScript, directory, tag], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let killTimer: NodeJS.Timeout | undefined;
    const failTimer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (!killTimer && out.includes('\n')) {
        killTimer = setTimeout(() => child.kill('SIGKILL'), 20 + Math.floor(Math.random() * 400));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(failTimer);
      if (killTimer) clearTimeout(killTimer);
      if (signal !== 'SIGKILL') {
        reject(new Error(`writer exited by itself (code ${code}): ${err}`));
        return;
      }
      // a line cut by the kill has no newline and does not count
      const complete = out.slice(0, out.lastIndexOf('\n') + 1);
      resolve(
        complete
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [kind, batch] = line.split(' ');
            return { kind: kind as 'P' | 'A', batch: batch! };
          }),
      );
    });
  });
}

function readAll(filePath: string, tableName: string): RxDocumentData<Order>[] {
  const db = new Database(filePath, { readonly: true });
  try {
    return (db.prepare(`SELECT data FROM "${tableName}" NOT INDEXED`).pluck().all() as string[]).map(
      (json) => JSON.parse(json) as RxDocumentData<Order>,
    );
  } finally {
    db.close();
  }
}

describe('crash safety under SIGKILL', () => {
  let dir: string;
  const reported: Reported[] = [];

  beforeAll(() => {
    dir = makeTempDir('laneway-crash-');
  });
  afterAll(() => removeDir(dir));

  for (let round = 0; round < 4; round++) {
    it(`round ${round}: every acknowledged batch is intact, no batch is partial, indexes agree`, async () => {
      const tag = `r${round}`;
      const acknowledged = await runAndKill(dir, tag);
      expect(acknowledged.length).toBeGreaterThan(0);
      reported.push(...acknowledged);
      const filePath = path.join(dir, DEFAULT_FILE_NAME);

      // Opening runs WAL recovery; then the file must be structurally sound.
      const raw = new Database(filePath);
      expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
      raw.close();

      const storage = getRxStorageSqlite({ directory: dir });
      const open = (name: string, schema: RxJsonSchema<RxDocumentData<Order>>) =>
        createInstance<Order, unknown, unknown>(storage, schema, { databaseName: 'crash', collectionName: name });
      const orders = await open('orders', orderSchema);
      const lines = await open('lines', lineSchema);
      try {
        // 1. every acknowledged batch (this round and earlier ones) is fully there, byte for byte
        for (const { kind, batch } of reported) {
          const size = kind === 'P' ? PLAIN_BATCH_SIZE : ATOMIC_BATCH_SIZE;
          const ids = Array.from({ length: size }, (_, seq) => `o-${batch}-${seq}`);
          const found = await orders.findDocumentsById(ids, true);
          expect(plain(found)).toEqual(ids.map((id, seq) => expectedDoc(id, batch, seq)));
          if (kind === 'A') {
            const lineIds = Array.from({ length: size }, (_, seq) => `l-${batch}-${seq}`);
            const foundLines = await lines.findDocumentsById(lineIds, true);
            expect(plain(foundLines)).toEqual(lineIds.map((id, seq) => expectedDoc(id, batch, seq)));
          }
        }

        // 2. whatever is on disk (acknowledged or not) consists of whole batches
        const orderDocs = readAll(filePath, (orders.internals as { tableName: string }).tableName);
        const lineDocs = readAll(filePath, (lines.internals as { tableName: string }).tableName);
        const countBy = (docs: RxDocumentData<Order>[]) => {
          const counts = new Map<string, number>();
          for (const doc of docs) {
            if (!doc.id.startsWith('counter-')) {
              counts.set(doc.batch, (counts.get(doc.batch) ?? 0) + 1);
              expect(plain(doc)).toEqual(expectedDoc(doc.id, doc.batch, doc.seq));
            }
          }
          return counts;
        };
        const orderCounts = countBy(orderDocs);
        const lineCounts = countBy(lineDocs);
        for (const [batch, count] of orderCounts) {
          const k = Number(batch.split('-')[1]);
          const atomic = k % 2 === 1;
          expect(count, `orders of ${batch}`).toBe(atomic ? ATOMIC_BATCH_SIZE : PLAIN_BATCH_SIZE);
          if (atomic) {
            expect(lineCounts.get(batch), `lines of ${batch}`).toBe(ATOMIC_BATCH_SIZE);
          }
        }
        for (const batch of lineCounts.keys()) {
          expect(orderCounts.get(batch), `orders of atomic ${batch}`).toBe(ATOMIC_BATCH_SIZE);
        }

        // 3. the counter, updated in the same commit as its batch, names the newest atomic batch
        const [counter] = await lines.findDocumentsById([`counter-${tag}`], false);
        const newestAtomic = Math.max(
          ...[...lineCounts.keys()].filter((b) => b.startsWith(`${tag}-`)).map((b) => Number(b.split('-')[1])),
        );
        if (counter) {
          expect(counter.seq).toBe(newestAtomic);
        } else {
          expect(newestAtomic).toBe(-Infinity);
        }

        // 4. index range scans agree with a full scan
        for (const [instance, docs] of [
          [orders, orderDocs],
          [lines, lineDocs],
        ] as Array<[RxStorageInstance<Order, unknown, unknown>, RxDocumentData<Order>[]]>) {
          const byAmount = await instance.query(
            prepare(orderSchema, { selector: { _deleted: false, amount: { $gte: 0 } }, sort: [{ amount: 'asc' }] }),
          );
          expect(byAmount.documents.map((d) => d.id).sort()).toEqual(docs.map((d) => d.id).sort());
          const amounts = byAmount.documents.map((d) => d.amount);
          expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
          const counted = await instance.count(prepare(orderSchema, { selector: { _deleted: false } }));
          expect(counted.count).toBe(docs.length);
        }
      } finally {
        await orders.close();
        await lines.close();
      }
    });
  }
});
