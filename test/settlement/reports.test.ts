import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACH, AMEX, MASTERCARD, card, op, startGateway, type GatewayError, type Harness } from '../helpers/gateway';
import { basicAuth } from '../helpers/harness';
import { referenceKeys } from '../helpers/reference-check';
import { merchantId } from '../../src/engine/account/merchant-id';
import type { BatchView, ExceptionView, Statement, StatementSummary } from '../../src/engine/settlement-reporting';
import { settlementTokens } from '../../src/engine/gateway/settlement-tokens';
import { batchView } from '../../src/engine/settlement-reporting/views';

/**
 * A month of a shop's sales over real HTTP, moved through with the sandbox clock: card sales, a
 * refund the same day and the next, a void before the cut-off and one refused after it, an ACH
 * sale returned R01 and a card sale charged back (.66). The batches, the exceptions and the
 * month's statement must agree with those transactions to the cent.
 */
let h: Harness;
const tx: Record<string, string> = {};
beforeAll(async () => {
  h = await startGateway();
  await h.t.engine.account.update({ name: 'Laneway Coffee Roasters', address_1: '12 Bank Street', city: 'Ottawa', province: 'ON', postal_code: 'K1P 5N2', country: 'CA' });
  // Monday 2026-03-02, 15:00 UTC (the account's zone), cut-off 23:00.
  const a = await op(h.api, 'sale', { amount_cents: 10000, credit_card: card(), order: { identifier: 'ORD-A' } });
  const b = await op(h.api, 'sale', { amount_cents: 5066, credit_card: card(MASTERCARD), order: { identifier: 'ORD-CB', number: 'S-1042' } });
  const c = await op(h.api, 'sale', { amount_cents: 3000, fund_token: a.body.credit_card });
  expect((await op(h.api, 'void', { transaction: c.body.transaction })).body.success).toBe(true);
  await op(h.api, 'refund', { amount_cents: 1000, transaction: a.body.transaction });
  Object.assign(tx, { a: a.body.transaction, b: b.body.transaction, c: c.body.transaction });
  await h.api.post('/api/sandbox/v1/clock/advance', { by: 'P1D' });
  // Tuesday: the void window of Monday's sales has closed.
  const late = await op<GatewayError>(h.api, 'void', { transaction: a.body.transaction });
  expect(late.body.errors).toEqual(['void_window_closed']);
  await op(h.api, 'refund', { amount_cents: 500, transaction: a.body.transaction });
  const ach = await op(h.api, 'sale', { amount_cents: 7000, bank_account: { ...ACH, account_number: '0000000024' }, order: { identifier: 'ORD-ACH' } });
  const amex = await op(h.api, 'sale', { amount_cents: 1234, credit_card: card(AMEX, { cvv: '6789' }) });
  Object.assign(tx, { ach: ach.body.transaction, amex: amex.body.transaction });
  const moved = await h.api.post<{ now: string }>('/api/sandbox/v1/clock/advance', { to: '2026-04-01T12:00:00Z' });
  expect(moved.status).toBe(200);
});
afterAll(async () => {
  await h.close();
});

const batchesOf = async (query = 'list=true') => (await h.api.get<{ batches: BatchView[] }>(`/api/gateway/v1/settlement/batches?${query}`)).body.batches;

