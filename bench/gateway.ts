import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { createEngine, storeLayouts } from '../src/engine';
import { createLogger } from '../src/engine/logger';
import { openDataStore } from '../src/store';
import { serveNodeFlags } from './serve-flags';

async function engineOnly(total: number, inFlight: number): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'laneway-bench-engine-'));
  const store = await openDataStore({ directory: folder, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({}), timezone: 'UTC' });
  try {
    const w = await engine.wallets.create({ credit_card: { name: 'Bench', expiry_month: '12', expiry_year: 2040, card_number: '4895281000000006', cvv: '123', address: { postal_code: '90210' } } });
    let started = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (started < total) {
          const n = ++started;
          await engine.gateway.transact('sale', { amount_cents: 1000, currency: 'USD', order: { identifier: `E-${n}`, number: `N${n}`, amount_cents: 1000 }, fund_token: w.fund_token!, transaction_reference: `ref-${n}` }, 'bench');
        }
      }),
    );
    return (total / (performance.now() - t0)) * 1000;
  } finally {
    await engine.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Sustained sales per second over loopback HTTP, beside a no-op route's rate measured in the same
 * run (the ceiling of the HTTP stack on this machine). The server runs in its own process with the
 * rate limit raised; autocannon drives it from this one.
 *
 *   npx tsx bench/gateway.ts [--duration 10] [--connections 16,32]
 *
 * Target: >= 1,000 sales/s with p99 < 50 ms on 2 cores. By Little's law the mean latency is
 * connections / rate, so each concurrency level is measured with its own no-op ceiling.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg('duration', 10);
const levelsArg = process.argv.indexOf('--connections');
const levels = (levelsArg > 0 ? process.argv[levelsArg + 1]! : '16,32').split(',').map(Number);

const here = dirname(fileURLToPath(import.meta.url));
// The server gets Node's flags from `npm run serve`, or BENCH_NODE_FLAGS (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof") instead.
const serverFlags = process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : serveNodeFlags();
const child = spawn(process.execPath, [...serverFlags, '--import', 'tsx', join(here, 'gateway-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
/** The server's user + system CPU seconds so far: on a shared machine CPU per request moves less with its load than rates do. */
const serverCpu = () => {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const lines = createInterface({ input: child.stdout! });
const nextLine = () =>
  new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
const first = await nextLine();
const { url, token, key, dir } = JSON.parse(first) as { url: string; token: string; key: string; dir: string };
const headers = { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}` };

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}

try {
  const wallet = await post('/api/gateway/v1/wallets', {
    customer: { identifier: 'BENCH', name: 'Bench' },
    credit_card: { name: 'Bench Card', expiry_month: '12', expiry_year: 2040, card_number: '4895281000000006', cvv: '123', address: { address_1: '1 Main St', postal_code: '90210', country: 'US' } },
  });
  const fund = wallet.fund_token as string;
  if (!fund) throw new Error(`could not create the bench wallet: ${JSON.stringify(wallet)}`);

  let n = 0;
  // What an ERP or web shop sends: a new order per sale, a stored card, its own reference.
  const saleBody = () => {
    n += 1;
    return JSON.stringify({
      amount_cents: 1000 + (n % 90) * 10,
      currency: 'USD',
      order: { identifier: `B-${process.pid}-${n}`, number: `N${n}`, amount_cents: 1000, currency: 'USD', billing_name: 'Bench Co', draft: false },
      fund_token: fund,
      transaction_reference: `ref-${n}`,
    });
  };

  const sales = { method: 'POST', headers, setupRequest: (req: object) => ({ ...req, body: saleBody() }) };
  // Warm-up (JIT, SQLite page cache), not reported.
  await autocannon({ url: `${url}/api/gateway/v1/orders/sale`, connections: 16, duration: 3, requests: [sales] });

  const results: Array<{ title: string; connections: number; r: Result; cpuMs: number }> = [];
  const measured = async (title: string, connections: number, run: () => Promise<Result>) => {
    const cpu = serverCpu();
    const r = await run();
    results.push({ title, connections, r, cpuMs: ((serverCpu() - cpu) * 1000) / Math.max(1, r.requests.total) });
  };
  for (const connections of levels) {
    await measured('no-op route (ceiling)', connections, () =>
      autocannon({ url: `${url}/api/bench/noop`, connections, duration, method: 'POST', headers, body: JSON.stringify({ amount_cents: 1000 }) }),
    );
    await measured('sale (fund token, new order)', connections, () => autocannon({ url: `${url}/api/gateway/v1/orders/sale`, connections, duration, requests: [sales] }));
  }

  console.log(`\nbench/gateway: ${duration} s per run, server in its own process (synchronous=FULL SQLite), load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores\n`);
  console.log('| run | connections | req/s | p50 ms | p99 ms | non-2xx | errors | server CPU ms/req |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const { title, connections, r, cpuMs } of results) {
    console.log(`| ${title} | ${connections} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r.errors} | ${cpuMs.toFixed(3)} |`);
  }
  // The engine alone (no HTTP): the same sales through engine.gateway.transact, 32 in flight.
  const engineRate = await engineOnly(4000, 32);
  console.log(`| engine only, no HTTP (same sale) | 32 in flight | ${engineRate.toFixed(0)} | | | | | |`);
  const met = results.filter((x) => x.title.startsWith('sale') && x.r.requests.average >= 1000 && x.r.latency.p99 < 50 && x.r.non2xx === 0);
  console.log(`\ntarget (>= 1000 sales/s, p99 < 50 ms, no failures): ${met.length ? `met at ${met.map((m) => m.connections).join(', ')} connections` : 'NOT met'}`);
} finally {
  const stats = nextLine().catch(() => '');
  child.kill('SIGTERM');
  const line = await stats;
  await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
  if (line) {
    const { units, requests } = JSON.parse(line) as { units: number; requests: number };
    console.log(`group commit: ${requests} gateway requests in ${units} units of work (${(requests / Math.max(1, units)).toFixed(1)} per commit)`);
  }
  rmSync(dir, { recursive: true, force: true });
}
