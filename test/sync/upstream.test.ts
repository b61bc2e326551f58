import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { killHard, startInstall, startProxy, type Install, type Proxy } from './rig';
import { differences, counts, exported, type Api } from './upstream-compare';

/**
 * A hub and its upstream service as two `serve` processes on loopback (the upstream another
 * Laneway), the hub reaching it through a TCP proxy the test cuts: records made on both sides end
 * up on both, field by field, each once; a cut link and a SIGKILL of the hub mid-pull resume from
 * the checkpoints; the upstream's API key is sealed at rest.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface Peer {
  peer: string;
  role: string;
  paused: boolean;
  queued: number;
  lag_ms: number;
  last_error: string | null;
  last_success_at: string | null;
  streams: Array<{ stream: string; checkpoint: number }>;
}

/** An order as both sides must hold it: what the order import sets (not each side's watermark, times, transactions). */
async function orderOn(i: Install, identifier: string): Promise<Record<string, unknown> | null> {
  const res = await fetch(`${i.url}/api/exports/order/${identifier}`, { headers: { authorization: `Basic ${Buffer.from(i.name === 'upstream' ? 'UPSTREAMTOKEN1:upstream-secret-key-1' : 'HUBTOKEN1:hub-secret-key-1').toString('base64')}` } });
  if (res.status === 404) return null;
  const { watermark: _w, created_at: _c, updated_at: _u, transactions: _t, ...rest } = (await res.json()) as Record<string, unknown>;
  return rest;
}

const apiOf = (i: Install): Api => (method, path) => i.api(method, path);
const upstreamPeer = async (hub: Install) => (await hub.api<{ peers: Peer[] }>('GET', '/api/sync/status')).peers.find((p) => p.peer === 'upstream');
const agree = (hub: Install, upstream: Install, what: string, ms = 60_000) =>
  until(async () => (await differences(apiOf(hub), apiOf(upstream))).length === 0, what, ms).catch(async (e) => {
    console.log((await differences(apiOf(hub), apiOf(upstream))).slice(0, 20), JSON.stringify(await upstreamPeer(hub), null, 1), hub.proc.output().slice(-3000));
    throw e;
  });

/** Every file of a data folder, as text: what a copy of the folder would give away. */
function folderText(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'keys') continue;
    out += statSync(path).isDirectory() ? folderText(path) : readFileSync(path).toString('latin1');
  }
  return out;
}