describe('daily batch deposits', () => {
  it('reports each processing day per settlement token: sales, refunds, fees, deposit next business day, brands, transactions', async () => {
    const batches = await batchesOf();
    const card0302 = batches.find((x) => x.processing_date === '2026-03-02' && x.payment_method_group === 'card')!;
    // Sales 100.00 + 50.66 (the voided 30.00 is not there), refund 10.00; fees 1.50% of 150.66 = 2.26 and 2 x 0.10.
    // The net is the reference's "amount, less fees": 150.66 - 10.00 - 2.46, all of it deposited.
    expect(card0302).toMatchObject({ sales_cents: 15066, sales_count: 2, refunds_cents: 1000, refunds_count: 1, batch_net_amount_cents: 13820, fees_cents: 246, fee_withdrawal_amount_cents: 0, deposit_amount_cents: 13820, batch_deposit_date: '2026-03-03', closed_at: '2026-03-02T23:00:00.000Z', mid: merchantId(h.t.engine.account.profile()) });
    expect(card0302.fees.map((f) => [f.fee_type, f.fee_amount_cents, f.included_in_batch_deposit])).toEqual([['interchange', 226, true], ['processor', 20, true]]);
    expect(card0302.count_by_brand).toEqual([
      { brand: 'master', count: 1, sales_count: 1, sales_cents: 5066, refunds_count: 0, refunds_cents: 0 },
      { brand: 'visa', count: 2, sales_count: 1, sales_cents: 10000, refunds_count: 1, refunds_cents: 1000 },
    ]);
    expect(card0302.transactions!.map((t) => t.token).sort()).not.toContain(tx.c);
    expect(card0302.transactions!.find((t) => t.token === tx.b)).toMatchObject({ amount_cents: 5066, card_brand: 'master', orders: [{ identifier: 'ORD-CB', number: 'S-1042' }], transaction_date: '2026-03-02' });
    expect((card0302 as BatchView & { exceptions: ExceptionView[] }).exceptions.map((e) => [e.exception_type, e.exception_transaction.token])).toEqual([['chargeback', tx.b]]);
    const signed = card0302.transactions!.reduce((s, t) => s + (t.action === 'refund' || t.action === 'credit' ? -t.amount_cents : t.amount_cents), 0);
    expect(signed - card0302.fees_cents).toBe(card0302.batch_net_amount_cents);

    const card0303 = batches.find((x) => x.processing_date === '2026-03-03' && x.payment_method_group === 'card')!;
    expect(card0303).toMatchObject({ sales_cents: 1234, refunds_cents: 500, fees_cents: 19 + 10, deposit_amount_cents: 705, batch_deposit_date: '2026-03-04' });
    const bank = batches.find((x) => x.payment_method_group === 'bank')!;
    expect(bank).toMatchObject({ processing_date: '2026-03-03', sales_cents: 7000, fees_cents: 25, deposit_amount_cents: 6975, count_by_brand: [expect.objectContaining({ brand: 'ach', count: 1 })] });
    expect((bank as BatchView & { exceptions: ExceptionView[] }).exceptions.map((e) => [e.exception_type, e.reason_code, e.exception_transaction.token])).toEqual([['return', 'R01', tx.ach]]);
    expect(batches).toHaveLength(3);
  });

  it("carries every field of the reference's batch transaction, the FX ones null: no currency is converted", async () => {
    const fields = referenceKeys('SettlementBatchResponse.transactions');
    expect(fields).toEqual(expect.arrayContaining(['fx_account_currency', 'fx_currency', 'fx_amount_cents', 'fx_rate']));
    const transactions = (await batchesOf()).flatMap((b) => b.transactions!);
    expect(transactions.length).toBeGreaterThan(0);
    for (const t of transactions) {
      expect(fields.filter((k) => !(k in t)), t.token).toEqual([]);
      expect(t).toMatchObject({ fx_account_currency: null, fx_currency: null, fx_amount_cents: null, fx_rate: null });
    }
  });

  it("names the deposit and fee withdrawal account of each batch as whoami answers the settlement bank account: masked, never a full number", async () => {
    const whoami = (await h.api.get<{ whoami: Record<string, { settlement_bank_accounts: Array<Record<string, unknown>> }> }>('/api/whoami')).body.whoami;
    const bank = Object.values(whoami)[0]!.settlement_bank_accounts[0]!;
    const batchFields = referenceKeys('SettlementBatchResponse');
    const feeFields = referenceKeys('SettlementBatchResponse.fees');
    expect(batchFields).toEqual(expect.arrayContaining(['deposit_account_number', 'deposit_routing_number', 'deposit_routing_account_hash', 'deposit_routing_account_hash_function']));
    expect(feeFields).toEqual(expect.arrayContaining(['fee_withdrawal_account_number', 'fee_withdrawal_routing_number', 'fee_routing_account_hash', 'fee_routing_account_hash_function']));
    const batches = await batchesOf();
    expect(batches.flatMap((b) => b.fees).length).toBeGreaterThan(0);
    for (const b of batches) {
      expect(batchFields.filter((k) => !(k in b)), b.token).toEqual([]);
      // No settlement bank account is on file: whoami answers null, and so does every batch.
      expect(b).toMatchObject({
        deposit_account_number: bank.masked_account_number,
        deposit_routing_number: bank.routing_number,
        deposit_routing_account_hash: bank.routing_account_hash,
        deposit_routing_account_hash_function: bank.routing_account_hash_function,
      });
      for (const f of b.fees) {
        expect(feeFields.filter((k) => !(k in f)), f.token).toEqual([]);
        expect(f).toMatchObject({
          fee_withdrawal_account_number: bank.masked_account_number,
          fee_withdrawal_routing_number: bank.routing_number,
          fee_routing_account_hash: bank.routing_account_hash,
          fee_routing_account_hash_function: bank.routing_account_hash_function,
        });
      }
    }
    expect(bank).toMatchObject({ masked_account_number: null, routing_number: null, routing_account_hash: null, routing_account_hash_function: null });
    // An account on file would be named as given, masked number and all.
    const [rec] = await h.t.engine.gateway.settlement.batchesSince(0, 1);
    const account = { routing_number: '021000021', masked_account_number: 'XXXXXX6789', routing_account_hash: null, routing_account_hash_function: null };
    const view = batchView(rec!, 'MID', undefined, account);
    expect(view).toMatchObject({ deposit_routing_number: '021000021', deposit_account_number: 'XXXXXX6789', deposit_routing_account_hash: null });
    expect(view.fees.map((f) => [f.fee_withdrawal_routing_number, f.fee_withdrawal_account_number])).toEqual(view.fees.map(() => ['021000021', 'XXXXXX6789']));
  });

  it('pages by watermark, as an object keyed by watermark or a list', async () => {
    const all = await batchesOf();
    const seen: string[] = [];
    let watermark = 0;
    for (;;) {
      const page = (await h.api.get<{ batches: Record<string, BatchView> }>(`/api/gateway/v1/settlement/batches?limit=1&watermark=${watermark}`)).body.batches;
      const keys = Object.keys(page);
      if (keys.length === 0) break;
      expect(keys).toHaveLength(1);
      expect(page[keys[0]!]!.watermark).toBe(Number(keys[0]));
      seen.push(page[keys[0]!]!.token);
      watermark = Number(keys[0]);
    }
    expect(seen).toEqual(all.map((b) => b.token));
    const bare = await batchesOf('list=true&include_transactions=false');
    expect(bare.map((b) => [b.token, b.deposit_amount_cents, b.transactions])).toEqual(all.map((b) => [b.token, b.deposit_amount_cents, undefined]));
  });
});

