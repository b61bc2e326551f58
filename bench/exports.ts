/**
 * Export benchmark: a client drains GET /api/exports/invoices (limit 2500) over loopback HTTP from
 * a separate `serve` process, beside a raw SQL scan of the same rows (better-sqlite3, the same
 * index, JSON.parse of each row) in the same run.
 *
 *   npx tsx bench/exports.ts                         # 1,000,000 invoices, 100,000 customers
 *   npx tsx bench/exports.ts --invoices 100000 --customers 10000
 *   npx tsx bench/exports.ts --dir /tmp/lw-bench --keep   # keep (and reuse) the seeded folder
 *
 * Seeding uses the bulk path: receivables.importInvoices(batch) runs one unit of work (one SQLite
 * transaction) per batch of invoices; each invoice is still validated and gets its own watermark
 * and event, and customers are created from customer_* attributes on their first invoice.
 *
 * Targets: at least 50,000 records/s; page p99 under 50 ms; serving process RSS under 500 MB.
 * They are judged on the server as it runs, which reads the next page ahead while the client
 * parses a full one (src/engine/receivables/fast-export/read-ahead.ts). A second drain with --no-read-ahead
 * follows, whose page times are what a page costs when it is read on request.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { serveNodeFlags, startServe } from './serve-flags';
import { arg, strArg } from './args';

const TOKEN = 'BENCHTOKEN01';
const KEY = 'bench-key-0123456789';
const PAGE = 2500;


const invoices = arg('invoices', 1_000_000);
const customers = arg('customers', 100_000);
const batch = arg('batch', 2000);
const keep = process.argv.includes('--keep');
const dir = strArg('dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'laneway-bench-'));
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function invoiceInput(i: number) {
  const c = Math.floor((i * customers) / invoices);
  const day = 1 + (i % 28);
  return {
    number: `INV${String(i).padStart(8, '0')}`,
    customer_identifier: `CUST${String(c).padStart(7, '0')}`,
    customer_name: `Customer ${c}`,
    date: `2026-02-${String(day).padStart(2, '0')}`,
    due_date: `2026-03-${String(day).padStart(2, '0')}`,
    purchase_order_number: `PO-${i}`,
    subtotal_tax1: 845,
    line_item_attributes: [
      { number: '1', description: 'Widgets, boxed', quantity: 4, unit_cost_cents: 1250, sku: `W-${i % 97}` },
      { number: '2', description: 'Freight', amount: 1500 },
    ],
  };
}

async function seed(): Promise<void> {
  const marker = path.join(dir, 'bench-seed.json');
  const wanted = JSON.stringify({ invoices, customers });
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === wanted) {
    console.log(`Reusing the seeded folder ${dir}`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // Imported here only: the draining client (this script in another process) loads none of it.
  const [{ openDataStore }, { createEngine, storeLayouts }, { createLogger }] = await Promise.all([import('../src/store'), import('../src/engine'), import('../src/engine/logger')]);
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({ directory: path.join(dir, 'logs'), level: 'warn' }), firstToken: TOKEN, firstKey: KEY, timezone: 'UTC' });
  console.log(`Seeding ${fmt(invoices)} invoices for ${fmt(customers)} customers through receivables.importInvoices, ${fmt(batch)} invoices per unit of work...`);
  const started = performance.now();
  for (let from = 0; from < invoices; from += batch) {
    const inputs = [];
    for (let i = from; i < Math.min(invoices, from + batch); i++) inputs.push(invoiceInput(i));
    await engine.receivables.importInvoices(inputs);
    const done = Math.min(invoices, from + batch);
    if (done % 100_000 === 0 || done === invoices) {
      const s = (performance.now() - started) / 1000;
      console.log(`  ${fmt(done)} invoices in ${s.toFixed(0)} s (${fmt(done / s)}/s), watermark ${fmt(engine.core.currentWatermark())}`);
    }
  }
  await engine.close();
  fs.writeFileSync(marker, wanted);
}

interface Drain {
  records: number;
  seconds: number;
  pages: number[];
}

/** The baseline: the same rows through the same index, straight from SQLite, parsed. */
function rawScan(): Drain {
  const db = new Database(path.join(dir, 'laneway.sqlite'), { readonly: true });
  const row = db.prepare("SELECT id, indexes_json, text_columns FROM laneway_rx_collections WHERE collection_name = 'invoices'").get() as { id: number; indexes_json: string; text_columns: string };
  // Every stored column of the document: the JSON and its text columns (the stored renderings).
  const texts = (JSON.parse(row.text_columns) as string[]).map((_, i) => `, t${i}`).join('');
  const indexes = JSON.parse(row.indexes_json) as string[][];
  const column = `i${indexes.findIndex((ix) => ix.join(',') === '_deleted,watermark,id')}`;
  const stmt = db.prepare(`SELECT ${column} AS k, data${texts} FROM rxc_${row.id} WHERE ${column} > ? ORDER BY ${column} LIMIT ${PAGE}`).raw();
  const pages: number[] = [];
  let records = 0;
  let after: Buffer = Buffer.alloc(0);
  const started = performance.now();
  for (;;) {
    const t = performance.now();
    const rows = stmt.all(after) as Array<[Buffer, string]>;
    for (const r of rows) JSON.parse(r[1]);
    pages.push(performance.now() - t);
    if (rows.length === 0) break;
    records += rows.length;
    after = rows[rows.length - 1]![0];
  }
  db.close();
  return { records, seconds: (performance.now() - started) / 1000, pages };
}

