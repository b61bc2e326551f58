import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { start, until, type Proc } from '../e2e/processes';
import { startInstall, startProxy, type Install, type Proxy } from '../sync/rig';
import { SocatPair } from './helpers';

/**
 * A lane's card sale refunded on both the hub and the lane (docs/sync.md, "Refunds of a lane's
 * payments"): a hub and a lane as two `serve` processes (the lane paired through a TCP proxy), the
 * lane's terminal a `terminal-sim` on a socat pair. The hub decides what is left of a lane's
 * payment: the lane refunds only what the hub says is left, never while it cannot ask, and the
 * hub keeps its own refunds and the lane's.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface Tx {
  token: string;
  amount_in_cents: number;
  refunded_cents: number;
}
interface GatewayAnswer {
  success: boolean;
  transaction?: string;
  errors?: string[];
}

describe("a lane's card sale refunded on the hub and on the lane", () => {
  let hub: Install;
  let lane: Install;
  let proxy: Proxy;
  let sim: Proc;
  let shift: string;
  const hubDir = tempDir();
  const laneDir = tempDir();
  cleanups.push(hubDir.cleanup, laneDir.cleanup);

  /** A gateway call answered as it is (a refusal is HTTP 500 with its code). */
  const gateway = async (install: Install, action: string, body: Record<string, unknown>): Promise<GatewayAnswer> => {
    const auth = install === hub ? 'HUBTOKEN1:hub-secret-key-1' : 'LANETOKEN1:lane-secret-key-1';
    const res = await fetch(`${install.url}/api/gateway/v1/orders/${action}`, { method: 'POST', headers: { Authorization: `Basic ${Buffer.from(auth).toString('base64')}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as GatewayAnswer;
  };
  const txOn = (install: Install, token: string) => install.api<Tx>('GET', `/api/exports/transaction/${token}`);

  /** A paid card sale of one 3.50 item (no tax) on lane 2, once the hub holds its payment. */
  async function laneCardSale(): Promise<string> {
    return (await laneCardSaleOf()).token;
  }
  async function laneCardSaleOf(): Promise<{ token: string; sale: string }> {
    const sale = await lane.api<{ id: string }>('POST', '/api/pos/sales', { shift, line: { product_code: 'MUG', quantity: 1 } });
    await lane.api('POST', `/api/pos/sales/${sale.id}/tenders`, { shift, type: 'card' });
    const paid = await lane.api<{ status: string; tenders: Array<{ type: string; transaction: string }> }>('GET', `/api/pos/sales/${sale.id}`);
    expect(paid.status).toBe('paid');
    const token = paid.tenders.find((t) => t.type === 'card')!.transaction;
    expect((await txOn(lane, token)).amount_in_cents).toBe(350);
    await until(() => txOn(hub, token).catch(() => undefined), 'the lane payment on the hub');
    return { token, sale: sale.id };
  }

  it('pairs a lane with a terminal to a hub', async () => {
    hub = await startInstall('hub', hubDir.dir, ['--sync-poll-ms', '200']);
    cleanups.push(() => hub.proc.stop());
    proxy = await startProxy(hub.url);
    cleanups.push(() => proxy.close());
    await hub.api('POST', '/api/pos/products', { code: 'MUG', description: 'Mug', price_cents: 350, tax_rate: 0, category: 'Shop' });
    await hub.api('POST', '/api/pos/cashiers', { name: 'Mina', code: '482913', supervisor: true });
    const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
    lane = await startInstall('lane', laneDir.dir, ['--hub', proxy.url, '--pairing-code', code, '--sync-poll-ms', '200']);
    cleanups.push(() => lane.proc.stop());
    const pair = new SocatPair(laneDir.dir, 'lane2');
    await pair.plug();
    cleanups.push(() => pair.unplug());
    sim = start(['terminal-sim', '--', '--port', pair.device, '--pace', 'fast']);
    cleanups.push(() => sim.stop());
    await sim.waitFor(/terminal simulator/, 'the simulator to start');
    await until(async () => (await lane.api<{ products: Array<{ code: string }> }>('GET', '/api/pos/products?q=MUG').catch(() => ({ products: [] }))).products.length > 0, 'the hub catalog on the lane');
    await lane.api('POST', '/api/lanes', { laneid: '2', port_path: pair.host, name: 'Lane 2' });
    await until(async () => (await lane.api<{ last_setup_at: string | null }>('GET', '/api/lanes/2')).last_setup_at !== null, 'lane 2 to connect and be set up');
    shift = (await lane.api<{ id: string }>('POST', '/api/pos/shifts', { laneid: '2', code: '482913' })).id;
  }, 240_000);

  it('refunds on the lane only what the hub left: 350 in all, both refunds kept on the hub', async () => {
    const token = await laneCardSale();
    const hubRefund = await gateway(hub, 'refund', { transaction: token, amount_cents: 175, unique_reference: 'hub-r1' });
    expect(hubRefund.success).toBe(true);

    // The lane's copy knows nothing of the hub's refund; the hub says what is left.
    const all = await gateway(lane, 'refund', { transaction: token, amount_cents: 350, unique_reference: 'lane-r1' });
    expect(all).toMatchObject({ success: false, errors: ['amount_exceeds_refundable'] });
    const rest = await gateway(lane, 'refund', { transaction: token, amount_cents: 175, unique_reference: 'lane-r2' });
    expect(rest.success).toBe(true);
    const more = await gateway(lane, 'refund', { transaction: token, amount_cents: 1, unique_reference: 'lane-r3' });
    expect(more).toMatchObject({ success: false, errors: ['nothing_to_refund'] });
    // A retry of the lane's refund (a lost answer) is answered by it, though nothing is left to claim.
    expect(await gateway(lane, 'refund', { transaction: token, amount_cents: 175, unique_reference: 'lane-r2' })).toMatchObject({ success: true, transaction: rest.transaction });

    // The lane's version of the payment (its refund in it) reaches the hub: the hub's own refund
    // is not overwritten, the two make the whole sale, and nothing more can go back on the hub.
    await until(async () => (await txOn(hub, rest.transaction!).catch(() => undefined)) !== undefined, "the lane's refund on the hub");
    await until(async () => (await txOn(hub, token)).refunded_cents === 350 || undefined, 'the hub copy to count both refunds', 10_000).catch(async (e) => {
      console.log(JSON.stringify(await txOn(hub, token)));
      throw e;
    });
    await until(async () => (await txOn(lane, token)).refunded_cents === 350 || undefined, "the hub's refund on the lane's copy");
    const again = await gateway(hub, 'refund', { transaction: token, amount_cents: 100, unique_reference: 'hub-r2' });
    expect(again).toMatchObject({ success: false, errors: ['nothing_to_refund'] });
    const { exceptions } = await hub.api<{ exceptions: unknown[] }>('GET', '/api/sync/resolutions');
    expect(exceptions).toEqual([]);
  }, 120_000);

  it("gives nothing back while the lane cannot ask its hub, and the hub's refund holds once it can", async () => {
    const token = await laneCardSale();
    await lane.api('POST', '/api/sync/pause');
    try {
      const apart = await gateway(lane, 'refund', { transaction: token, amount_cents: 350, unique_reference: 'lane-p1' });
      expect(apart).toMatchObject({ success: false, errors: ['hub_unreachable'] });
      const voided = await gateway(lane, 'void', { transaction: token });
      expect(voided).toMatchObject({ success: false, errors: ['hub_unreachable'] });
      expect((await gateway(hub, 'refund', { transaction: token, amount_cents: 350, unique_reference: 'hub-p1' })).success).toBe(true);
    } finally {
      await lane.api('POST', '/api/sync/resume');
    }
    await until(async () => (await lane.api<{ peers: Array<{ role: string; last_error: string | null; paused: boolean }> }>('GET', '/api/sync/status')).peers.find((p) => p.role === 'hub' && !p.paused && p.last_error === null), 'the lane linked again');
    // Whether the lane has the hub's refund yet (its own rules refuse) or not (the hub refuses the claim), nothing goes back.
    const refusals = ['nothing_to_refund', 'transaction_has_refunds'];
    const late = await gateway(lane, 'refund', { transaction: token, amount_cents: 100, unique_reference: 'lane-p2' });
    expect(late.success).toBe(false);
    expect(refusals).toContain(late.errors![0]);
    const lateVoid = await gateway(lane, 'void', { transaction: token });
    expect(lateVoid.success).toBe(false);
    expect(refusals).toContain(lateVoid.errors![0]);
    expect((await txOn(hub, token)).refunded_cents).toBe(350);
    // The hub's refund comes down to the lane's copy, and the lane's next version keeps it on the hub.
    await until(async () => (await txOn(lane, token)).refunded_cents === 350 || undefined, "the hub's refund on the lane");
    expect((await txOn(hub, token)).refunded_cents).toBe(350);
  }, 120_000);

  it("counts on the hub a lane's refund whether its claim or its push arrived last", async () => {
    const token = await laneCardSale();
    const laneRefund = await gateway(lane, 'refund', { transaction: token, amount_cents: 300, unique_reference: 'lane-f1' });
    expect(laneRefund.success).toBe(true);
    const hubRefund = await gateway(hub, 'refund', { transaction: token, amount_cents: 100, unique_reference: 'hub-f1' });
    expect(hubRefund).toMatchObject({ success: false, errors: ['amount_exceeds_refundable'] });
    expect((await gateway(hub, 'refund', { transaction: token, amount_cents: 50, unique_reference: 'hub-f2' })).success).toBe(true);
    await until(async () => (await txOn(hub, token)).refunded_cents === 350 || undefined, 'both refunds on the hub', 15_000);
    await until(async () => (await txOn(lane, token)).refunded_cents === 350 || undefined, "the hub's refund on the lane");
  }, 120_000);

  it("brings the hub's refund down to the lane: its copy, its X, and a register refund of only the rest", async () => {
    const { token, sale } = await laneCardSaleOf();
    const xOf = () => lane.api<{ outside: { count: number; total_cents: number }; refunds: { count: number; total_cents: number }; tenders: Array<{ type: string; out_cents: number }> }>('GET', '/api/pos/registers/2/x');
    const before = await xOf();
    expect((await gateway(hub, 'refund', { transaction: token, amount_cents: 175, unique_reference: 'hub-x1' })).success).toBe(true);
    await until(async () => (await txOn(lane, token)).refunded_cents === 175 || undefined, "the hub's refund on the lane's copy");
    const x = await xOf();
    expect(x.outside).toEqual({ count: before.outside.count + 1, total_cents: before.outside.total_cents + 175 });
    expect(x.refunds.count).toBe(before.refunds.count + 1);
    const cardOut = (r: typeof x) => r.tenders.filter((t) => t.type === 'card').reduce((n, t) => n + t.out_cents, 0);
    expect(cardOut(x) - cardOut(before)).toBe(175);

    // The register gives back only what is left, and the hub counts both once.
    const out = await lane.api<{ reversal: { status: string; amount_cents: number } }>('POST', `/api/pos/sales/${sale}/refunds`, { shift, all: true });
    expect(out.reversal).toMatchObject({ status: 'completed', amount_cents: 175 });
    await until(async () => (await txOn(hub, token)).refunded_cents === 350 || undefined, 'both refunds on the hub');
    expect((await txOn(lane, token)).refunded_cents).toBe(350);
    const { exceptions } = await hub.api<{ exceptions: unknown[] }>('GET', '/api/sync/resolutions');
    expect(exceptions).toEqual([]);
  }, 120_000);
});
