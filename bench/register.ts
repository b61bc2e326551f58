import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, storeLayouts, type Engine } from '../src/engine';
import { createLogger } from '../src/engine/logger';
import { openDataStore } from '../src/store';

/**
 * The register at the counter, through the engine (what every screen call ends in):
 *   - a scan: adding a line to a sale of n lines (the sale and its draft order are rewritten with
 *     each line), beside the order write alone (orders.update with the same n items);
 *   - a whole sale: start, three scans, cash with change; beside three order updates and a create.
 *
 *   npx tsx bench/register.ts [--sales 300] [--lines 40]
 *
 * Target: a scan answers well under 50 ms at p99 on a 40-line sale (a scanner's pace is about
 * 3 scans a second), and a lane is never waiting on the engine between customers.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SALES = arg('sales', 300);
const LINES = arg('lines', 40);

async function open(): Promise<{ engine: Engine; shift: string; close(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'laneway-bench-register-'));
  const store = await openDataStore({ directory: folder, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({}), timezone: 'UTC', firstToken: 'BENCHTOKEN01', firstKey: 'bench-key-0123456789' });
  await engine.lanes.create({ laneid: '1', port_path: '/dev/ttyLANEWAYBENCH' });
  const shift = await engine.register.signIn('1', engine.register.firstCashier!.code);
  return {
    engine,
    shift: shift.id,
    async close() {
      await engine.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const CODES = ['1001', '1002', '2001', '3001', '4003', '5002'];

async function scans(): Promise<void> {
  const { engine, shift, close } = await open();
  try {
    const register: number[] = [];
    const orderOnly: number[] = [];
    // Warm up.
    const warm = (await engine.register.startSale({ shift, line: { scan: '1001' } })).sale;
    await engine.register.voidSale(warm.id, { shift }, null);
    const sale = (await engine.register.startSale({ shift })).sale;
    const items: Array<Record<string, unknown>> = [];
    await engine.orders.create({ identifier: 'BENCH-ORDER', draft: true, currency: 'usd', amount_cents: 0, order_items: [] });
    for (let i = 0; i < LINES; i++) {
      // Distinct open-price items, so each scan is a new line (no merging).
      let t = performance.now();
      await engine.register.addLine(sale.id, { shift, open: { description: `Item ${i}`, unit_price_cents: 100 + i, tax_rate: 13 } });
      register.push(performance.now() - t);
      items.push({ number: String(i + 1), description: `Item ${i}`, quantity: 1, unit_cost_cents: 100 + i, amount_cents: 100 + i, tax_amount_cents: 13, discount_amount_cents: 0, product_code: null, category: null, attributes: { tax_rate: '13' } });
      t = performance.now();
      await engine.orders.update({ identifier: 'BENCH-ORDER', order_items: items, amount_cents: 100 * (i + 1) });
      orderOnly.push(performance.now() - t);
    }
    const r = [...register].sort((a, b) => a - b);
    const o = [...orderOnly].sort((a, b) => a - b);
    const lastTen = (xs: number[]) => xs.slice(-10).reduce((s, x) => s + x, 0) / 10;
    console.log(`scan (add a line), ${LINES} lines: p50 ${fmt(pct(r, 50))}  p99 ${fmt(pct(r, 99))}  mean of lines ${LINES - 9}..${LINES} ${fmt(lastTen(register))}`);
    console.log(`  baseline, the order write alone: p50 ${fmt(pct(o, 50))}  p99 ${fmt(pct(o, 99))}  mean of the last ten ${fmt(lastTen(orderOnly))}`);
  } finally {
    await close();
  }
}

async function wholeSales(): Promise<void> {
  const { engine, shift, close } = await open();
  try {
    const runSale = async () => {
      const sale = (await engine.register.startSale({ shift, line: { scan: CODES[0]! } })).sale;
      await engine.register.addLine(sale.id, { shift, scan: CODES[2]! });
      await engine.register.addLine(sale.id, { shift, scan: CODES[4]! });
      await engine.register.tender(sale.id, { shift, type: 'cash', tendered_cents: 5000 }, 'bench');
    };
    await runSale();
    const per: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < SALES; i++) {
      const t = performance.now();
      await runSale();
      per.push(performance.now() - t);
    }
    const rate = (SALES / (performance.now() - t0)) * 1000;

    let n = 0;
    const orderSale = async () => {
      const id = `B-${++n}`;
      const item = (k: number) => ({ number: String(k), description: 'x', quantity: 1, unit_cost_cents: 245, amount_cents: 245, tax_amount_cents: 12 });
      await engine.orders.create({ identifier: id, draft: true, currency: 'usd', order_items: [item(1)] });
      await engine.orders.update({ identifier: id, order_items: [item(1), item(2)] });
      await engine.orders.update({ identifier: id, order_items: [item(1), item(2), item(3)] });
      await engine.orders.update({ identifier: id, draft: false, amount_cents: 771 });
    };
    await orderSale();
    const b0 = performance.now();
    for (let i = 0; i < SALES; i++) await orderSale();
    const baseline = (SALES / (performance.now() - b0)) * 1000;
    const s = per.sort((a, b) => a - b);
    console.log(`whole sale (start, 3 scans, cash): ${rate.toFixed(0)} sales/s, p50 ${fmt(pct(s, 50))}, p99 ${fmt(pct(s, 99))} (${SALES} sales, one lane)`);
    console.log(`  baseline, the same four order writes alone: ${baseline.toFixed(0)} sales/s`);
  } finally {
    await close();
  }
}

console.log(`bench/register on ${cpus().length} CPU(s), Node ${process.version}`);
await scans();
await wholeSales();
