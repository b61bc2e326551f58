import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import autocannon, { type Result } from 'autocannon';

/**
 * Sustained sales per second over loopback HTTP, beside a no-op route's rate measured in the same
 * run (the ceiling of the HTTP stack on this machine). The server runs in its own process with the
 * rate limit raised; autocannon drives it from this one.
 *
 *   npx tsx bench/gateway.ts [--duration 15] [--connections 32]
 *
 * Target: >= 1,000 sales/s with p99 < 50 ms on 2 cores.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const duration = arg('duration', 15);
const connections = arg('connections', 32);

const here = dirname(fileURLToPath(import.meta.url));
const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'gateway-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const first = await new Promise<string>((resolve, reject) => {
  const rl = createInterface({ input: child.stdout! });
  rl.once('line', resolve);
  child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
});
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

  const run = (title: string, options: Parameters<typeof autocannon>[0]) =>
    autocannon({ connections, duration, ...options }).then((r) => ({ title, r }));

  // Warm-up (JIT, SQLite page cache), not reported.
  await autocannon({ url: `${url}/api/gateway/v1/orders/sale`, connections, duration: 3, requests: [{ method: 'POST', headers, setupRequest: (req) => ({ ...req, body: saleBody() }) }] });

  const results: Array<{ title: string; r: Result }> = [];
  results.push(await run('no-op route (ceiling)', { url: `${url}/api/bench/noop`, method: 'POST', headers, body: JSON.stringify({ amount_cents: 1000 }) }));
  results.push(await run('sale (fund token, new order)', { url: `${url}/api/gateway/v1/orders/sale`, requests: [{ method: 'POST', headers, setupRequest: (req) => ({ ...req, body: saleBody() }) }] }));

  console.log(`\nbench/gateway: ${connections} connections, ${duration} s each, server in its own process (synchronous=FULL SQLite)\n`);
  console.log('| run | req/s | p50 ms | p99 ms | non-2xx | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const { title, r } of results) {
    console.log(`| ${title} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r.errors} |`);
  }
  const sale = results[1]!.r;
  const ok = sale.requests.average >= 1000 && sale.latency.p99 < 50 && sale.non2xx === 0;
  console.log(`\ntarget (>= 1000 sales/s, p99 < 50 ms, no failures): ${ok ? 'met' : 'NOT met'}`);
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
