import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { killHard, startInstall, startProxy, streamDocuments, type Install, type Proxy } from './rig';

/**
 * A hub and a lane as two `serve` processes on loopback, the lane talking to the hub through a
 * TCP proxy the test cuts: pairing, catalog and cashiers down, sales up while the link comes and
 * goes, a SIGKILL of the lane mid-push, revocation.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface SyncStatus {
  peers: Array<{ peer: string; role: string; paused: boolean; queued: number; last_error: string | null; last_success_at: string | null; lag_ms: number }>;
}
interface Sale {
  id: string;
  number: string;
  status: string;
  totals: { total_cents: number };
}

async function cashSale(lane: Install, shift: string, code: string, quantity: number): Promise<Sale> {
  const started = await lane.api<Sale>('POST', '/api/pos/sales', { shift, line: { product_code: code, quantity } });
  return lane.api<Sale>('POST', `/api/pos/sales/${started.id}/tenders`, { shift, type: 'cash' }).then((t) => (t as unknown as { sale: Sale }).sale ?? t);
}

const hubOf = async (lane: Install) => (await lane.api<SyncStatus>('GET', '/api/sync/status')).peers.find((p) => p.role === 'hub')!;

describe('a lane and its hub, two processes', () => {
  let hub: Install;
  let lane: Install;
  let proxy: Proxy;
  const laneDir = tempDir();
  const hubDir = tempDir();
  cleanups.push(laneDir.cleanup, hubDir.cleanup);

  it('pairs with a code, gets the hub catalog and cashiers, and a hub cashier signs in on the lane', async () => {
    hub = await startInstall('hub', hubDir.dir);
    cleanups.push(() => hub.proc.stop());
    proxy = await startProxy(hub.url);
    cleanups.push(() => proxy.close());
    await hub.api('POST', '/api/pos/products', { code: 'TEA', description: 'Green tea', price_cents: 450, tax_rate: 13, category: 'Drinks' });
    await hub.api('POST', '/api/pos/cashiers', { name: 'Mina', code: '482913', supervisor: true });
    const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
    expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);

    lane = await startInstall('lane', laneDir.dir, ['--hub', proxy.url, '--pairing-code', code, '--sync-poll-ms', '200']);
    cleanups.push(() => lane.proc.stop());
    // The code is single use.
    const again = await fetch(`${hub.url}/api/sync/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(again.status).toBe(403);

    await until(async () => (await lane.api<{ products: Array<{ code: string }> }>('GET', '/api/pos/products?q=TEA').catch(() => ({ products: [] }))).products.some((p) => p.code === 'TEA'), 'the hub catalog on the lane').catch(async (e) => {
      console.log(JSON.stringify(await lane.api('GET', '/api/sync/status'), null, 1), lane.proc.output());
      throw e;
    });
    await lane.api('POST', '/api/lanes', { laneid: '2', port_path: '/dev/ttyLANEWAYNONE2', name: 'Lane 2' });
    const shift = await lane.api<{ id: string }>('POST', '/api/pos/shifts', { laneid: '2', code: '482913' });
    expect(shift.id).toBeTruthy();
  }, 240_000);

  it('pushes sales made while the link is cut once it is back, each exactly once', async () => {
    const shift = await lane.api<{ id: string }>('POST', '/api/pos/shifts', { laneid: '2', code: '482913' });
    const first = await cashSale(lane, shift.id, 'TEA', 1);
    await until(async () => (await hub.api<Sale>('GET', `/api/pos/sales/${first.id}`).catch(() => undefined))?.status === 'paid', 'the first sale on the hub');

    proxy.cut();
    const offline: Sale[] = [];
    for (let i = 0; i < 5; i++) offline.push(await cashSale(lane, shift.id, 'TEA', i + 1));
    const waiting = await until(async () => {
      const s = await hubOf(lane);
      return s.last_error && s.queued > 0 ? s : undefined;
    }, 'the lane to see the hub gone');
    expect(waiting.lag_ms).toBeGreaterThanOrEqual(0);
    for (const s of offline) expect((await fetch(`${hub.url}/api/pos/sales/${s.id}`, { headers: { Authorization: `Basic ${Buffer.from('HUBTOKEN1:hub-secret-key-1').toString('base64')}` } })).status).toBe(404);

    proxy.restore();
    await until(async () => {
      const s = await hubOf(lane);
      return s.queued === 0 && !s.last_error;
    }, 'the lane to catch up');
    for (const s of offline) expect((await hub.api<Sale>('GET', `/api/pos/sales/${s.id}`)).totals.total_cents).toBe(s.totals.total_cents);
  }, 120_000);

  it('gives a lane credential the sync scope only, and revoking the lane shuts it out', async () => {
    const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '9' });
    const res = await fetch(`${hub.url}/api/sync/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(res.status).toBe(201);
    const grant = (await res.json()) as { token: string; key: string; laneid: string };
    expect(grant.laneid).toBe('9');
    const as = (path: string) => fetch(`${hub.url}${path}`, { headers: { Authorization: `Basic ${Buffer.from(`${grant.token}:${grant.key}`).toString('base64')}` } });
    expect((await as('/api/sync/pull/hub_records?watermark=0&limit=5')).status).toBe(200);
    expect((await as('/api/pos/sales')).status).toBe(403);
    expect((await as('/api/sync/pull/lane_records?watermark=0&limit=5')).status).toBe(404);
    const revoked = await hub.api<{ revoked_at: string | null }>('DELETE', '/api/sync/lanes/9');
    expect(revoked.revoked_at).not.toBeNull();
    expect((await as('/api/sync/pull/hub_records?watermark=0&limit=5')).status).toBe(401);
    const lanes = await hub.api<{ lanes: Array<{ laneid: string; revoked_at: string | null }> }>('GET', '/api/sync/lanes');
    expect(lanes.lanes.map((l) => [l.laneid, l.revoked_at === null])).toEqual([['2', true], ['9', false]]);
  }, 60_000);

  it('tells the event stream when sync state changes, and pauses', async () => {
    const events = await fetch(`${lane.url}/api/events`, { headers: { Authorization: `Basic ${Buffer.from('LANETOKEN1:lane-secret-key-1').toString('base64')}`, accept: 'text/event-stream' } });
    const reader = events.body!.getReader();
    let seen = '';
    const read = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        seen += Buffer.from(value).toString();
        if (seen.includes('sync.status')) return;
      }
    })();
    const paused = await lane.api<{ peers: Array<{ role: string; paused: boolean }> }>('POST', '/api/sync/pause');
    expect(paused.peers.find((p) => p.role === 'hub')!.paused).toBe(true);
    await Promise.race([read, new Promise((r) => setTimeout(r, 10_000))]);
    await reader.cancel();
    expect(seen).toContain('sync.status');
    await lane.api('POST', '/api/sync/resume');
  }, 60_000);

  it('merges a customer edited on both sides field by field, the later edit winning, and records it', async () => {
    const view = (at: Install) => at.api<{ city?: string; telephone?: string }>('GET', '/api/exports/customer/C1').catch(() => undefined);
    await hub.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Ana', city: 'Laval', telephone: '5145550000' });
    await until(async () => (await view(lane))?.city === 'Laval', 'the customer on the lane');
    proxy.cut();
    await lane.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Ana', city: 'Québec', telephone: '5145551111' });
    await new Promise((r) => setTimeout(r, 20));
    await hub.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Ana', city: 'Montréal' });
    proxy.restore();
    await until(async () => (await view(hub))?.telephone === '5145551111', "the lane's phone on the hub");
    await until(async () => (await view(lane))?.city === 'Montréal', "the hub's later city on the lane");
    expect((await view(hub))?.city).toBe('Montréal');
    expect((await view(lane))?.telephone).toBe('5145551111');
    const { resolutions } = await hub.api<{ resolutions: Array<{ identifier: string; lane: string; fields: Array<{ field: string; winner: string; lane_value: unknown; hub_value: unknown }> }> }>('GET', '/api/sync/resolutions');
    expect(resolutions[0]).toMatchObject({ identifier: 'C1', lane: '2', fields: [{ field: 'city', winner: 'hub', lane_value: 'Québec', hub_value: 'Montréal' }] });
  }, 60_000);

  it('loses nothing and doubles nothing when the lane is killed mid-push', async () => {
    const shift = await lane.api<{ id: string }>('POST', '/api/pos/shifts', { laneid: '2', code: '482913' });
    await lane.api('POST', '/api/sync/pause');
    for (let i = 0; i < 30; i++) await cashSale(lane, shift.id, 'TEA', 1 + (i % 3));
    await lane.api('POST', '/api/sync/resume');
    await new Promise((r) => setTimeout(r, 150));
    await killHard(lane);
    lane = await startInstall('lane', laneDir.dir, ['--sync-poll-ms', '200']);
    await until(async () => {
      const s = await hubOf(lane);
      return s.queued === 0 && !s.last_error && !s.paused;
    }, 'the restarted lane to catch up', 60_000);
    await hub.api('POST', '/api/pos/products', { code: 'CAKE', description: 'Cake', price_cents: 700, tax_rate: 13, category: 'Food' });
    await until(async () => (await lane.api<{ products: Array<{ code: string }> }>('GET', '/api/pos/products?q=CAKE')).products.length > 0, 'the new product on the lane');
    await lane.proc.stop();
    await hub.proc.stop();

    const onHub = await streamDocuments(hubDir.dir);
    const onLane = await streamDocuments(laneDir.dir);
    for (const stream of ['lane_records', 'orders', 'transactions', 'hub_records', 'customers']) {
      const a = onHub.get(stream)!;
      const b = onLane.get(stream)!;
      if (stream === 'hub_records') {
        // Down: the lane holds the hub's documents (the signed-in cashier's last sign-in is the lane's own write).
        for (const [id, doc] of a) if (!String(id).startsWith('pos_cashier/')) expect(b.get(id), `${stream} ${id}`).toEqual(doc);
      } else {
        expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
        for (const [id, doc] of b) expect(a.get(id), `${stream} ${id}`).toEqual(doc);
      }
    }
    const sales = [...onLane.get('lane_records')!.values()].filter((d) => d.kind === 'pos_sale');
    expect(sales.length).toBe(36);
  }, 240_000);
});
