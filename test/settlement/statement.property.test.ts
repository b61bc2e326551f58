import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { card, op, startGateway } from '../helpers/gateway';
import type { BatchView, Statement } from '../../src/engine/settlement-reporting';

/**
 * For random months of card sales, refunds and voids (made on random days, before or after their
 * cut-off), the sum of the month's batch deposits equals the statement's net to the cent, and both
 * equal what the transactions say once the sandbox's fee schedule is applied per batch.
 */
type Step = { day: number; amount: number; refund: number; voidIt: boolean };
const step = fc.record({
  day: fc.integer({ min: 0, max: 27 }),
  // No .01 (declines), .02 (void declines) or .66 (chargeback) endings.
  amount: fc.integer({ min: 1, max: 500_000 }).map((n) => (n % 100 === 1 || n % 100 === 2 || n % 100 === 66 ? n + 3 : n)),
  refund: fc.integer({ min: 0, max: 100 }),
  voidIt: fc.boolean(),
});

const fees = (sales: number[]) => (sales.length === 0 ? 0 : Math.floor((sales.reduce((a, b) => a + b, 0) * 150 + 5000) / 10000) + 10 * sales.length);

describe('statement net equals the month of deposits (property)', () => {
  it('for random months of sales, refunds and voids', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps: Step[]) => {
        // A quiet April: 2026-04-01 is the first processing day.
        const h = await startGateway();
        try {
          await h.t.engine.account.update({ name: 'Property Shop' });
          h.t.clock.set('2026-04-01T08:00:00Z');
          const byDay = new Map<string, { sales: number[]; refunds: number }>();
          const sorted = [...steps].sort((a, b) => a.day - b.day);
          let fund: string | undefined;
          for (const s of sorted) {
            const at = Date.parse('2026-04-01T08:00:00Z') + s.day * 86_400_000;
            const now = Date.parse((await h.api.get<{ now: string }>('/api/sandbox/v1/clock')).body.now);
            if (at > now) await h.api.post('/api/sandbox/v1/clock/advance', { to: new Date(at).toISOString() });
            const sale = await op(h.api, 'sale', { amount_cents: s.amount, ...(fund ? { fund_token: fund } : { credit_card: card() }) });
            expect(sale.body.success).toBe(true);
            fund = sale.body.credit_card ?? undefined;
            const date = sale.body.transactions[0]!.processing_date;
            const day = byDay.get(date) ?? { sales: [], refunds: 0 };
            byDay.set(date, day);
            if (s.voidIt) {
              await op(h.api, 'void', { transaction: sale.body.transaction });
              continue;
            }
            day.sales.push(s.amount);
            let refund = Math.floor((s.amount * s.refund) / 100);
            if (refund % 100 === 1) refund -= 1; // .01 declines
            if (refund > 0) {
              const r = await op(h.api, 'refund', { amount_cents: refund, transaction: sale.body.transaction });
              expect(r.body.success).toBe(true);
              day.refunds += refund;
            }
          }
          await h.api.post('/api/sandbox/v1/clock/advance', { to: '2026-05-01T12:00:00Z' });
          const batches = (await h.api.get<{ batches: BatchView[] }>('/api/gateway/v1/settlement/batches?list=true&limit=2500')).body.batches;
          const statement = (await h.api.get<Statement>('/api/gateway/v1/settlement/statements/ST202604USD.json')).body;
          const deposits = batches.reduce((sum, b) => sum + b.deposit_amount_cents, 0);
          const expected = [...byDay.values()].reduce((sum, d) => sum + d.sales.reduce((a, b) => a + b, 0) - d.refunds - fees(d.sales), 0);
          expect(deposits).toBe(statement.totals.net_cents);
          expect(statement.totals.net_cents).toBe(expected);
          expect(statement.daily.reduce((sum, d) => sum + d.deposit_cents, 0)).toBe(expected);
        } finally {
          await h.close();
        }
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