const startServer = (nodeFlags: string[], serveArgs: string[]) => startServe({ dir, token: TOKEN, key: KEY, nodeFlags, serveArgs });

/** User + system CPU seconds a process has used so far (this machine is shared: CPU time moves less with its load than wall time). */
function cpuOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

async function httpDrain(url: string, pid: number, feed: string): Promise<Drain & { peakRss: number; serverCpu: number }> {
  const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
  // node:http with keep-alive: fetch (undici) spends longer reading a 4 MB body than the server
  // takes to produce it, which would measure the client rather than the export.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (watermark: number) =>
    new Promise<string>((resolve, reject) => {
      http
        .get(`${url}${feed}?watermark=${watermark}&limit=${PAGE}&list=true`, { agent, headers: { Authorization: auth } }, (res) => {
          // Decoded as it arrives (Node's own example of reading a body): no 4 MB Buffer per page
          // to concatenate, copy and collect beside the string JSON.parse needs.
          res.setEncoding('utf8');
          let text = '';
          res.on('data', (c: string) => (text += c));
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`${feed}: ${res.statusCode} ${text.slice(0, 200)}`));
            else resolve(text);
          });
          res.on('error', reject);
        })
        .on('error', reject);
    });
  await get(0); // warm-up: first request compiles the route
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(pid).rss);
  }, 50);
  const pages: number[] = [];
  let records = 0;
  let watermark = 0;
  const started = performance.now();
  const cpuBefore = cpuOf(pid);
  for (;;) {
    const t = performance.now();
    const text = await get(watermark);
    pages.push(performance.now() - t);
    const page = (JSON.parse(text) as { invoices: Array<{ watermark: number }> }).invoices;
    if (page.length === 0) break;
    records += page.length;
    watermark = page[page.length - 1]!.watermark;
  }
  const seconds = (performance.now() - started) / 1000;
  const serverCpu = cpuOf(pid) - cpuBefore;
  clearInterval(sampler);
  agent.destroy();
  return { records, seconds, pages, peakRss: Math.max(peakRss, rssOf(pid).rss), serverCpu };
}

/**
 * The client drains from a process of its own, as a real one would: not the one that seeded a
 * million invoices or loaded the engine, whose heap made the client's collections (and so its
 * page times) several times longer. It is this script again, in --drain-client mode.
 */
function drainInOwnProcess(url: string, pid: number): Promise<Awaited<ReturnType<typeof httpDrain>>> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--drain-client', '--url', url, '--pid', String(pid), '--dir', dir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the draining client exited ${code}: ${out}`));
      else resolve(JSON.parse(out) as Awaited<ReturnType<typeof httpDrain>>);
    });
  });
}

/**
 * Steal: the share of this virtual machine's CPU time the host gave to others while `run` ran
 * (/proc/stat). On a shared host it comes and goes; when it is high, every figure of that run is
 * slower, the raw SQL baseline too.
 */
async function withSteal<T>(run: () => T | Promise<T>): Promise<T & { steal: number }> {
  const read = () => {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const n = fields.map(Number);
    return { steal: n[7] ?? 0, total: n.slice(0, 8).reduce((a, b) => a + b, 0) };
  };
  const before = read();
  const result = await run();
  const after = read();
  return { ...result, steal: (after.steal - before.steal) / Math.max(1, after.total - before.total) };
}