describe('a hub and its upstream service, two processes', () => {
  let upstream: Install;
  let hub: Install;
  let proxy: Proxy;
  const hubDir = tempDir();
  const upDir = tempDir();
  cleanups.push(hubDir.cleanup, upDir.cleanup);
  const upCreds = { token: 'UPSTREAMTOKEN1', key: 'upstream-secret-key-1' };
  /** The request lines the hub sent its upstream, in order. */
  const requests: string[] = [];
  const invoicePulls = () => requests.filter((r) => r.startsWith('GET /api/exports/invoices?')).map((r) => Number(new URL(r.slice(4), 'http://x').searchParams.get('watermark')));

  it('pulls the upstream records and pushes its own until both hold the same, each once', async () => {
    // The hub polls every 200 ms here (5 s by default): beyond the default 1500 requests a minute.
    upstream = await startInstall('upstream', upDir.dir, ['--rate-limit', '100000'], upCreds);
    cleanups.push(() => upstream.proc.stop());
    proxy = await startProxy(upstream.url, { tap: (chunk) => requests.push(...(chunk.toString('latin1').match(/^(GET|POST|PATCH) \S+/gm) ?? [])) });
    cleanups.push(() => proxy.close());
    hub = await startInstall('hub', hubDir.dir, ['--sync-poll-ms', '200']);
    cleanups.push(() => hub.proc.stop());

    await upstream.api('POST', '/api/imports/customer', { identifier: 'UP1', name: 'Upstream One', email: 'one@up.test', city: 'Laval', credit_limit_cents: 100000, tags: 'a;b' });
    await upstream.api('POST', '/api/imports/invoice', { number: 'UINV1', customer_identifier: 'UP1', date: '2026-02-01', due_date: '2026-03-01', line_item_attributes: [{ description: 'Box', quantity: 3, unit_cost_cents: 1250 }], subtotal_tax1: 488 });
    await upstream.api('POST', '/api/imports/payment', { identifier: 'UPAY1', amount_cents: 2000, date: '2026-02-10', invoice_number: 'UINV1', customer_identifier: 'UP1', external_payment_type: 'cheque', external_payment_number: '118' });
    await hub.api('POST', '/api/imports/customer', { identifier: 'HUB1', name: 'Hub One', first_name: 'Ana', last_name: 'Lima', country: 'CA', province: 'QC' });
    await hub.api('POST', '/api/imports/invoice', { number: 'HINV1', customer_identifier: 'HUB1', amount: 9900, date: '2026-02-03', shipping_name: 'Dock 4', shipping_city: 'Quebec' });
    await hub.api('POST', '/api/imports/order', { identifier: 'HORD1', number: '2-00000001', currency: 'CAD', amount_cents: 1130, date: '2026-02-05', attributes: { pos_lane: '2' }, order_items: [{ description: 'Green tea', quantity: 2, unit_cost_cents: 500, amount_cents: 1000, tax_amount_cents: 130, product_code: 'TEA' }] });
    await hub.api('POST', '/api/imports/payment', { identifier: 'HPAY1', amount_cents: 4000, date: '2026-02-04', invoice_number: 'HINV1', customer_identifier: 'HUB1' });

    const set = await hub.api<{ url: string; token: string; key?: string }>('PUT', '/api/sync/upstream', { url: proxy.url, ...upCreds });
    expect(set).toMatchObject({ url: proxy.url, token: upCreds.token });
    expect(JSON.stringify(set)).not.toContain(upCreds.key);
    expect(JSON.stringify(await hub.api('GET', '/api/sync/upstream'))).not.toContain(upCreds.key);

    await agree(hub, upstream, 'hub and upstream to agree');
    expect(await counts(apiOf(hub))).toEqual({ customers: 2, invoices: 2, payments: 2 });
    expect(await counts(apiOf(upstream))).toEqual({ customers: 2, invoices: 2, payments: 2 });
    // Field by field, balances included: the upstream computed the same owing from the same payments.
    expect((await upstream.api<{ owing_cents: number; amount_cents: number }>('GET', '/api/exports/invoice/HINV1'))).toMatchObject({ amount_cents: 9900, owing_cents: 5900 });

    await until(async () => (await upstreamPeer(hub))?.last_success_at != null, 'a last success');
    const peer = (await upstreamPeer(hub))!;
    expect(peer).toMatchObject({ role: 'upstream', url: proxy.url, paused: false, last_error: null });
    expect(peer.streams.map((s) => s.stream)).toEqual(['customers', 'invoices', 'payments', 'orders']);
    // Orders (the lanes' sales on a hub) go up by the order import, without their transactions.
    await until(async () => (await orderOn(upstream, 'HORD1')) !== null, 'the order upstream');
    expect(await orderOn(upstream, 'HORD1')).toEqual(await orderOn(hub, 'HORD1'));
    await until(async () => (await upstreamPeer(hub))!.streams.every((s) => s.checkpoint > 0), 'every stream to have a checkpoint');
    // Paused, it stays paused; resumed, it goes on.
    expect((await hub.api<{ peers: Peer[] }>('POST', '/api/sync/pause')).peers.find((p) => p.peer === 'upstream')).toMatchObject({ paused: true });
    await hub.api('POST', '/api/imports/customer', { identifier: 'HUB3', name: 'Made while paused' });
    await new Promise((r) => setTimeout(r, 800));
    expect((await exported(apiOf(upstream), 'customers')).has('HUB3')).toBe(false);
    expect((await upstreamPeer(hub))).toMatchObject({ paused: true, queued: expect.any(Number) });
    expect((await upstreamPeer(hub))!.queued).toBeGreaterThan(0);
    expect((await hub.api<{ upstream: { paused: boolean } }>('GET', '/api/sync/upstream')).upstream.paused).toBe(true);
    expect((await hub.api<{ peers: Peer[] }>('POST', '/api/sync/resume')).peers.find((p) => p.peer === 'upstream')).toMatchObject({ paused: false });
    await until(async () => (await exported(apiOf(upstream), 'customers')).has('HUB3'), 'the customer made while paused upstream');
    // The key is sealed: neither the store nor its logs hold it in clear.
    expect(folderText(hubDir.dir)).not.toContain(upCreds.key);
  }, 120_000);

  it('queues while the link is cut, says so, and carries edits made on both sides once it is back', async () => {
    proxy.cut();
    await hub.api('POST', '/api/imports/customer', { identifier: 'HUB2', name: 'Made while apart', email: 'apart@hub.test' });
    await hub.api('POST', '/api/imports/invoice', { number: 'UINV1', customer_identifier: 'UP1', notes_text: 'Edited on the hub', line_item_attributes: [{ number: '1', description: 'Box', quantity: 4, unit_cost_cents: 1250 }], replace_line_items: true });
    await hub.api('PATCH', '/api/imports/order', { identifier: 'HORD1', billing_name: 'Walk-in', attributes: { pos_lane: '2', note: 'updated' } });
    await hub.api('POST', '/api/imports/payment', { identifier: 'HPAY2', amount_cents: 1500, date: '2026-02-12', invoice_number: 'UINV1', customer_identifier: 'UP1' });
    await upstream.api('POST', '/api/imports/customer', { identifier: 'HUB1', name: 'Hub One Renamed', telephone: '514-555-0101' });
    // The same customer edited on both sides while apart: merged field by field, the hub's edit
    // winning the field both changed (telephone), each side's own change kept (email, city).
    await hub.api('POST', '/api/imports/customer', { identifier: 'UP1', name: 'Upstream One', telephone: '450-555-0111', email: 'one@hub.test' });
    await upstream.api('POST', '/api/imports/customer', { identifier: 'UP1', name: 'Upstream One', telephone: '450-555-0222', city: 'Montreal' });
    await upstream.api('POST', '/api/imports/invoice', { number: 'UINV2', customer_identifier: 'UP2', customer_name: 'Upstream Two', amount: 30000, date: '2026-02-15' });
    await upstream.api('POST', '/api/imports/payment', { identifier: 'UPAY2', amount_cents: 10000, date: '2026-02-16', invoice_number: 'UINV2', customer_identifier: 'UP2' });

    await until(async () => {
      const p = await upstreamPeer(hub);
      return !!p?.last_error && p.queued > 0;
    }, 'the hub to report the link down with changes queued', 30_000);

    proxy.restore();
    await agree(hub, upstream, 'the edits of both sides on both');
    expect(await upstream.api('GET', '/api/exports/customer/HUB1')).toMatchObject({ name: 'Hub One Renamed', telephone: '514-555-0101' });
    expect(await hub.api('GET', '/api/exports/customer/HUB1')).toMatchObject({ name: 'Hub One Renamed', telephone: '514-555-0101' });
    for (const side of [upstream, hub]) expect(await side.api('GET', '/api/exports/customer/UP1')).toMatchObject({ telephone: '450-555-0111', email: 'one@hub.test', city: 'Montreal' });
    const { resolutions } = await hub.api<{ resolutions: Array<{ identifier: string; lane: string; fields: Array<{ field: string; lane_value: unknown; hub_value: unknown; winner: string }> }> }>('GET', '/api/sync/resolutions');
    const merged = resolutions.find((r) => r.identifier === 'UP1' && r.lane === 'upstream');
    expect(merged?.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'telephone', lane_value: '450-555-0222', hub_value: '450-555-0111', winner: 'hub' }),
        expect.objectContaining({ field: 'email', hub_value: 'one@hub.test', winner: 'hub' }),
        expect.objectContaining({ field: 'city', lane_value: 'Montreal', hub_value: 'Laval', winner: 'upstream' }),
      ]),
    );
    expect(await upstream.api('GET', '/api/exports/invoice/UINV1')).toMatchObject({ notes_text: 'Edited on the hub', amount_cents: 5488, owing_cents: 5488 - 2000 - 1500 });
    expect(await counts(apiOf(upstream))).toEqual({ customers: 5, invoices: 3, payments: 4 });
    await until(async () => (await upstreamPeer(hub))?.last_error === null, 'the error to clear');
    await until(async () => (await orderOn(upstream, 'HORD1'))?.billing_name === 'Walk-in', 'the order update upstream');
    expect(await orderOn(upstream, 'HORD1')).toEqual(await orderOn(hub, 'HORD1'));
    expect((await upstream.api<{ orders: unknown[] }>('GET', '/api/exports/orders?list=true&limit=2500')).orders).toHaveLength(1);

    // Settled: once equal, nothing goes back and forth (the watermarks stop moving on both sides).
    const top = async (i: Install) => {
      const marks = await Promise.all(['customers', 'invoices', 'payments'].map(async (e) => (await i.api<Record<string, Array<{ watermark: number }>>>('GET', `/api/exports/${e}?list=true&limit=2500`))[e]!.map((r) => r.watermark)));
      return Math.max(0, ...marks.flat());
    };
    await new Promise((r) => setTimeout(r, 1500));
    const before = [await top(hub), await top(upstream)];
    await new Promise((r) => setTimeout(r, 1500));
    expect([await top(hub), await top(upstream)]).toEqual(before);
  }, 120_000);

  it('resumes from its checkpoint after a SIGKILL mid-pull: every record once, field by field', async () => {
    const N = 600;
    for (let i = 0; i < N; i += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, N - i) }, (_, j) => {
          const n = i + j;
          return upstream.api('POST', '/api/imports/invoice', { number: `BULK${n}`, customer_identifier: `BC${n % 50}`, customer_name: `Bulk customer ${n % 50}`, amount: 1000 + n, date: '2026-03-01' });
        }),
      );
    }
    const invoicesOn = async (i: Install) => (await exported(apiOf(i), 'invoices').catch(() => new Map())).size;
    await until(async () => (await invoicesOn(hub)) > 3, 'the pull to start', 60_000);
    const atKillOnHub = await invoicesOn(hub);
    await killHard(hub);
    const pullsBefore = invoicePulls().length;
    const checkpointBefore = Math.max(...invoicePulls());
    expect(atKillOnHub).toBeLessThan(3 + N);
    const atKill = (await exported(apiOf(upstream), 'invoices')).size;
    expect(atKill).toBe(3 + N);

    hub = await startInstall('hub', hubDir.dir, ['--sync-poll-ms', '200']);
    cleanups.push(() => hub.proc.stop());
    await agree(hub, upstream, 'the hub to finish the pull after its restart', 120_000);
    // It resumed from its persisted checkpoint: its first pull after the restart did not start over from 0.
    const after = invoicePulls().slice(pullsBefore);
    expect(after[0]).toBeGreaterThan(0);
    expect(after[0]).toBeLessThanOrEqual(checkpointBefore);
    expect(await counts(apiOf(hub))).toEqual({ customers: 55, invoices: 3 + N, payments: 4 });
    expect(await counts(apiOf(upstream))).toEqual({ customers: 55, invoices: 3 + N, payments: 4 });
  }, 300_000);

  it('carries yen and dinar amounts in their own minor units, not as cents', async () => {
    for (const [cur, amount, paid] of [['JPY', 12_345, 20_000], ['KWD', 12_345, 20_000]] as const) {
      await upstream.api('POST', '/api/imports/invoice', { number: `FX-${cur}`, customer_identifier: `FX${cur}`, currency: cur, amount, subtotal_tax1: 1005, date: '2026-03-01' });
      await upstream.api('POST', '/api/imports/payment', { identifier: `FXP-${cur}`, currency: cur, amount_cents: paid, invoice_number: `FX-${cur}`, external_payment_type: 'wire' });
    }
    await agree(hub, upstream, 'the foreign-currency payments on both sides');
    for (const cur of ['JPY', 'KWD']) {
      const onHub = await hub.api<{ payment_amount: string; unapplied_amount: string }>('GET', `/api/exports/payment/FXP-${cur}`);
      expect(onHub).toMatchObject({ payment_amount: cur === 'JPY' ? '20000' : '20.000', unapplied_amount: cur === 'JPY' ? '7655' : '7.655' });
      expect(await hub.api('GET', `/api/exports/invoice/FX-${cur}`)).toMatchObject({ amount_cents: 12_345, owing_cents: 0, subtotal_tax1: cur === 'JPY' ? '¥1,005' : expect.stringMatching(/^KWD\s1\.005$/) });
    }
  }, 120_000);
});
