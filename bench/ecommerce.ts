import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { rmSync } from 'node:fs';
import { arg } from './args';
import { serveNodeFlags } from './serve-flags';

/**
 * Ecommerce round trips per second over loopback HTTP: what a shop does for one checkout (create a
 * session, the frame's token, the sale with its payment on the session), beside the plain gateway
 * sale rate (one POST /api/gateway/v1/orders/sale with a vaulted card) measured in the same run on
 * the same server process (bench/gateway-server.ts: a fresh install, rate limit raised).
 *
 *   npm run bench:ecommerce -- [--seconds 10] [--concurrency 8]
 *
 * A round trip is three requests and four units of work (session; token with its vaulting; order
 * and sale record; the gateway transaction and the payment's record): the plain sale is one request
 * and one unit.
 */
const seconds = arg('seconds', 10);
const concurrency = arg('concurrency', 8);

const here = dirname(fileURLToPath(import.meta.url));
const child = spawn(process.execPath, [...serveNodeFlags(), '--import', 'tsx', join(here, 'gateway-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const lines = createInterface({ input: child.stdout! });
const first = await new Promise<string>((resolve, reject) => {
  lines.once('line', resolve);
  child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
});
const { url, token, key, dir } = JSON.parse(first) as { url: string; token: string; key: string; dir: string };
const gatewayAuthorization = { apiToken: token, apiKey: key };
const basic = `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;

async function call(method: string, path: string, body: unknown, auth = true): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...(auth ? { authorization: basic } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function expectStatus(r: { status: number; body: unknown }, status: number, what: string) {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Runs `work` from `concurrency` loops for `seconds`; returns completions per second and mean ms. */
async function measure(work: (n: number) => Promise<void>): Promise<{ rate: number; meanMs: number; count: number }> {
  let n = 0;
  let total = 0;
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        await work(++n);
        total += performance.now() - started;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const count = n;
  return { rate: count / elapsed, meanMs: total / count, count };
}

const sale = (orderNumber: string, payment: unknown) => ({
  gatewayAuthorization,
  orderNumber,
  currency: 'USD',
  billingAddress: { address1: '1 Main Street', city: 'Springfield', postCode: '55555', country: 'US' },
  shippingAddress: { address1: '1 Main Street', city: 'Springfield', postCode: '55555', country: 'US' },
  lines: [{ number: 'W1', description: 'Widget', price: 10, quantity: 1 }],
  payment,
});

try {
  const wallet = await call('POST', '/api/gateway/v1/wallets', { credit_card: { name: 'Bench', expiry_month: '12', expiry_year: 2040, card_number: '4895281000000006', cvv: '123', address: { postal_code: '55555' } } });
  const fund = String(wallet.body.fund_token);
  const plain = await measure(async (n) => {
    const r = await call('POST', '/api/gateway/v1/orders/sale', { amount_cents: 1000, currency: 'USD', order: { identifier: `P-${n}`, number: `P${n}`, amount_cents: 1000 }, fund_token: fund, transaction_reference: `ref-${n}` });
    expectStatus(r, 200, 'gateway sale');
  });
  const ecommerce = await measure(async (n) => {
    const session = await call('POST', '/api/v2/sessions', { gatewayAuthorization, options: {} }, false);
    expectStatus(session, 201, 'session');
    const id = String(session.body.id);
    const tok = await call('POST', `/api/v2/sessions/${id}/tokens`, { type: 'creditCard', accountHolder: 'Bench', accountNumber: '4895281000000006', expirationMonth: 12, expirationYear: 2040, cardVerificationValue: '123' }, false);
    expectStatus(tok, 201, 'token');
    const s = await call('POST', `/api/v2/sessions/${id}/sales`, sale(`E${n}`, { type: 'creditCard', token: tok.body.token, amount: 10, capture: true }), false);
    expectStatus(s, 201, 'sale');
  });
  const row = (name: string, r: { rate: number; meanMs: number; count: number }, unit: string) =>
    console.log(`${name.padEnd(44)} ${r.rate.toFixed(1).padStart(8)} ${unit}/s   mean ${r.meanMs.toFixed(1).padStart(6)} ms   (${r.count} in ${seconds} s, ${concurrency} in flight)`);
  console.log(`bench:ecommerce on ${url}`);
  row('plain gateway sale (baseline)', plain, 'sales');
  row('ecommerce session + token + sale round trip', ecommerce, 'trips');
  console.log(`ratio: ${(ecommerce.rate / plain.rate).toFixed(2)} round trips per plain sale (each round trip is 3 requests)`);
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
