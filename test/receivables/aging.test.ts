import { describe, expect, it } from 'vitest';
import { uid } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';

const ctx = useHarness({ api: true });

describe('aging against the clock', () => {
  it('moves balances from current through the buckets as the clock moves, with no write', async () => {
    const c = uid('C');
    const post = (body: Record<string, unknown>) => ctx.api.post('/api/imports/invoice', { customer_identifier: c, ...body });
    await post({ number: `${c}-A`, amount: 10000, date: '2026-03-01', due_date: '2026-03-31' });
    await post({ number: `${c}-B`, amount: 5000, date: '2026-02-01', due_date: '2026-02-15' });
    await post({ number: `${c}-CM`, amount: -2500, date: '2026-02-20' });
    await ctx.api.post('/api/imports/payment', { identifier: uid('P'), customer_identifier: c, amount_cents: 700 });
    const view = async () => (await ctx.api.get<Record<string, string>>(`/api/exports/customer/${c}`)).body;
    const buckets = (v: Record<string, string>) => [v.current, v.aging, v.aging_30, v.aging_60, v.aging_90, v.aging_older];
    const list = async () => {
      const res = await ctx.api.get<{ customers: Array<Record<string, number | string>> }>('/api/exports/customers?list=true&limit=2500');
      return res.body.customers.find((x) => x.identifier === c)!;
    };

    let v = await view();
    // 2026-03-02: A current; B 15 days late.
    expect(buckets(v)).toEqual(['$100.00', '$50.00', '$50.00', '$0.00', '$0.00', '$0.00']);
    expect([v.balance, v.credit, v.unapplied_payment]).toEqual(['$150.00', '-$25.00', '$7.00']);
    expect([v.oldest_open_invoice, v.oldest_open_invoice_age, v.oldest_open_invoice_balance]).toEqual([`${c}-B`, '29', '$50.00']);
    const watermark = ctx.t.engine.core.currentWatermark();

    ctx.t.clock.set('2026-04-20T15:00:00Z'); // A 20 days late, B 64 days late
    v = await view();
    expect(buckets(v)).toEqual(['$0.00', '$150.00', '$100.00', '$0.00', '$50.00', '$0.00']);
    ctx.t.clock.set('2026-05-20T15:00:00Z'); // A 50, B 94
    expect(buckets(await view())).toEqual(['$0.00', '$150.00', '$0.00', '$100.00', '$0.00', '$50.00']);
    let l = await list();
    expect([l.aging_60_cents, l.aging_90_cents, l.aging_120_cents, l.aging_older_cents, l.credit_cents, l.unapplied_payment_cents, l.owing_cents]).toEqual([10000, 0, 5000, 0, -2500, 700, 11800]);
    ctx.t.clock.set('2026-09-01T15:00:00Z'); // A 154, B 198
    l = await list();
    expect([l.aging_180_cents, l.aging_older_cents, l.balance_cents]).toEqual([10000, 5000, 15000]);
    expect(buckets(await view())).toEqual(['$0.00', '$150.00', '$0.00', '$0.00', '$0.00', '$150.00']);
    expect(ctx.t.engine.core.currentWatermark()).toBe(watermark);
    ctx.t.clock.set('2026-03-02T15:00:00Z');
  });

  it('an invoice becomes OVERDUE the day after its due date', async () => {
    const number = uid('INV');
    await ctx.api.post('/api/imports/invoice', { number, customer_identifier: uid('C'), amount: 100, due_date: '2026-03-02' });
    const status = async () => (await ctx.api.get<{ status: string }>(`/api/exports/invoice/${number}`)).body.status;
    expect(await status()).toBe('CURRENT');
    ctx.t.clock.set('2026-03-03T00:30:00Z');
    expect(await status()).toBe('OVERDUE');
    ctx.t.clock.set('2026-03-02T15:00:00Z');
  });

  it('reports per-currency figures beside the main currency', async () => {
    const c = uid('C');
    await ctx.api.post('/api/imports/invoice', { number: uid('I'), customer_identifier: c, amount: 1000, currency: 'usd' });
    await ctx.api.post('/api/imports/invoice', { number: uid('I'), customer_identifier: c, amount: 2000, currency: 'cad' });
    await ctx.api.post('/api/imports/invoice', { number: uid('I'), customer_identifier: c, amount: 3000, currency: 'cad' });
    const v = (await ctx.api.get<Record<string, string>>(`/api/exports/customer/${c}`)).body;
    expect([v.currency, v.balance, v.cad_balance, v.usd_balance]).toEqual(['cad', '$50.00', '$50.00', '$10.00']);
  });
});
