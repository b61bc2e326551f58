import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { openTestEngine, type TestEngine } from '../helpers/harness';
import { isEngineError } from '../../src/engine/errors';
import type { TransactionRequest } from '../../src/shared/schemas/gateway';
import type { TxData } from '../../src/engine/gateway';
import { VISA } from '../helpers/gateway';

/**
 * Model-based test of the money state machine: random sequences of auth, capture, void, refund,
 * sale and credit with random amounts and clock moves, run against a real engine (real SQLite) and
 * a small model of the rules. After every step: the engine agrees with the model on what was
 * approved, declined or refused (so voids follow the processing-day rule), and no money is created
 * or lost: captured <= authorized, captured + voided + released <= authorized, refunded <= sold,
 * and every settlement batch totals exactly the transactions it holds, which are exactly the
 * model's non-voided financial transactions of that processing day.
 */
const HOUR = 3_600_000;
const CUTOFF_HOUR = 23; // the default processing_cutoff, UTC account

type Kind = 'authorize' | 'sale' | 'credit' | 'capture' | 'refund';
interface MTx {
  token: string;
  action: Kind;
  amount: number;
  date: string;
  cutoffAt: number;
  cancelled: boolean;
  refunded: number;
  parent: string | null;
  auth: { captured: number; voided: number; released: number; holdExpires: number } | null;
}
interface Model {
  now: number;
  txs: MTx[];
}
interface Real {
  t: TestEngine;
  fund: string;
}

function processingDay(now: number): { date: string; cutoffAt: number } {
  const d = new Date(now);
  let day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (d.getUTCHours() >= CUTOFF_HOUR) day += 24 * HOUR;
  return { date: new Date(day).toISOString().slice(0, 10), cutoffAt: day + CUTOFF_HOUR * HOUR };
}

const remaining = (a: NonNullable<MTx['auth']>, authorized: number) => authorized - a.captured - a.voided - a.released;

type Outcome = { kind: 'approved'; token: string } | { kind: 'declined' } | { kind: 'error'; code: string };

async function call(r: Real, action: string, req: TransactionRequest): Promise<Outcome> {
  try {
    const res = await r.t.engine.gateway.transact(action as never, req, 'property');
    return res.approved ? { kind: 'approved', token: res.body.transaction } : { kind: 'declined' };
  } catch (err) {
    if (isEngineError(err)) return { kind: 'error', code: err.code };
    throw err;
  }
}

function expectOutcome(actual: Outcome, expected: Outcome['kind'] | string, label: string) {
  const got = actual.kind === 'error' ? actual.code : actual.kind;
  expect(got, label).toBe(expected);
}

function addTx(m: Model, action: Kind, amount: number, token: string, parent: string | null) {
  const day = processingDay(m.now);
  m.txs.push({
    token,
    action,
    amount,
    date: day.date,
    cutoffAt: day.cutoffAt,
    cancelled: false,
    refunded: 0,
    parent,
    auth: action === 'authorize' ? { captured: 0, voided: 0, released: 0, holdExpires: m.now + 2 * 24 * HOUR } : null,
  });
}

class NewMoney implements fc.AsyncCommand<Model, Real> {
  constructor(readonly action: 'authorize' | 'sale' | 'credit', readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const out = await call(r, this.action, { amount_cents: this.amount, fund_token: r.fund });
    const expected = this.amount % 100 === 1 ? 'declined' : 'approved';
    expectOutcome(out, expected, this.toString());
    if (out.kind === 'approved') addTx(m, this.action, this.amount, out.token, null);
  }
  toString = () => `${this.action}(${this.amount})`;
}

