/**
 * Back-office list benchmark, over loopback HTTP against a separate `serve` process: the first page
 * of filtered invoice lists (GET /api/backoffice/invoices) and an invoice looked up by number
 * (GET /api/exports/invoice/{number}, and the search box's GET /api/backoffice/search), beside
 * baselines measured in the same run (GET /api/whoami and GET /api/status: authentication,
 * routing and a small JSON answer, no list read). On a shared machine the baselines' p99 says how
 * much of a figure's tail is the machine, not the query.
 *
 *   npx tsx bench/backoffice.ts                                  # 100,000 invoices, 10,000 customers (about 2 minutes here)
 *   npx tsx bench/backoffice.ts --invoices 1000000 --customers 100000 --dir /tmp/lw-bo --keep
 *   ... --profile /tmp/lw-prof                                   # the server's CPU profile (node --cpu-prof), written when it stops
 *
 * The data is seeded through the engine in the same process (importInvoices, 2,000 a unit), not
 * over HTTP; with --dir and --keep the seeded folder is reused by the next run with the same sizes.
 *
 * Targets (issue 19, stated for 1M invoices and 100k customers): first page of a filtered list
 * under 100 ms p99; invoice lookup by number under 20 ms p99. Requests are sent one at a time, as a
 * person paging through the screens does.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, strArg } from './args';
import { startServe } from './serve-flags';

const TOKEN = 'BENCHTOKEN01';
const KEY = 'bench-key-0123456789';
const invoices = arg('invoices', 100_000);
const customers = arg('customers', 10_000);
const rounds = arg('rounds', 200);
const batch = 2000;
const keep = process.argv.includes('--keep');
/** `--profile DIR`: the server writes a CPU profile there (node --cpu-prof) when it stops. */
const profile = strArg('profile');
const dir = strArg('dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'laneway-bench-bo-'));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Dates spread over 2025-2027 (so some are overdue, some not), amounts from $10 to $5,000, four divisions. */
function invoiceInput(i: number) {
  const c = Math.floor((i * customers) / invoices);
  const month = 1 + (i % 12);
  const year = 2025 + (i % 3);
  const d = `${year}-${String(month).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
  return {
    number: `INV${String(i).padStart(8, '0')}`,
    customer_identifier: `CUST${String(c).padStart(7, '0')}`,
    customer_name: `Customer ${c}`,
    date: d,
    due_date: d,
    amount: 1000 + ((i * 7919) % 499_000),
  };
}

async function seed(): Promise<void> {
  const marker = path.join(dir, 'bench-seed.json');
  const wanted = JSON.stringify({ invoices, customers, kind: 'backoffice' });
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === wanted) return void console.log(`Reusing the seeded folder ${dir}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const [{ openDataStore }, { createEngine, storeLayouts }, { createLogger }] = await Promise.all([import('../src/store'), import('../src/engine'), import('../src/engine/logger')]);
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({ directory: path.join(dir, 'logs'), level: 'warn' }), firstToken: TOKEN, firstKey: KEY, timezone: 'UTC' });
  const started = performance.now();
  for (let from = 0; from < invoices; from += batch) {
    const inputs = [];
    for (let i = from; i < Math.min(invoices, from + batch); i++) inputs.push(invoiceInput(i));
    await engine.receivables.importInvoices(inputs);
  }
  console.log(`Seeded ${fmt(invoices)} invoices for ${fmt(customers)} customers in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  await engine.close();
  fs.writeFileSync(marker, wanted);
}

const startServer = () => startServe({ dir, token: TOKEN, key: KEY, nodeFlags: profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profile)] : [] });

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;

function get(url: string): Promise<{ ms: number; status: number; body: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { Authorization: auth } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

async function measure(label: string, paths: (i: number) => string, url: string): Promise<number> {
  const times: number[] = [];
  let rows = 0;
  let scanned = 0;
  for (let i = 0; i < 5; i++) await get(`${url}${paths(i)}`);
  for (let i = 0; i < rounds; i++) {
    const r = await get(`${url}${paths(i)}`);
    if (r.status !== 200) throw new Error(`${label}: ${r.status} ${r.body.slice(0, 200)}`);
    times.push(r.ms);
    const parsed = JSON.parse(r.body) as { items?: unknown[]; scanned?: number };
    rows += parsed.items?.length ?? 1;
    scanned += parsed.scanned ?? 0;
  }
  times.sort((a, b) => a - b);
  const extra = scanned ? `, ${fmt(rows / rounds)} rows from ${fmt(scanned / rounds)} read` : '';
  console.log(`  ${label.padEnd(58)} p50 ${pct(times, 50).toFixed(1).padStart(6)} ms  p99 ${pct(times, 99).toFixed(1).padStart(6)} ms${extra}`);
  return pct(times, 99);
}

async function main(): Promise<void> {
  await seed();
  const { child, url } = await startServer();
  try {
    const n = (i: number) => `INV${String((i * 104_729) % invoices).padStart(8, '0')}`;
    const customer = (i: number) => `CUST${String((i * 7_919) % customers).padStart(7, '0')}`;
    console.log(`Back office over HTTP, ${fmt(invoices)} invoices, ${fmt(customers)} customers, ${rounds} requests each, one at a time:`);
    // Baselines: the same authentication, routing and JSON answer with no list read, so a
    // figure below reads as (baseline + the query's own cost) on this machine, as loaded now.
    const base = await measure('baseline: GET /api/whoami', () => '/api/whoami', url);
    await measure('baseline: GET /api/status', () => '/api/status', url);
    const lists = [
      await measure('invoices, first page, no filter', () => '/api/backoffice/invoices?limit=50', url),
      await measure('invoices, first page, status=overdue', () => '/api/backoffice/invoices?status=overdue&limit=50', url),
      await measure('invoices, first page, status=closed (two feeds)', () => '/api/backoffice/invoices?status=closed&limit=50', url),
      await measure('invoices, first page, open, $1,000 to $2,000', () => '/api/backoffice/invoices?status=open&amount_min=100000&amount_max=200000&limit=50', url),
      await measure('invoices, first page, dated 2027-03', () => '/api/backoffice/invoices?date_from=2027-03-01&date_to=2027-03-31&limit=50', url),
      await measure('invoices, first page, one customer', (i) => `/api/backoffice/invoices?customer=${customer(i)}&limit=50`, url),
      await measure('customers, first page, identifier prefix', (i) => `/api/backoffice/customers?q=${customer(i).slice(0, 8)}&limit=50`, url),
    ];
    // The balance index is checked once per data folder on the first sorted request (ranks older than it).
    const firstSorted = await get(`${url}/api/backoffice/customers?sort=balance&limit=50`);
    console.log(`  ${'customers by balance: the first request (index checked once)'.padEnd(58)} ${firstSorted.ms.toFixed(1).padStart(6)} ms`);
    const cursors = [(JSON.parse(firstSorted.body) as { next: string | null }).next];
    for (let k = 1; k < 10 && cursors[k - 1]; k++) cursors.push((JSON.parse((await get(`${url}/api/backoffice/customers?sort=balance&limit=50&after=${encodeURIComponent(cursors[k - 1]!)}`)).body) as { next: string | null }).next);
    lists.push(await measure('customers by balance (largest first), first page', () => '/api/backoffice/customers?sort=balance&limit=50', url));
    const later = cursors.filter((c): c is string => !!c);
    if (later.length) lists.push(await measure('customers by balance, pages 2 to 10 (cursor)', (i) => `/api/backoffice/customers?sort=balance&limit=50&after=${encodeURIComponent(later[i % later.length]!)}`, url));
    const lookups = [
      await measure('invoice by number: GET /api/exports/invoice/{number}', (i) => `/api/exports/invoice/${n(i)}`, url),
      await measure('invoice by number: the search box', (i) => `/api/backoffice/search?q=${n(i)}`, url),
    ];
    const line = (what: string, p99: number, target: number) =>
      console.log(`  ${what.padEnd(40)} worst p99 ${p99.toFixed(1).padStart(6)} ms (target ${target} ms; baseline whoami p99 ${base.toFixed(1)} ms in this run)`);
    console.log('Against the targets:');
    line('first page of a filtered list', Math.max(...lists), 100);
    line('invoice lookup by number', Math.max(...lookups), 20);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    agent.destroy();
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
