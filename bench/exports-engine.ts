/**
 * The export's engine side alone (no HTTP): pages of engine.receivables.exportInvoicesJson('all')
 * and the response body built from them, on a folder seeded by bench/exports.ts, beside a raw SQL
 * read of the same rows in the same run. For profiling:
 *
 *   npx tsx --cpu-prof --cpu-prof-dir /tmp/prof bench/exports-engine.ts --dir /tmp/lw-exports-bench --pages 200
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDataStore } from '../src/store';
import { createEngine, storeLayouts } from '../src/engine';
import { createLogger } from '../src/engine/logger';
import { exportRecordBytes } from '../src/engine/receivables/fast-export';

const PAGE = 2500;
const at = (name: string) => process.argv.indexOf(`--${name}`);
const dir = at('dir') === -1 ? '/tmp/lw-exports-bench' : process.argv[at('dir') + 1]!;
const pages = at('pages') === -1 ? 200 : Number(process.argv[at('pages') + 1]);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
// CPU time per page beside wall time: this machine is shared, and CPU time moves less with its load.
const line = (name: string, n: number, ms: number, times: number[], cpu: NodeJS.CpuUsage) =>
  console.log(
    `${name.padEnd(40)} ${Math.round((n / ms) * 1000).toLocaleString('en-US').padStart(9)}/s   p50 ${pct(times, 50).toFixed(1).padStart(5)} ms   p99 ${pct(times, 99).toFixed(1).padStart(5)} ms   CPU ${((cpu.user + cpu.system) / 1000 / times.length).toFixed(1).padStart(5)} ms/page`,
  );

function raw(): void {
  const db = new Database(path.join(dir, 'laneway.sqlite'), { readonly: true });
  const row = db.prepare("SELECT id, indexes_json, text_columns FROM laneway_rx_collections WHERE collection_name = 'invoices'").get() as { id: number; indexes_json: string; text_columns: string };
  // Every stored column of the document: the JSON and its text columns (the stored renderings).
  const texts = (JSON.parse(row.text_columns) as string[]).map((_, i) => `, t${i}`).join('');
  const column = `i${(JSON.parse(row.indexes_json) as string[][]).findIndex((ix) => ix.join(',') === '_deleted,watermark,id')}`;
  const stmt = db.prepare(`SELECT ${column} AS k, data${texts} FROM rxc_${row.id} WHERE ${column} > ? ORDER BY ${column} LIMIT ${PAGE}`).raw();
  let after: Buffer = Buffer.alloc(0);
  const times: number[] = [];
  let n = 0;
  const t0 = performance.now();
  const cpu = process.cpuUsage();
  for (let p = 0; p < pages; p++) {
    const t = performance.now();
    const rows = stmt.all(after) as Array<[Buffer, string]>;
    for (const r of rows) JSON.parse(r[1]);
    times.push(performance.now() - t);
    if (rows.length === 0) break;
    n += rows.length;
    after = rows[rows.length - 1]![0];
  }
  line('raw SQL + JSON.parse', n, performance.now() - t0, times, process.cpuUsage(cpu));
  db.close();
}

async function main(): Promise<void> {
  raw();
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({ directory: path.join(dir, 'logs'), level: 'warn' }), timezone: 'UTC' });
  for (const withBody of [false, true]) {
    let after = 0;
    let n = 0;
    const times: number[] = [];
    const t0 = performance.now();
    const cpu = process.cpuUsage();
    for (let p = 0; p < pages; p++) {
      const t = performance.now();
      const { records } = await engine.receivables.exportInvoicesJson('all', { after, limit: PAGE });
      if (withBody) exportRecordBytes(records, true, false);
      times.push(performance.now() - t);
      if (records.length === 0) break;
      n += records.length;
      after = records[records.length - 1]!.watermark;
    }
    line(withBody ? 'engine page + response body' : 'engine exportInvoicesJson', n, performance.now() - t0, times, process.cpuUsage(cpu));
  }
  await engine.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