class Capture implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly amount: number | null) {}
  check = (m: Readonly<Model>) => m.txs.some((t) => t.action === 'authorize');
  async run(m: Model, r: Real) {
    const auths = m.txs.filter((t) => t.action === 'authorize');
    const a = auths[this.pick % auths.length]!;
    const state = a.auth!;
    const left = remaining(state, a.amount);
    const amount = this.amount ?? left;
    const expected = m.now >= state.holdExpires || state.released > 0 ? 'authorization_expired' : left <= 0 ? 'nothing_to_capture' : amount > left ? 'amount_exceeds_authorization' : amount % 100 === 1 ? 'declined' : 'approved';
    const out = await call(r, 'capture', { transaction: a.token, ...(this.amount !== null ? { amount_cents: this.amount } : {}) });
    expectOutcome(out, expected, this.toString());
    if (out.kind === 'approved') {
      state.captured += amount;
      addTx(m, 'capture', amount, out.token, a.token);
    }
  }
  toString = () => `capture(#${this.pick}, ${this.amount})`;
}

class Refund implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly amount: number | null) {}
  check = (m: Readonly<Model>) => m.txs.some((t) => t.action === 'sale' || t.action === 'capture');
  async run(m: Model, r: Real) {
    const sold = m.txs.filter((t) => t.action === 'sale' || t.action === 'capture');
    const s = sold[this.pick % sold.length]!;
    const refundable = s.amount - s.refunded;
    const amount = this.amount ?? refundable;
    const expected = s.cancelled ? 'transaction_voided' : refundable <= 0 ? 'nothing_to_refund' : amount > refundable ? 'amount_exceeds_refundable' : amount % 100 === 1 ? 'declined' : 'approved';
    const out = await call(r, 'refund', { transaction: s.token, ...(this.amount !== null ? { amount_cents: this.amount } : {}) });
    expectOutcome(out, expected, this.toString());
    if (out.kind === 'approved') {
      s.refunded += amount;
      addTx(m, 'refund', amount, out.token, s.token);
    }
  }
  toString = () => `refund(#${this.pick}, ${this.amount})`;
}

class Void implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number, readonly amount: number | null) {}
  check = (m: Readonly<Model>) => m.txs.length > 0;
  async run(m: Model, r: Real) {
    const t = m.txs[this.pick % m.txs.length]!;
    let expected: string;
    let amount = 0;
    if (t.cancelled) expected = 'transaction_already_voided';
    else if (t.action === 'authorize') {
      const a = t.auth!;
      const left = remaining(a, t.amount);
      amount = this.amount ?? left;
      expected = m.now >= a.holdExpires || a.released > 0 ? 'authorization_expired' : left <= 0 ? 'nothing_to_void' : amount > left ? 'amount_exceeds_authorization' : amount % 100 === 2 ? 'declined' : 'approved';
    } else {
      amount = t.amount;
      expected = m.now >= t.cutoffAt ? 'void_window_closed' : t.refunded > 0 ? 'transaction_has_refunds' : amount % 100 === 2 ? 'declined' : 'approved';
    }
    const out = await call(r, 'void', { transaction: t.token, ...(t.action === 'authorize' && this.amount !== null ? { amount_cents: this.amount } : {}) });
    expectOutcome(out, expected, `${this.toString()} on ${t.action}`);
    if (out.kind !== 'approved') return;
    if (t.action === 'authorize') t.auth!.voided += amount;
    else {
      t.cancelled = true;
      const parent = m.txs.find((p) => p.token === t.parent);
      if (parent && t.action === 'capture') parent.auth!.captured -= amount;
      if (parent && t.action === 'refund') parent.refunded -= amount;
    }
  }
  toString = () => `void(#${this.pick}, ${this.amount})`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly minutes: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    m.now += this.minutes * 60_000;
    r.t.clock.set(m.now);
    await r.t.engine.tick();
    for (const t of m.txs) {
      if (t.auth && m.now >= t.auth.holdExpires) t.auth.released += Math.max(0, remaining(t.auth, t.amount));
    }
  }
  toString = () => `advance(${this.minutes}m)`;
}

