/**
 * Settlement reporting benchmark: a month of card transactions (default 60,000, scaled down from the 1,000,000 to stay under two minutes here; `--transactions
 * 1_000_000` for the full month, which takes several minutes on this shared machine), then
 *   - close the month: move the sandbox clock from the 1st to the next month, which closes every
 *     processing day's batch at its cut-off (rewriting each transaction once) and makes the statement;
 *   - the statement as JSON (read + serialise) and as PDF (pdfkit);
 * beside a raw SQL aggregate of the same sums (better-sqlite3, json_extract over the stored
 * transactions) in the same run. The figures must agree to the cent; the run fails if they do not.
 *
 *   npm run bench:settlement -- --transactions 200000
 */
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { createEngine, ManualClock, storeLayouts } from '../src/engine';
import { createLogger } from '../src/engine/logger';
import { openDataStore } from '../src/store';
import { putTx } from '../src/engine/gateway/transaction-store';
import type { TxData } from '../src/engine/gateway';
import { renderStatementPdf } from '../src/engine/settlement-reporting/pdf';
import { arg } from './args';

const N = arg('transactions', 60_000);
const CHUNK = 5000;
const BRANDS = ['visa', 'master', 'american_express', 'discover'];
const ms = (t: number) => `${(performance.now() - t).toFixed(0).padStart(7)} ms`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'lw-settlement-bench-'));
  const clock = new ManualClock('2026-03-01T00:30:00Z');
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  const engine = await createEngine({ store, clock, logger: createLogger({ directory: path.join(dir, 'logs'), level: 'warn' }), timezone: 'UTC' });
  try {
    // One real sale gives a transaction as the gateway records it; the month is made of copies of it
    // (written straight through the engine's unit of work: the gateway's own path is bench:gateway's).
    const first = await engine.gateway.transact('sale', { amount_cents: 1000, credit_card: { name: 'Bench Card', card_number: '4895281000000006', expiry_month: '12', expiry_year: 2030, cvv: '123', address: { address_1: '1 Main', city: 'Ottawa', province: 'ON', postal_code: 'K1A0A9', country: 'CA' } } } as never, null);
    const template = (await engine.gateway.record(first.body.transaction as string))!;
    const t0 = performance.now();
    let seq = 0;
    for (let done = 0; done < N; done += CHUNK) {
      await engine.core.mutate(async (tx) => {
        for (let i = done; i < Math.min(N, done + CHUNK); i++) {
          const day = 1 + (i % 31);
          const date = `2026-03-${String(day).padStart(2, '0')}`;
          const cutoff = Date.parse(`${date}T23:00:00Z`);
          const refund = i % 10 === 9;
          const token = `B${String(++seq).padStart(15, '0')}`;
          const t: TxData = {
            ...template,
            token,
            action: refund ? 'refund' : 'sale',
            amount_cents: 500 + ((i * 7919) % 20000),
            card: template.card ? { ...template.card, brand: BRANDS[i % BRANDS.length]! } : null,
            created_at: new Date(cutoff - 3_600_000).toISOString(),
            updated_at: new Date(cutoff - 3_600_000).toISOString(),
            transaction_reference: null,
            unique_reference: null,
            processing_date: date,
            cutoff_at: cutoff,
            settlement: { status: 'pending', batch: null, settled_at: null },
            due: 'batch',
            due_at: cutoff,
            order: null,
          };
          await putTx(tx, t, true);
        }
      });
    }
    console.log(`seed ${N.toLocaleString('en-US')} card transactions over March 2026    ${ms(t0)}`);

    const t1 = performance.now();
    const moved = await engine.sandboxClock.advance({ to: Date.parse('2026-04-01T12:00:00Z') });
    console.log(`close the month (${moved.cutoffs_crossed} cut-offs: batches + statement)      ${ms(t1)}`);

    const t2 = performance.now();
    const statement = (await engine.settlementReporting.statement('ST202603USD'))!;
    const json = JSON.stringify(statement);
    console.log(`statement JSON (${(json.length / 1024).toFixed(0)} KB)                              ${ms(t2)}`);
    const t3 = performance.now();
    const pdf = await renderStatementPdf(statement);
    console.log(`statement PDF (${(pdf.length / 1024).toFixed(0)} KB)                               ${ms(t3)}`);

    const t4 = performance.now();
    const db = new Database(path.join(dir, 'laneway.sqlite'), { readonly: true });
    const row = db.prepare("SELECT id FROM laneway_rx_collections WHERE collection_name = 'transactions'").get() as { id: number };
    const sums = db
      .prepare(
        `SELECT SUM(CASE WHEN json_extract(data, '$.data.action') IN ('sale','capture') THEN json_extract(data, '$.data.amount_cents') ELSE 0 END) AS sales,
                SUM(CASE WHEN json_extract(data, '$.data.action') IN ('refund','credit') THEN json_extract(data, '$.data.amount_cents') ELSE 0 END) AS refunds,
                COUNT(*) AS n
         FROM rxc_${row.id} WHERE json_extract(data, '$.data.processing_date') BETWEEN '2026-03-01' AND '2026-03-31' AND json_extract(data, '$.data.state') = 'completed'`,
      )
      .get() as { sales: number; refunds: number; n: number };
    db.close();
    console.log(`raw SQL aggregate of the same sums (json_extract)          ${ms(t4)}`);
    const totals = statement.totals;
    console.log(`statement: sales ${totals.sales_cents} refunds ${totals.refunds_cents} count ${totals.transaction_count} net ${totals.net_cents}`);
    console.log(`raw SQL:   sales ${sums.sales} refunds ${sums.refunds} count ${sums.n}`);
    if (sums.sales !== totals.sales_cents || sums.refunds !== totals.refunds_cents || sums.n !== totals.transaction_count) {
      throw new Error('the statement and the raw SQL aggregate disagree');
    }
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