describe('daily transaction exceptions', () => {
  it('lists the ACH return and the .66 chargeback with reason, amount, original transaction and order', async () => {
    // An array without asking, as the reference answers it.
    const res = await h.api.get<{ exceptions: ExceptionView[] }>('/api/gateway/v1/settlement/exceptions');
    expect(Array.isArray(res.body.exceptions)).toBe(true);
    expect(res.body.exceptions).toEqual([
      expect.objectContaining({ exception_type: 'return', reason_code: 'R01', exception_date: '2026-03-06', exception_amount_in_cents: 7000, exception_transaction: expect.objectContaining({ token: tx.ach, payment_method: 'bank_account', order: { identifier: 'ORD-ACH', number: null } }) }),
      expect.objectContaining({ exception_type: 'chargeback', reason_code: '10.4', exception_date: '2026-03-12', exception_amount_in_cents: 5066, exception_transaction: expect.objectContaining({ token: tx.b, payment_method: 'credit_card', order: { identifier: 'ORD-CB', number: 'S-1042' } }) }),
    ]);
    const after = await h.api.get<{ exceptions: ExceptionView[] }>(`/api/gateway/v1/settlement/exceptions?list=true&watermark=${res.body.exceptions[0]!.watermark}`);
    expect(after.body.exceptions.map((e) => e.exception_type)).toEqual(['chargeback']);
  });
});

