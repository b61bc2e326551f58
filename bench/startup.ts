/**
 * Start-up benchmark: time from starting `serve` until it first answers an authenticated request
 * (GET /api/whoami), and the server's RSS then, on a new (empty) data folder and on a folder of N
 * invoices, beside a bare Node HTTP server started and asked the same way in the same run.
 *
 *   npm run bench:startup                               # 1,000,000 invoices (seeding takes a while)
 *   npm run bench:startup -- --invoices 100000          # quick
 *   npm run bench:startup -- --dir /tmp/lw-start --keep # keep (and reuse) the seeded folder
 *   npm run bench:startup -- --runs 7
 *
 * Each figure is the median of --runs starts (default 5), min and max beside it. "node" starts
 * the built serve the way `npm run serve` execs it; "npm run serve" adds npm's own start-up.
 * Targets: under 1 s on an empty folder, under 1.5 s with 1M invoices.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveNodeFlags } from './serve-flags';
import { arg, strArg } from './args';

const TOKEN = 'BENCHTOKEN01';
const KEY = 'bench-key-0123456789';


const invoices = arg('invoices', 1_000_000);
const customers = arg('customers', Math.max(1, Math.round(invoices / 10)));
const runs = arg('runs', 5);
const keep = process.argv.includes('--keep');
const seededDir = strArg('dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'laneway-startup-'));
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'laneway-startup-empty-'));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function seed(): Promise<void> {
  const marker = path.join(seededDir, 'bench-seed.json');
  const wanted = JSON.stringify({ invoices, customers });
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === wanted) {
    console.log(`Reusing the seeded folder ${seededDir}`);
    return;
  }
  fs.rmSync(seededDir, { recursive: true, force: true });
  fs.mkdirSync(seededDir, { recursive: true });
  const [{ openDataStore }, { createEngine, storeLayouts }, { createLogger }] = await Promise.all([import('../src/store'), import('../src/engine'), import('../src/engine/logger')]);
  const store = await openDataStore({ directory: seededDir, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({ directory: path.join(seededDir, 'logs'), level: 'warn' }), firstToken: TOKEN, firstKey: KEY, timezone: 'UTC' });
  console.log(`Seeding ${fmt(invoices)} invoices for ${fmt(customers)} customers (receivables.importInvoices, 2,000 a unit of work)...`);
  const started = performance.now();
  for (let from = 0; from < invoices; from += 2000) {
    const inputs = [];
    for (let i = from; i < Math.min(invoices, from + 2000); i++) {
      const c = Math.floor((i * customers) / invoices);
      const day = 1 + (i % 28);
      inputs.push({
        number: `INV${String(i).padStart(8, '0')}`,
        customer_identifier: `CUST${String(c).padStart(7, '0')}`,
        customer_name: `Customer ${c}`,
        date: `2026-02-${String(day).padStart(2, '0')}`,
        due_date: `2026-03-${String(day).padStart(2, '0')}`,
        line_item_attributes: [{ number: '1', description: 'Widgets, boxed', quantity: 4, unit_cost_cents: 1250 }],
      });
    }
    await engine.receivables.importInvoices(inputs);
    const done = Math.min(invoices, from + 2000);
    if (done % 100_000 === 0 || done === invoices) console.log(`  ${fmt(done)} invoices in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await engine.close();
  fs.writeFileSync(marker, wanted);
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

/** Starts a program, waits for the URL it prints, asks it once; the time from spawn to the answer. */
async function startOnce(command: string, args: string[], path_: string): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: root, env: { ...process.env, LANEWAY_API_TOKEN: TOKEN, LANEWAY_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const onData = (c: Buffer) => {
        out += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1]!);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${command} exited (${code}): ${out}`)));
    });
    const status = await get(url + path_);
    const ms = performance.now() - t0;
    if (status !== 200) throw new Error(`${url}${path_} answered ${status}`);
    // With npm the server is npm's child (the script execs node); RSS is the server's own.
    const children = fs.existsSync(`/proc/${child.pid}/task/${child.pid}/children`) ? fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim() : '';
    const rss = command === 'npm' ? rssOf(Number(children.split(' ')[0])) : rssOf(child.pid!);
    return { ms, rss };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone
    }
    await exited;
  }
}

async function measure(name: string, once: (i: number) => Promise<{ ms: number; rss: number }>): Promise<{ name: string; median: number; min: number; max: number; rss: number }> {
  await once(-1); // warm the file cache: every figure is a warm start
  const all: Array<{ ms: number; rss: number }> = [];
  for (let i = 0; i < runs; i++) all.push(await once(i));
  const ms = all.map((a) => a.ms).sort((a, b) => a - b);
  const rss = all.map((a) => a.rss).sort((a, b) => a - b);
  return { name, median: ms[Math.floor(ms.length / 2)]!, min: ms[0]!, max: ms[ms.length - 1]!, rss: rss[Math.floor(rss.length / 2)]! };
}

async function main(): Promise<void> {
  const { isFresh, buildCli } = (await import(path.join(root, 'scripts', 'cli-build.mjs'))) as { isFresh(): boolean; buildCli(): Promise<void> };
  if (!isFresh()) {
    console.log('Building serve (scripts/cli-build.mjs) first: the figures are for the built program.');
    await buildCli();
  }
  await seed();
  const flags = serveNodeFlags();
  const serve = path.join(root, 'scripts', 'cli.mjs');
  const fresh = (i: number) => path.join(scratch, `empty-${i + 1}`);
  const bare = `require('http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port) })`;

  const results = [
    await measure('bare Node http server (baseline)', () => startOnce(process.execPath, ['-e', bare], '/')),
    await measure('serve, new empty folder (node)', (i) => startOnce(process.execPath, [...flags, serve, 'serve', '--data-dir', fresh(i), '--port', '0'], '/api/whoami')),
    await measure('serve, new empty folder (npm run serve)', (i) => startOnce('npm', ['run', '--silent', 'serve', '--', '--data-dir', `${fresh(i)}-npm`, '--port', '0'], '/api/whoami')),
    await measure(`serve, ${fmt(invoices)} invoices (node)`, () => startOnce(process.execPath, [...flags, serve, 'serve', '--data-dir', seededDir, '--port', '0'], '/api/whoami')),
    await measure(`serve, ${fmt(invoices)} invoices (npm run serve)`, () => startOnce('npm', ['run', '--silent', 'serve', '--', '--data-dir', seededDir, '--port', '0'], '/api/whoami')),
  ];
  console.log(`\nTime from start to the first answer (median of ${runs}; min-max), and the server's RSS then:`);
  for (const r of results) console.log(`  ${r.name.padEnd(44)} ${fmt(r.median).padStart(6)} ms  (${fmt(r.min)}-${fmt(r.max)})   RSS ${(r.rss / 1048576).toFixed(0)} MB`);
  const empty = results[1]!.median;
  const full = results[3]!.median;
  console.log(`\nTargets: empty folder < 1,000 ms: ${fmt(empty)} ms ${empty < 1000 ? 'met' : 'NOT met'}; ${fmt(invoices)} invoices < 1,500 ms: ${fmt(full)} ms ${full < 1500 ? 'met' : 'NOT met'}${invoices < 1_000_000 ? ' (the target is for 1,000,000)' : ''}`);
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
    if (!keep && !strArg('dir')) fs.rmSync(seededDir, { recursive: true, force: true });
  });
