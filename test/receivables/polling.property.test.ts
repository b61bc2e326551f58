import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { useHarness } from '../helpers/harness';

const ctx = useHarness({ api: true });

type Feed = { path: string; key: string; wrap: string };
const FEEDS: Feed[] = [
  { path: '/api/exports/customers', key: 'identifier', wrap: 'customers' },
  { path: '/api/exports/customers/recent', key: 'identifier', wrap: 'customers' },
  { path: '/api/exports/invoices', key: 'number', wrap: 'invoices' },
  { path: '/api/exports/invoices/recent', key: 'number', wrap: 'invoices' },
  { path: '/api/exports/payments', key: 'payment_reference', wrap: 'payments' },
];

type Op =
  | { kind: 'customer'; c: number; name: string }
  | { kind: 'invoice'; i: number; c: number; amount: number }
  | { kind: 'payment'; p: number; i: number; amount: number }
  | { kind: 'poll'; feed: number; limit: number; list: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('customer' as const), c: fc.nat(4), name: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0) }),
  fc.record({ kind: fc.constant('invoice' as const), i: fc.nat(6), c: fc.nat(4), amount: fc.integer({ min: 1, max: 100000 }) }),
  fc.record({ kind: fc.constant('payment' as const), p: fc.nat(3), i: fc.nat(6), amount: fc.integer({ min: 0, max: 50000 }) }),
  fc.record({ kind: fc.constant('poll' as const), feed: fc.nat(FEEDS.length - 1), limit: fc.integer({ min: 1, max: 5 }), list: fc.boolean() }),
);

interface Client {
  watermark: number;
  seen: Map<string, number>;
}

/** One page, checked: records after the watermark, ascending, unique, at most `limit`, keys = watermarks. */
async function poll(feed: Feed, client: Client, limit: number, list: boolean): Promise<number> {
  const res = await ctx.api.get<Record<string, unknown>>(`${feed.path}?watermark=${client.watermark}&limit=${limit}${list ? '&list=true' : ''}`);
  expect(res.status).toBe(200);
  const page = res.body[feed.wrap] as unknown;
  let records: Array<Record<string, unknown>>;
  if (list) {
    expect(Array.isArray(page)).toBe(true);
    records = page as Array<Record<string, unknown>>;
  } else {
    expect(Array.isArray(page)).toBe(false);
    const entries = Object.entries(page as Record<string, Record<string, unknown>>);
    for (const [k, r] of entries) expect(Number(k)).toBe(r.watermark);
    records = entries.map(([, r]) => r);
  }
  expect(records.length).toBeLessThanOrEqual(limit);
  let last = client.watermark;
  for (const r of records) {
    const w = r.watermark as number;
    expect(w).toBeGreaterThan(last);
    last = w;
    client.seen.set(String(r[feed.key]), w);
  }
  client.watermark = last;
  return records.length;
}

let run = 0;
// Refusals that write nothing: an invoice with payments moved to another customer, a payment
// (its identifier repeated) moved onto another customer's invoice.
const legal = (err: { code?: string }) => {
  if (err.code !== 'invoice_has_payments' && err.code !== 'invoice_of_another_customer') throw err;
};

describe('polling exports (property)', () => {
  it('a poller with random limit and list, between random writes, ends with every record\'s latest version', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 35 }), async (ops) => {
        const r = ctx.t.engine.receivables;
        const tag = `R${++run}X`;
        const start = ctx.t.engine.core.currentWatermark();
        const clients = FEEDS.map((): Client => ({ watermark: start, seen: new Map() }));
        const invoices = new Set<number>();
        for (const o of ops) {
          if (o.kind === 'customer') await r.importCustomer({ identifier: `${tag}C${o.c}`, name: o.name });
          else if (o.kind === 'invoice') {
            // Moving an invoice with payments to another customer is a legal refusal (nothing written).
            await r.importInvoice({ number: `${tag}I${o.i}`, customer_identifier: `${tag}C${o.c}`, amount: o.amount }).catch(legal);
            invoices.add(o.i);
          } else if (o.kind === 'payment') {
            if (!invoices.has(o.i)) continue;
            // A repeated identifier is an update: the payment is re-applied.
            await r.importPayment({ identifier: `${tag}P${o.p}`, invoice_number: `${tag}I${o.i}`, amount_cents: o.amount }).catch(legal);
          } else await poll(FEEDS[o.feed]!, clients[o.feed]!, o.limit, o.list);
        }
        for (const [f, feed] of FEEDS.entries()) {
          const client = clients[f]!;
          const changed = ctx.t.engine.core.currentWatermark() - client.watermark;
          let polls = 0;
          // Drain: it must end (no loop), within one page per change plus the empty one.
          while ((await poll(feed, client, 3, polls % 2 === 0)) > 0) {
            polls++;
            expect(polls).toBeLessThanOrEqual(changed + 1);
          }
          const collection = feed.wrap === 'customers' ? 'customers' : feed.wrap === 'invoices' ? 'invoices' : 'payments';
          const current = await ctx.t.engine.core.find(collection, { selector: { watermark: { $gt: start } }, sort: [{ watermark: 'asc' }] });
          const latest = new Map(current.map((d) => [String(collection === 'customers' ? d.identifier : d.id), d.watermark]));
          expect(new Map([...client.seen].filter(([k]) => k.startsWith(tag)))).toEqual(latest);
        }
      }),
      { numRuns: 25 },
    );
  });
});