describe('monthly statements', () => {
  it("is made when the month closes and agrees with the month's batches and exceptions to the cent", async () => {
    const list = (await h.api.get<{ statements: StatementSummary[] }>('/api/gateway/v1/settlement/statements?list=true')).body.statements;
    expect(list.map((s) => [s.identifier, s.start_date, s.end_date, s.statement_date])).toEqual([['ST202603USD', '2026-03-01', '2026-03-31', '2026-04-01']]);
    const s = (await h.api.get<Statement>('/api/gateway/v1/settlement/statements/ST202603USD.json')).body;
    const batches = await batchesOf();
    expect(s.totals.net_cents).toBe(batches.reduce((sum, b) => sum + b.deposit_amount_cents, 0));
    expect(s.totals).toEqual({ transaction_count: 6, sales_count: 4, sales_cents: 15066 + 1234 + 7000, refunds_count: 2, refunds_cents: 1500, net_sales_cents: 21800, fees_cents: 246 + 29 + 25, net_cents: 21500, exceptions_count: 2, exceptions_cents: 12066, net_after_exceptions_cents: 21500 - 12066 });
    expect(s.daily).toEqual([
      { date: '2026-03-02', batch_count: 1, transaction_count: 3, sales_cents: 15066, refunds_cents: 1000, fees_cents: 246, deposit_cents: 13820, deposit_date: '2026-03-03' },
      { date: '2026-03-03', batch_count: 2, transaction_count: 3, sales_cents: 8234, refunds_cents: 500, fees_cents: 54, deposit_cents: 7680, deposit_date: '2026-03-04' },
    ]);
    expect(s.daily.reduce((sum, d) => sum + d.deposit_cents, 0)).toBe(s.totals.net_cents);
    expect(s.fees).toEqual([{ fee_type: 'interchange', amount_cents: 226 + 19 }, { fee_type: 'processor', amount_cents: 20 + 10 + 25 }]);
    expect(s.volume_by_tender.map((v) => [v.tender, v.net_cents])).toEqual([['bank', 7000], ['card', 14800]]);
    expect(s.volume_by_brand.map((v) => v.brand)).toEqual(['ach', 'american_express', 'master', 'visa']);
    expect(s.merchant).toEqual({ name: 'Laneway Coffee Roasters', address: ['12 Bank Street', 'Ottawa ON K1P 5N2', 'CA'], timezone: 'UTC' });
    expect(s.deposited_in_period_cents).toBe(s.opening_in_transit_cents + s.totals.net_cents - s.closing_in_transit_cents);
    // The identifier may carry the extension.
    expect((await h.api.get<Statement>('/api/gateway/v1/settlement/statements/ST202603USD.json.json')).body.identifier).toBe('ST202603USD');
  });

  it('filters by mid and by period end date, answers the sample, 404 for an unknown statement and 400 for an unknown format', async () => {
    const ids = async (q: string) => (await h.api.get<{ statements: StatementSummary[] }>(`/api/gateway/v1/settlement/statements?list=true&${q}`)).body.statements.map((s) => s.identifier);
    const p = h.t.engine.account.profile();
    expect(await ids(`mid=${merchantId(p)}`)).toEqual(['ST202603USD']);
    expect(await ids(`mid=${settlementTokens(p).bank}`)).toEqual(['ST202603USD']);
    expect(await ids('mid=999999999999')).toEqual([]);
    expect(await ids('enddate_from=2026-03-31&enddate_to=2026-03-31')).toEqual(['ST202603USD']);
    expect(await ids('enddate_from=2026-04-01')).toEqual([]);
    expect(await ids('enddate_to=2026-03-30')).toEqual([]);
    expect(await ids('sample=true')).toEqual(['sample']);
    const keyed = (await h.api.get<{ statements: Record<string, StatementSummary> }>('/api/gateway/v1/settlement/statements')).body.statements;
    expect(Object.values(keyed).map((s) => s.identifier)).toEqual(['ST202603USD']);
    expect(Object.keys(keyed)[0]).toBe(String(Object.values(keyed)[0]!.watermark));
    expect((await h.api.get(`/api/gateway/v1/settlement/statements?watermark=${Object.keys(keyed)[0]}&list=true`)).body).toEqual({ statements: [] });
    expect((await h.api.get('/api/gateway/v1/settlement/statements?enddate_from=March')).status).toBe(400);
    expect((await h.api.get('/api/gateway/v1/settlement/statements?enddate_from=2026-12-32')).status).toBe(400);
    expect((await h.api.get('/api/gateway/v1/settlement/statements?enddate_to=2026-02-29')).status).toBe(400);

    const missing = await h.api.get<{ code: string }>('/api/gateway/v1/settlement/statements/ST209901USD.pdf');
    expect([missing.status, missing.body.code]).toEqual([404, 'statement_not_found']);
    const format = await h.api.get<{ code: string }>('/api/gateway/v1/settlement/statements/ST202603USD.xml');
    expect([format.status, format.body.code]).toEqual([400, 'unknown_format']);
    expect((await h.api.get('/api/gateway/v1/settlement/statements', null)).status).toBe(401);
    await h.t.engine.account.update({ capabilities: { settlement_reporting: false } });
    expect((await h.api.get('/api/gateway/v1/settlement/batches')).status).toBe(403);
    await h.t.engine.account.update({ capabilities: { settlement_reporting: true } });
  });

  it('renders the PDF with the same figures; its pages are written to test-output/ as PNG', async () => {
    const res = await fetch(`${h.api.url}/api/gateway/v1/settlement/statements/ST202603USD.pdf`, { headers: { Authorization: basicAuth() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/pdf');
    expect(res.headers.get('content-disposition')).toContain('ST202603USD.pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const sample = Buffer.from(await (await fetch(`${h.api.url}/api/gateway/v1/settlement/statements/sample.pdf`, { headers: { Authorization: basicAuth() } })).arrayBuffer());
    const out = join(process.cwd(), 'test-output', 'settlement');
    mkdirSync(out, { recursive: true });
    for (const f of readdirSync(out)) rmSync(join(out, f));
    for (const [name, bytes] of [['statement', pdf], ['sample', sample]] as const) {
      writeFileSync(join(out, `${name}.pdf`), bytes);
      execFileSync('pdftoppm', ['-png', '-r', '80', join(out, `${name}.pdf`), join(out, name)]);
      // The text layer carries the JSON's figures, formatted.
      const text = execFileSync('pdftotext', ['-layout', join(out, `${name}.pdf`), '-']).toString();
      if (name === 'statement') {
        for (const figure of ['$215.00', '$138.20', '$76.80', '$69.75', '$120.66', '$3.00', 'Laneway Coffee Roasters', '12 Bank Street', '2026-03-01 to 2026-03-31', 'Page 1 of']) expect(text).toContain(figure);
      }
    }
    expect(readdirSync(out).filter((f) => f.startsWith('statement') && f.endsWith('.png')).length).toBeGreaterThanOrEqual(1);
    // The sample's daily table does not fit one page: it breaks and repeats its header.
    const sampleText = execFileSync('pdftotext', ['-layout', join(out, 'sample.pdf'), '-']).toString();
    expect(sampleText).toContain('Daily deposits (continued)');
    // Brands are named as the Settlement screen and the receipts name them.
    expect(sampleText).toMatch(/^\s*Amex\s+\d/m);
    expect(sampleText).not.toContain('American Express');
    expect(sampleText.match(/Processing day/g)?.length).toBeGreaterThanOrEqual(2);
  });
});

describe('deposits across weekends and month ends', () => {
  it('deposits on the next business day and carries in-transit deposits from one statement to the next', async () => {
    const g = await startGateway();
    try {
      const sale = async (at: string, cents: number) => {
        await g.api.post('/api/sandbox/v1/clock/advance', { to: at });
        return op(g.api, 'sale', { amount_cents: cents, credit_card: card() });
      };
      await sale('2026-03-31T15:00:00Z', 10000); // Tuesday: deposited Wednesday 1 April
      await sale('2026-04-03T15:00:00Z', 20000); // Friday: deposited Monday 6 April
      await sale('2026-04-30T15:00:00Z', 30000); // Thursday: deposited Friday 1 May
      await g.api.post('/api/sandbox/v1/clock/advance', { to: '2026-05-02' });
      const batches = (await g.api.get<{ batches: BatchView[] }>('/api/gateway/v1/settlement/batches?list=true&include_transactions=false')).body.batches;
      expect(batches.map((b) => [b.processing_date, b.batch_deposit_date, b.deposit_amount_cents])).toEqual([
        ['2026-03-31', '2026-04-01', 10000 - 150 - 10],
        ['2026-04-03', '2026-04-06', 20000 - 300 - 10],
        ['2026-04-30', '2026-05-01', 30000 - 450 - 10],
      ]);
      const march = (await g.api.get<Statement>('/api/gateway/v1/settlement/statements/ST202603USD.json')).body;
      const april = (await g.api.get<Statement>('/api/gateway/v1/settlement/statements/ST202604USD.json')).body;
      expect([march.opening_in_transit_cents, march.totals.net_cents, march.closing_in_transit_cents, march.deposited_in_period_cents]).toEqual([0, 9840, 9840, 0]);
      expect([april.opening_in_transit_cents, april.totals.net_cents, april.closing_in_transit_cents, april.deposited_in_period_cents]).toEqual([9840, 19690 + 29540, 29540, 9840 + 19690]);
      // May has not closed yet.
      expect((await g.api.get('/api/gateway/v1/settlement/statements/ST202605USD.json')).status).toBe(404);
    } finally {
      await g.close();
    }
  });
});
