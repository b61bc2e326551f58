import { describe, expect, it, vi } from 'vitest';
import { uid, type ErrorReply } from '../helpers/receivables';
import { useHarness } from '../helpers/harness';
import type { DomainEvent } from '../../src/engine/events';

const ctx = useHarness({ api: true });

describe('exports and events', () => {
  it('limit is 1..2500 (default 100); list=true gives an array whose records carry watermark', async () => {
    const r = ctx.t.engine.receivables;
    const start = ctx.t.engine.core.currentWatermark();
    await r.importInvoices(Array.from({ length: 120 }, (_, i) => ({ number: uid(`B${i}-`), customer_identifier: 'BULK1', amount: 100 + i })));
    const page = await ctx.api.get<{ invoices: Record<string, { watermark: number }> }>(`/api/exports/invoices?watermark=${start}`);
    expect(Object.keys(page.body.invoices)).toHaveLength(100);
    const keys = Object.keys(page.body.invoices).map(Number);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    const list = await ctx.api.get<{ invoices: Array<{ watermark: number }> }>(`/api/exports/invoices?watermark=${start}&limit=7&list=true`);
    expect(list.body.invoices).toHaveLength(7);
    expect(list.body.invoices[0]!.watermark).toBe(keys[0]);
    for (const bad of ['0', '2501', 'x']) expect((await ctx.api.get<ErrorReply>(`/api/exports/invoices?limit=${bad}`)).status, bad).toBe(400);
    expect((await ctx.api.get('/api/exports/invoices?limit=2500')).status).toBe(200);
  });

  it('a page of more records than one chunk (500) comes whole, in order, in both shapes, deleted invoices left out', async () => {
    const r = ctx.t.engine.receivables;
    const start = ctx.t.engine.core.currentWatermark();
    const first = Array.from({ length: 600 }, (_, i) => uid(`CH${i}-`));
    const then = Array.from({ length: 700 }, (_, i) => uid(`CJ${i}-`));
    await r.importInvoices(first.map((number, i) => ({ number, customer_identifier: 'CHUNKY', amount: 100 + i })));
    // A deletion is a new version at the end of the feed: these 50 sit between the two imports,
    // inside the page's second chunk, which comes out short; the page still fills up after it.
    const deleted = first.slice(10, 60);
    for (const number of deleted) await r.deleteInvoice(number);
    await r.importInvoices(then.map((number, i) => ({ number, customer_identifier: 'CHUNKY', amount: 100 + i })));
    const live = first.filter((n) => !deleted.includes(n));

    const list = await ctx.api.get<{ invoices: Array<{ number: string; watermark: number }> }>(`/api/exports/invoices?watermark=${start}&limit=1100&list=true`);
    expect(list.headers.get('transfer-encoding')).toBe('chunked');
    expect(list.body.invoices.map((i) => i.number)).toEqual([...live, ...then].slice(0, 1100));
    const marks = list.body.invoices.map((i) => i.watermark);
    expect(marks).toEqual([...marks].sort((a, b) => a - b));
    const keyed = await ctx.api.get<{ invoices: Record<string, { number: string; watermark: number }> }>(`/api/exports/invoices?watermark=${start}&limit=1100`);
    expect(Object.entries(keyed.body.invoices).map(([k, v]) => [Number(k), v.number])).toEqual(list.body.invoices.map((i) => [i.watermark, i.number]));
    // With deleted invoices asked for, they come in their place in the feed, marked.
    const all = await ctx.api.get<{ invoices: Array<{ number: string; deleted: boolean }> }>(`/api/exports/invoices?watermark=${start}&limit=2500&list=true&options[include_deleted_invoices]=true`);
    expect(all.body.invoices.map((i) => i.number)).toEqual([...live, ...deleted, ...then]);
    expect(all.body.invoices.filter((i) => i.deleted).map((i) => i.number)).toEqual(deleted);
    // An empty page is still a page.
    const empty = await ctx.api.get<{ invoices: unknown[] }>(`/api/exports/invoices?watermark=${ctx.t.engine.core.currentWatermark()}&list=true`);
    expect(empty.body).toEqual({ invoices: [] });
  });

  it('after a full page the next is read ahead and answered from that read, unless something was written in between', async () => {
    const r = ctx.t.engine.receivables;
    const start = ctx.t.engine.core.currentWatermark();
    const numbers = Array.from({ length: 9 }, (_, i) => uid(`RA${i}-`));
    await r.importInvoices(numbers.map((number, i) => ({ number, customer_identifier: 'AHEAD', amount: 100 + i })));
    type Page = { invoices: Array<{ number: string; watermark: number; amount_cents: number }> };
    const get = async (after: number) => (await ctx.api.get<Page>(`/api/exports/invoices?watermark=${after}&limit=3&list=true`)).body.invoices;
    // Reads of the store by where they start: a page answered from its read ahead has no read of its own.
    const project = vi.spyOn(ctx.t.engine.core, 'project');
    const readsFrom = (after: number) => project.mock.calls.filter(([, query]) => (query.selector?.watermark as { $gt?: number } | undefined)?.$gt === after).length;
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
    try {
      const first = await get(start);
      expect(first.map((i) => i.number)).toEqual(numbers.slice(0, 3));
      await settle();
      // Read ahead while nobody asked, and not read again when asked.
      expect(readsFrom(first[2]!.watermark)).toBe(1);
      const second = await get(first[2]!.watermark);
      expect(second.map((i) => i.number)).toEqual(numbers.slice(3, 6));
      expect(readsFrom(first[2]!.watermark)).toBe(1);
      await settle();
      // The third page is read ahead now; then one of its invoices changes, and moves to the end.
      await r.importInvoice({ number: numbers[7]!, customer_identifier: 'AHEAD', amount: 999 });
      const third = await get(second[2]!.watermark);
      expect(third.map((i) => i.number)).toEqual([numbers[6], numbers[8], numbers[7]]);
      expect(third[2]!.amount_cents).toBe(999);
      expect(readsFrom(second[2]!.watermark)).toBe(2);
    } finally {
      project.mockRestore();
    }
  });

  it('recently-updated exports cover the past 7 days only', async () => {
    const old = uid('OLD');
    await ctx.api.post('/api/imports/customer', { identifier: old, name: 'Old' });
    await ctx.api.post('/api/imports/invoice', { number: `${old}-I`, customer_identifier: old, amount: 100 });
    await ctx.api.post('/api/imports/payment', { identifier: `${old}-P`, invoice_number: `${old}-I`, amount_cents: 50 });
    ctx.t.clock.advanceDays(8);
    const fresh = uid('NEW');
    await ctx.api.post('/api/imports/customer', { identifier: fresh, name: 'New' });
    await ctx.api.post('/api/imports/invoice', { number: `${fresh}-I`, customer_identifier: fresh, amount: 100 });
    await ctx.api.post('/api/imports/payment', { identifier: `${fresh}-P`, invoice_number: `${fresh}-I`, amount_cents: 50 });
    const customers = await ctx.api.get<{ customers: Array<{ identifier: string }> }>('/api/exports/customers/recent?list=true&limit=2500');
    expect(customers.body.customers.map((c) => c.identifier)).toEqual([fresh]);
    const invoices = await ctx.api.get<{ invoices: Array<{ number: string }> }>('/api/exports/invoices/recent?list=true&limit=2500');
    expect(invoices.body.invoices.map((i) => i.number)).toEqual([`${fresh}-I`]);
    const payments = await ctx.api.get<{ payments: Array<{ payment_reference: string }> }>('/api/exports/payments/recent?list=true&limit=2500');
    expect(payments.body.payments.map((p) => p.payment_reference)).toEqual([`${fresh}-P`]);
    const all = await ctx.api.get<{ customers: Array<{ identifier: string }> }>('/api/exports/customers?list=true&limit=2500');
    expect(all.body.customers.map((c) => c.identifier)).toEqual(expect.arrayContaining([old, fresh]));
    ctx.t.clock.set('2026-03-02T15:00:00Z');
  });

  it('every record change gets the next watermark and exactly one event', async () => {
    const seen: DomainEvent[] = [];
    const off = ctx.t.engine.core.bus.subscribe((e) => seen.push(e));
    const start = ctx.t.engine.core.currentWatermark();
    const c = uid('EV');
    await ctx.api.post('/api/imports/invoice', { number: `${c}-1`, customer_identifier: c, amount: 1000, customer_name: 'Evented' });
    await ctx.api.post('/api/imports/payment', { identifier: `${c}-P`, invoice_number: `${c}-1`, amount_cents: 400 });
    off();
    // Each unit ends with the customer's place in the back office's balance index (a record of its own).
    const rank = seen.find((e) => e.type === 'customer_rank.updated')!.key;
    expect(seen.map((e) => [e.type, e.key])).toEqual([
      ['customer.created', c],
      ['invoice.created', `${c}-1`],
      ['customer_rank.updated', rank],
      ['customer.updated', c],
      ['invoice.updated', `${c}-1`],
      ['payment.created', `${c}-P`],
      ['payment_amount.created', `${c}-P#1`],
      ['customer_rank.updated', rank],
    ]);
    expect(seen.map((e) => e.watermark)).toEqual(Array.from({ length: 8 }, (_, i) => start + i + 1));
    const invoice = await ctx.api.get<{ watermark: number; id: number }>(`/api/exports/invoice/${c}-1`);
    expect(invoice.body.watermark).toBe(start + 5);
    // The invoice's numeric id is the watermark of its first version.
    expect(invoice.body.id).toBe(start + 2);
  });

  it('a refused import uses no watermark and emits nothing', async () => {
    const seen: DomainEvent[] = [];
    const off = ctx.t.engine.core.bus.subscribe((e) => seen.push(e));
    const start = ctx.t.engine.core.currentWatermark();
    const res = await ctx.api.post<ErrorReply>('/api/imports/invoice', { number: uid('X'), customer_identifier: uid('NEWC'), customer_email: 'broken', amount: 5 });
    off();
    expect(res.status).toBe(412);
    expect(seen).toEqual([]);
    expect(ctx.t.engine.core.currentWatermark()).toBe(start);
  });
});