function report(name: string, d: Drain & { steal?: number }): string {
  const sorted = [...d.pages].sort((a, b) => a - b);
  return `${name.padEnd(44)} ${fmt(d.records).padStart(10)} ${d.seconds.toFixed(2).padStart(8)} s ${fmt(d.records / d.seconds).padStart(10)}/s   p50 ${pct(sorted, 50).toFixed(1).padStart(6)} ms   p99 ${pct(sorted, 99).toFixed(1).padStart(6)} ms${d.steal === undefined ? '' : `   steal ${(d.steal * 100).toFixed(0)}%`}`;
}

async function main(): Promise<void> {
  await seed();
  const sizeMb = fs.statSync(path.join(dir, 'laneway.sqlite')).size / 1e6;
  console.log(`\nData folder ${dir} (${sizeMb.toFixed(0)} MB). Machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, Node ${process.version}\n`);

  // The HTTP client drains first, on this process's fresh heap: parsing the raw scan's million
  // documents first left a heap whose collections showed up in the client's page times.
  const serveFlags = serveNodeFlags();
  // The server runs with Node's flags from `npm run serve` (package.json), unless BENCH_NODE_FLAGS
  // says otherwise ("none" for Node's defaults), so that flags can be compared in one run.
  const nodeFlags = process.env.BENCH_NODE_FLAGS
    ? process.env.BENCH_NODE_FLAGS.split(',').map((f) => (f.trim() === 'none' ? [] : f.trim().split(' ')))
    : [serveFlags];
  // The server as it runs (reading the next page ahead while the client takes in this one), then,
  // for the cost of a page read when it is asked for, with --no-read-ahead.
  const runs = [...nodeFlags.map((flags) => ({ flags, args: [] as string[] })), { flags: nodeFlags[0]!, args: ['--no-read-ahead'] }];
  const drains: Array<{ flags: string[]; args: string[]; d: Awaited<ReturnType<typeof httpDrain>> }> = [];
  for (const { flags, args } of runs) {
    const { child, url } = await startServer(flags, args);
    try {
      drains.push({ flags, args, d: await withSteal(() => drainInOwnProcess(url, child.pid!)) });
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
  const raw = await withSteal(rawScan);
  const results: string[] = [report('raw SQL scan (better-sqlite3 + JSON.parse)', raw)];
  let verdict = '';
  for (const { flags, args, d } of drains) {
    const label = `HTTP /api/exports/invoices${flags.length ? ` (node ${flags.join(' ')})` : ''}${args.length ? ` ${args.join(' ')}` : ''}`;
    results.push(`${report(label, d)}   serve RSS peak ${(d.peakRss / 1e6).toFixed(0)} MB, serve CPU ${((d.serverCpu * 1000) / d.pages.length).toFixed(1)} ms/page`);
    if (d === drains[0]!.d) {
      const sorted = [...d.pages].sort((a, b) => a - b);
      const rate = d.records / d.seconds;
      verdict = [
        `records/s ${fmt(rate)} (target >= 50,000): ${rate >= 50_000 ? 'met' : 'NOT met'}`,
        `page p99 ${pct(sorted, 99).toFixed(1)} ms (target < 50 ms): ${pct(sorted, 99) < 50 ? 'met' : 'NOT met'}`,
        `serve RSS peak ${(d.peakRss / 1e6).toFixed(0)} MB (target < 500 MB): ${d.peakRss < 500e6 ? 'met' : 'NOT met'}`,
        `HTTP vs raw SQL: ${((d.records / d.seconds / (raw.records / raw.seconds)) * 100).toFixed(0)}% of the raw scan's rate`,
      ].join('\n');
    }
    if (d.records !== raw.records) throw new Error(`HTTP drained ${d.records} invoices, SQL has ${raw.records}`);
  }
  console.log(`${'run'.padEnd(44)} ${'records'.padStart(10)} ${'time'.padStart(10)} ${'rate'.padStart(12)}`);
  for (const line of results) console.log(line);
  console.log(`\n${verdict}`);
  console.log('Steal: CPU time the virtual machine\'s host gave to others during that run (/proc/stat); above a few % every figure of the run suffers, the raw baseline too.');
  console.log('Page time: request sent to the whole body received; records/s includes the client parsing every page. Limit 2500, list=true, one keep-alive connection.');
  console.log(`Server started as \`npm run serve\` starts it (node ${serveFlags.join(' ') || 'defaults'}); BENCH_NODE_FLAGS="none,--max-semi-space-size=64" compares others.`);
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
}

const run = process.argv.includes('--drain-client')
  ? async () => process.stdout.write(JSON.stringify(await httpDrain(strArg('url')!, Number(strArg('pid')), '/api/exports/invoices')))
  : main;
run().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
