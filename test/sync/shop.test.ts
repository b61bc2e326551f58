import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { killHard, startInstall, startProxy, streamDocuments, type Install, type Proxy } from './rig';

/**
 * A shop: a hub and two lanes, three `serve` processes with their own data folders, each lane
 * behind a TCP proxy the test cuts and restores. Random sales on the lanes and catalog and
 * customer changes on the hub (fast-check), links cut in between, and a lane SIGKILLed mid-push;
 * then every store holds the same documents, field by field, and no sale is missing or doubled.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface Sale {
  id: string;
  totals: { total_cents: number };
}
interface Peer {
  role: string;
  queued: number;
  last_error: string | null;
  paused: boolean;
  streams: Array<{ stream: string; checkpoint: number }>;
}

type Op =
  | { t: 'sale'; lane: number; product: number; qty: number }
  | { t: 'price'; product: number; price: number }
  | { t: 'customer'; n: number; city: string }
  | { t: 'laneCustomer'; lane: number; n: number; telephone: string; city: string }
  | { t: 'cut'; lane: number }
  | { t: 'restore'; lane: number };

const PRODUCTS = ['TEA', 'BUN', 'JAM'];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('sale' as const), lane: fc.integer({ min: 0, max: 1 }), product: fc.integer({ min: 0, max: 2 }), qty: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('price' as const), product: fc.integer({ min: 0, max: 2 }), price: fc.integer({ min: 50, max: 5000 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('customer' as const), n: fc.integer({ min: 1, max: 4 }), city: fc.constantFrom('Montréal', 'Québec', 'Laval', 'Gatineau') }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('laneCustomer' as const), lane: fc.integer({ min: 0, max: 1 }), n: fc.integer({ min: 1, max: 4 }), telephone: fc.constantFrom('5145550101', '4185550202', '8195550303'), city: fc.constantFrom('Sherbrooke', 'Lévis') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('cut' as const), lane: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('restore' as const), lane: fc.integer({ min: 0, max: 1 }) }) },
);

const hubPeer = async (lane: Install) => (await lane.api<{ peers: Peer[] }>('GET', '/api/sync/status')).peers.find((p) => p.role === 'hub')!;

describe('a hub and two lanes', () => {
  const dirs = { hub: tempDir(), a: tempDir(), b: tempDir() };
  cleanups.push(dirs.hub.cleanup, dirs.a.cleanup, dirs.b.cleanup);
  let hub: Install;
  const lanes: Install[] = [];
  const proxies: Proxy[] = [];
  const shifts: string[] = [];
  const laneIds = ['2', '3'];
  const sold: string[] = [];

  const startLane = async (i: number, code?: string) => {
    const name = i === 0 ? 'lanea' : 'laneb';
    const dir = i === 0 ? dirs.a.dir : dirs.b.dir;
    lanes[i] = await startInstall(name, dir, [...(code ? ['--hub', proxies[i]!.url, '--pairing-code', code] : []), '--sync-poll-ms', '200']);
  };
  const signIn = async (i: number) => {
    shifts[i] = (await lanes[i]!.api<{ id: string }>('POST', '/api/pos/shifts', { laneid: laneIds[i], code: '482913' })).id;
  };
  const sell = async (i: number, product: string, quantity: number) => {
    const sale = await lanes[i]!.api<Sale>('POST', '/api/pos/sales', { shift: shifts[i], line: { product_code: product, quantity } });
    await lanes[i]!.api('POST', `/api/pos/sales/${sale.id}/tenders`, { shift: shifts[i], type: 'cash' });
    sold.push(sale.id);
  };
  const converged = async () => {
    const hubTop = await hub.api<{ watermark: number }>('GET', '/api/status').catch(() => ({ watermark: 0 }));
    for (const lane of lanes) {
      const p = await hubPeer(lane);
      if (p.queued > 0 || p.last_error) return false;
    }
    return hubTop.watermark >= 0;
  };

  it('starts the hub and pairs two lanes', async () => {
    hub = await startInstall('hub', dirs.hub.dir);
    cleanups.push(() => hub.proc.stop());
    for (const [i, code] of PRODUCTS.entries()) await hub.api('POST', '/api/pos/products', { code, description: code, price_cents: 300 + i * 100, tax_rate: 13, category: 'Shop' });
    await hub.api('POST', '/api/pos/cashiers', { name: 'Mina', code: '482913', supervisor: true });
    for (let n = 1; n <= 4; n++) await hub.api('POST', '/api/imports/customer', { identifier: `C${n}`, name: `Customer ${n}`, city: 'Laval' });
    for (const i of [0, 1]) {
      proxies[i] = await startProxy(hub.url);
      cleanups.push(() => proxies[i]!.close());
      const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: laneIds[i] });
      await startLane(i, code);
      cleanups.push(() => lanes[i]!.proc.stop());
      await until(async () => (await lanes[i]!.api<{ products: unknown[] }>('GET', '/api/pos/products?q=JAM')).products.length > 0, `the catalog on lane ${i}`);
      await until(async () => (await lanes[i]!.api('GET', '/api/exports/customer/C4').catch(() => undefined)) !== undefined, `the customers on lane ${i}`);
      await lanes[i]!.api('POST', '/api/lanes', { laneid: laneIds[i], port_path: `/dev/ttyLANEWAYNONE${i}`, name: `Lane ${laneIds[i]}` });
      await signIn(i);
    }
  }, 300_000);

  it('converges after random sales, catalog and customer changes with links cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 20, maxLength: 35 }), async (ops) => {
        for (const op of ops) {
          if (op.t === 'sale') await sell(op.lane, PRODUCTS[op.product]!, op.qty);
          else if (op.t === 'price') await hub.api('PATCH', `/api/pos/products/${PRODUCTS[op.product]}`, { price_cents: op.price });
          else if (op.t === 'customer') await hub.api('POST', '/api/imports/customer', { identifier: `C${op.n}`, name: `Customer ${op.n}`, city: op.city });
          else if (op.t === 'laneCustomer') await lanes[op.lane]!.api('POST', '/api/imports/customer', { identifier: `C${op.n}`, name: `Customer ${op.n}`, telephone: op.telephone, ...(op.n % 2 ? { city: op.city } : {}) });
          else if (op.t === 'cut') proxies[op.lane]!.cut();
          else proxies[op.lane]!.restore();
        }
        for (const p of proxies) p.restore();
        await until(converged, 'every lane to catch up', 60_000);
      }),
      { numRuns: 2, endOnFailure: true },
    );
  }, 300_000);

  it('keeps every sale once when a lane is killed mid-push, and every store ends with the same documents', async () => {
    await lanes[0]!.api('POST', '/api/sync/pause');
    for (let i = 0; i < 25; i++) await sell(0, PRODUCTS[i % 3]!, 1 + (i % 4));
    await lanes[0]!.api('POST', '/api/sync/resume');
    await new Promise((r) => setTimeout(r, 100));
    await killHard(lanes[0]!);
    await startLane(0);
    await until(converged, 'the restarted lane to catch up', 60_000);
    await hub.api('PATCH', '/api/pos/products/TEA', { price_cents: 999 });
    await hub.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Customer 1', notes: 'last' });
    for (const lane of lanes) {
      await until(async () => (await lane.api<{ products: Array<{ code: string; price_cents: number }> }>('GET', '/api/pos/products?q=TEA')).products.some((p) => p.price_cents === 999), `the last price on ${lane.name}`);
      await until(async () => (await lane.api<{ notes?: string }>('GET', '/api/exports/customer/C1')).notes === 'last', `the last customer edit on ${lane.name}`).catch(async (err: Error) => {
        throw new Error(`${err.message}; its sync status: ${JSON.stringify(await lane.api('GET', '/api/sync/status').catch(() => 'unreadable'))}`);
      });
    }
    // Every lane holds the hub's version of every customer: a lane edit the hub's merge lost to
    // (re-sent after the SIGKILL) makes the hub rewrite its version, which comes down after the
    // last edit above.
    const customer = async (at: Install, n: number) => {
      const c = await at.api<Record<string, unknown>>('GET', `/api/exports/customer/C${n}`);
      return JSON.stringify([c.name, c.telephone, c.city, c.notes]);
    };
    for (const lane of lanes) {
      await until(async () => {
        for (let n = 1; n <= 4; n++) if ((await customer(lane, n)) !== (await customer(hub, n))) return false;
        return true;
      }, `every customer on ${lane.name} as on the hub`, 60_000);
    }
    await Promise.all([...lanes.map((l) => l.proc.stop()), hub.proc.stop()]);

    const [onHub, onA, onB] = await Promise.all([streamDocuments(dirs.hub.dir), streamDocuments(dirs.a.dir), streamDocuments(dirs.b.dir)]);
    const withoutSignIn = (doc: Record<string, unknown> | undefined) => {
      if (!doc || doc.kind !== 'pos_cashier') return doc;
      const { last_sign_in_at: _s, ...data } = doc.data as Record<string, unknown>;
      return { ...doc, data };
    };
    for (const stream of ['lane_records', 'orders', 'transactions']) {
      const hubDocs = onHub.get(stream)!;
      const union = new Map([...onA.get(stream)!, ...onB.get(stream)!]);
      expect(union.size).toBe(onA.get(stream)!.size + onB.get(stream)!.size);
      expect([...hubDocs.keys()].sort()).toEqual([...union.keys()].sort());
      for (const [id, doc] of union) expect(hubDocs.get(id), `${stream} ${id}`).toEqual(doc);
    }
    // Customers are edited everywhere: all three hold the same set, field by field.
    for (const lane of [onA, onB]) expect(lane.get('customers')).toEqual(onHub.get('customers'));
    for (const stream of ['hub_records']) {
      for (const lane of [onA, onB]) {
        for (const [id, doc] of onHub.get(stream)!) expect(withoutSignIn(lane.get(stream)!.get(id)), `${stream} ${id}`).toEqual(withoutSignIn(doc));
      }
    }
    const sales = [...onHub.get('lane_records')!.values()].filter((d) => d.kind === 'pos_sale');
    expect(sales.map((s) => s.key).sort()).toEqual([...sold].sort());
    const total = (docs: Iterable<Record<string, unknown>>) => [...docs].filter((d) => d.kind === 'pos_sale').length;
    expect(total(onA.get('lane_records')!.values()) + total(onB.get('lane_records')!.values())).toBe(sold.length);
    const paid = (docs: Iterable<Record<string, unknown>>) => [...docs].reduce((n, d) => n + Number((d.data as { amount_cents?: number }).amount_cents ?? 0), 0);
    expect(paid(onHub.get('orders')!.values())).toBe(paid(onA.get('orders')!.values()) + paid(onB.get('orders')!.values()));
    expect(paid(onHub.get('orders')!.values())).toBeGreaterThan(0);
  }, 300_000);
});