class Check implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  run = (m: Model, r: Real) => checkInvariants(m, r);
  toString = () => 'check';
}

async function checkInvariants(m: Model, r: Real) {
  const { engine } = r.t;
  const records = new Map<string, TxData>();
  for (const t of m.txs) records.set(t.token, (await engine.gateway.record(t.token))!);
  for (const t of m.txs) {
    const rec = records.get(t.token)!;
    if (rec.auth) {
      const a = rec.auth;
      expect(a.captured_cents).toBeLessThanOrEqual(a.authorized_cents);
      expect(a.captured_cents + a.voided_cents + a.released_cents).toBeLessThanOrEqual(a.authorized_cents);
      expect(a.captured_cents).toBe(t.auth!.captured);
    }
    if (t.action === 'sale' || t.action === 'capture') {
      expect(rec.refunded_cents).toBeLessThanOrEqual(rec.amount_cents);
      expect(rec.refunded_cents).toBe(t.refunded);
    }
    expect(rec.state === 'cancelled', t.token).toBe(t.cancelled);
  }
  // Batches: each totals its members; together they are exactly the model's closed days.
  const batches = (await engine.gateway.settlement.batchesSince(0, 1000)).map((b) => b.data);
  const signed = (x: { action: string; amount: number }) => (x.action === 'refund' || x.action === 'credit' ? -x.amount : x.amount);
  for (const b of batches) {
    const members = await engine.gateway.settlement.batchTransactions(b.token);
    expect(members.length).toBe(b.transaction_count);
    expect(members.reduce((s, x) => s + signed({ action: x.action, amount: x.amount_cents }), 0)).toBe(b.batch_net_amount_cents);
    expect(members.every((x) => x.state === 'completed')).toBe(true);
  }
  const expected = new Map<string, number>();
  for (const t of m.txs) {
    if (t.action === 'authorize' || t.cancelled || t.cutoffAt > m.now) continue;
    expected.set(t.date, (expected.get(t.date) ?? 0) + signed(t));
  }
  const actual = new Map(batches.map((b) => [b.processing_date, b.batch_net_amount_cents]));
  expect(actual).toEqual(expected);
}

// Each run opens an engine; its folder is removed at the end, once the log file has surely been opened.
const folders: string[] = [];
afterAll(async () => {
  await new Promise((r) => setTimeout(r, 200));
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

describe('money state machine (model-based)', () => {
  it('never creates or loses money, and voids follow the processing-day rule', async () => {
    const amount = fc.integer({ min: 1, max: 3000 });
    const optionalAmount = fc.option(amount, { nil: null });
    const commands = [
      amount.map((a) => new NewMoney('authorize', a)),
      amount.map((a) => new NewMoney('sale', a)),
      amount.map((a) => new NewMoney('credit', a)),
      fc.tuple(fc.nat(50), optionalAmount).map(([i, a]) => new Capture(i, a)),
      fc.tuple(fc.nat(50), optionalAmount).map(([i, a]) => new Refund(i, a)),
      fc.tuple(fc.nat(50), optionalAmount).map(([i, a]) => new Void(i, a)),
      fc.integer({ min: 1, max: 36 * 60 }).map((mins) => new Advance(mins)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (cmds) => {
        const t = await openTestEngine({ keep: true });
        folders.push(t.dir);
        try {
          await t.engine.account.update({ authorization_hold_days: 2 });
          const w = await t.engine.wallets.create({ credit_card: { name: 'Model', expiry_month: '12', expiry_year: 2040, card_number: VISA, cvv: '123', address: { postal_code: '90210' } } });
          const model: Model = { now: t.clock.now(), txs: [] };
          const real: Real = { t, fund: w.fund_token! };
          await fc.asyncModelRun(() => ({ model, real }), [...cmds].flatMap((c) => [c, new Check()]));
        } finally {
          await t.close();
        }
      }),
      { numRuns: 40 },
    );
  });
});
