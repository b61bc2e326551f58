/**
 * The live parts of the sync benchmark (bench/sync.ts runs them):
 *
 * - steady-state lag: a hub and L lane `serve` processes, real register sales (start + cash
 *   tender over HTTP) at R sales/s spread over the lanes; the lag of a sale is from the lane's
 *   answer to its tender (the paid sale committed) to the hub's last `pos_sale.synced` event for
 *   it on the hub's event stream (the paid version visible on the hub). Baseline, same run: the
 *   lanes' own commit time for the tender call, and an HTTP round trip to the hub.
 * - central ingest: 10 hubs' worth of sales (10 publishers, subjects `laneway.shop.hub-N.*`, the
 *   hubs' message ids, as fast as JetStream takes them) through a real nats-server into a central
 *   `serve` that has finished starting; beside the bare JetStream fetch + ack rate of the same messages and the raw import of
 *   the same documents (no NATS), in the same run.
 */
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, AckPolicy } from 'nats';
import { createEngine, storeLayouts } from '../src/engine';
import { openDataStore } from '../src/store';
import { createLogger } from '../src/engine/logger';
import { centralDocument } from '../src/engine/sync/chain-keys';
import { CHAIN_STREAM, ensureChainStream } from '../src/engine/sync/jetstream';
import { streamNamed, type SyncDoc } from '../src/engine/sync/streams';
import { startInstall, type Install } from '../test/sync/rig';
import { natsServers, startNats } from '../test/sync/nats';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
};
const ms = (v: number) => `${Math.round(v)} ms`;

/** Follows an install's event stream; `last` holds the arrival time of each key's last event of `type`. */
function follow(install: Install, type: string): { last: Map<string, number>; stop(): void } {
  const last = new Map<string, number>();
  const abort = new AbortController();
  const auth = `Basic ${Buffer.from(`${install.name.toUpperCase()}TOKEN1:${install.name}-secret-key-1`).toString('base64')}`;
  void (async () => {
    const res = await fetch(`${install.url}/api/events`, { headers: { authorization: auth }, signal: abort.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        const e = JSON.parse(data.slice(6)) as { type: string; key: string };
        if (e.type === type) last.set(e.key, performance.now());
      }
    }
  })().catch(() => undefined);
  return { last, stop: () => abort.abort() };
}

async function startLane(hub: Install, laneid: string, dir: string): Promise<{ lane: Install; shift: string }> {
  const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid });
  const lane = await startInstall(`lane${laneid}`, dir, ['--hub', hub.url, '--pairing-code', code, '--sync-poll-ms', '1000']);
  for (;;) {
    const found = await lane.api<{ products: Array<{ code: string }> }>('GET', '/api/pos/products?q=TEA').catch(() => ({ products: [] }));
    if (found.products.some((p) => p.code === 'TEA')) break;
    await sleep(250);
  }
  await lane.api('POST', '/api/lanes', { laneid, port_path: `/dev/ttyLANEWAYNONE${laneid}`, name: `Lane ${laneid}` });
  const shift = await lane.api<{ id: string }>('POST', '/api/pos/shifts', { laneid, code: '482913' });
  return { lane, shift: shift.id };
}

export async function measureLag(root: string, options: { lanes: number; rate: number; seconds: number }): Promise<void> {
  console.log(`steady-state lag: ${options.rate} sales/s over ${options.lanes} lanes for ${options.seconds} s (real register sales, lane → hub)`);
  const hub = await startInstall('hub', join(root, 'lag-hub'));
  const installs: Install[] = [hub];
  try {
    await hub.api('POST', '/api/pos/products', { code: 'TEA', description: 'Green tea', price_cents: 450, tax_rate: 13, category: 'Drinks' });
    await hub.api('POST', '/api/pos/cashiers', { name: 'Mina', code: '482913' });
    const lanes: Array<{ lane: Install; shift: string }> = [];
    // Two at a time: ten installs starting at once on two cores time each other out.
    for (let i = 0; i < options.lanes; i += 2) {
      const ids = [i, i + 1].filter((k) => k < options.lanes).map((k) => String(k + 2));
      const started = await Promise.all(ids.map((id) => startLane(hub, id, join(root, `lag-lane${id}`))));
      for (const s of started) {
        installs.push(s.lane);
        lanes.push(s);
      }
    }
    const events = follow(hub, 'pos_sale.synced');
    await sleep(3000);
    const commits: Array<{ id: string; at: number; took: number }> = [];
    const perLane = options.rate / options.lanes;
    const t0 = performance.now();
    await Promise.all(
      lanes.map(async ({ lane, shift }, k) => {
        const count = Math.round(perLane * options.seconds);
        for (let n = 0; n < count; n++) {
          const due = t0 + (k / options.rate) * 1000 + (n / perLane) * 1000;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          const started = performance.now();
          const sale = await lane.api<{ id: string }>('POST', '/api/pos/sales', { shift, line: { product_code: 'TEA', quantity: 1 } });
          await lane.api('POST', `/api/pos/sales/${sale.id}/tenders`, { shift, type: 'cash' });
          const at = performance.now();
          commits.push({ id: sale.id, at, took: at - started });
        }
      }),
    );
    const achieved = commits.length / ((performance.now() - t0) / 1000);
    // The last versions to arrive: wait until every sale has been seen and nothing came for 3 s.
    for (let quiet = 0; quiet < 6; ) {
      const before = [...events.last.values()].reduce((a, b) => Math.max(a, b), 0);
      await sleep(500);
      const after = [...events.last.values()].reduce((a, b) => Math.max(a, b), 0);
      quiet = commits.every((c) => events.last.has(c.id)) && after === before ? quiet + 1 : 0;
    }
    events.stop();
    const lags = commits.map((c) => events.last.get(c.id)! - c.at);
    const rtts: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await hub.api('GET', '/api/status');
      rtts.push(performance.now() - t);
    }
    const took = commits.map((c) => c.took);
    console.log(`  ${commits.length} sales at ${achieved.toFixed(1)} sales/s achieved`);
    console.log(`  lag, lane commit → visible on the hub: p50 ${ms(pct(lags, 50))}, p99 ${ms(pct(lags, 99))}, max ${ms(Math.max(...lags))}`);
    console.log(`  baseline, same run: the lane's own sale (start + tender calls) p50 ${ms(pct(took, 50))}, p99 ${ms(pct(took, 99))}; an HTTP round trip to the hub p50 ${ms(pct(rtts, 50))}, p99 ${ms(pct(rtts, 99))}`);
    console.log(`  lag p50 / the lane's own sale p50: ${(pct(lags, 50) / pct(took, 50)).toFixed(2)}×`);
  } finally {
    await Promise.all(installs.map((i) => i.proc.stop()));
  }
}

function hubSale(hub: number, n: number): SyncDoc {
  const key = `H${hub}S${String(n).padStart(8, '0')}`;
  return { id: `pos_sale/${key}`, kind: 'pos_sale', key, ref: `2/${String(n).padStart(8, '0')}`, watermark: n + 1, data: { id: key, number: `2-${String(n + 1).padStart(8, '0')}`, laneid: '2', status: 'paid', currency: 'CAD', lines: [{ line: 1, product_code: 'TEA', quantity: 1, total_cents: 508 }], tenders: [{ type: 'cash', amount_cents: 508, status: 'approved' }] } } as unknown as SyncDoc;
}

export async function measureCentral(root: string, options: { hubs: number; perHub: number }): Promise<void> {
  const total = options.hubs * options.perHub;
  console.log(`central ingest: ${options.hubs} hubs × ${options.perHub.toLocaleString('en')} sales through NATS JetStream (a real nats-server), consumed by a central serve`);
  const cleanups: Array<() => unknown> = [];
  try {
    const servers = natsServers(await startNats(join(root, 'nats'), 1, cleanups));
    const setup = await connect({ servers, waitOnFirstConnect: true });
    await ensureChainStream(setup, 1);
    // The central install runs (started, settled) when the hubs publish.
    const central = await startInstall('central', join(root, 'central'), ['--nats', servers.join(','), '--chain-role', 'central', '--shop', 'hq']);
    cleanups.push(() => central.proc.stop());
    await sleep(5000);
    const base = (await central.api<{ watermark: number }>('GET', '/api/status')).watermark;

    // The hubs publish (one connection each, as ten hubs would), as fast as JetStream takes it.
    const tp = performance.now();
    const publishing = Promise.all(
      Array.from({ length: options.hubs }, async (_, h) => {
        const nc = await connect({ servers, waitOnFirstConnect: true });
        const js = nc.jetstream();
        for (let at = 0; at < options.perHub; at += 500) {
          await Promise.all(Array.from({ length: Math.min(500, options.perHub - at) }, (_, k) => {
            const doc = hubSale(h, at + k);
            return js.publish(`laneway.shop.hub-${h}.lane_records`, JSON.stringify(doc), { msgID: `hub-${h}:${doc.id}:${doc.watermark}` });
          }));
        }
        await nc.drain();
      }),
    ).then(() => (performance.now() - tp) / 1000);
    let first: { t: number; w: number } | undefined;
    let last = { t: performance.now(), w: base };
    while (last.w - base < total) {
      await sleep(100);
      const w = (await central.api<{ watermark: number }>('GET', '/api/status')).watermark;
      const t = performance.now();
      if (!first && w > base) first = { t, w };
      if (w > last.w) last = { t, w };
      else if (t - last.t > 60_000) {
        const logs = readdirSync(join(root, 'central', 'logs')).map((f) => readFileSync(join(root, 'central', 'logs', f), 'utf8')).join('\n');
        throw new Error(`the central install stopped at ${last.w - base} of ${total} documents:\n${logs.slice(-3000)}`);
      }
    }
    const publishS = await publishing;
    const centralRate = first && last.t > first.t ? (last.w - first.w) / ((last.t - first.t) / 1000) : NaN;
    await central.proc.stop();

    // Baseline 1: the bare JetStream fetch + ack of the same messages (no store).
    const jsm = await setup.jetstreamManager();
    await jsm.consumers.add(CHAIN_STREAM, { durable_name: 'bench-bare', ack_policy: AckPolicy.Explicit, max_ack_pending: 10_000 });
    const consumer = await setup.jetstream().consumers.get(CHAIN_STREAM, 'bench-bare');
    const tb = performance.now();
    for (let got = 0; got < total; ) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 1000 });
      for await (const m of batch) {
        m.json();
        m.ack();
        got += 1;
      }
    }
    const bareS = (performance.now() - tb) / 1000;
    await setup.drain();

    // Baseline 2: the raw import of the same documents, keyed as the central keys them, no NATS.
    const stream = streamNamed('lane_records')!;
    const docs: SyncDoc[] = [];
    for (let h = 0; h < options.hubs; h++) for (let n = 0; n < options.perHub; n++) docs.push(centralDocument(`hub-${h}`, stream, hubSale(h, n)));
    const dir = join(root, 'central-raw');
    const store = await openDataStore({ directory: dir, layouts: storeLayouts });
    const engine = await createEngine({ store, logger: createLogger({ directory: join(dir, 'logs'), level: 'warn' }), deferFirstStart: true });
    const ti = performance.now();
    for (let at = 0; at < docs.length; at += 500) {
      await engine.core.mutate(async (tx) => {
        for (const doc of docs.slice(at, at + 500)) await tx.put('records', doc, { type: 'pos_sale.synced', entity: 'pos_sale', key: String(doc.key) });
      });
    }
    const rawS = (performance.now() - ti) / 1000;
    await engine.close();

    console.log(`  published by the ${options.hubs} hubs in ${publishS.toFixed(2)} s (${Math.round(total / publishS).toLocaleString('en')} msgs/s), while the central took them in`);
    console.log(`  central ingest: ${Math.round(centralRate).toLocaleString('en')} docs/s (${total.toLocaleString('en')} documents)`);
    console.log(`  baseline, same run: bare JetStream fetch + ack ${Math.round(total / bareS).toLocaleString('en')} msgs/s; raw import of the same documents ${Math.round(total / rawS).toLocaleString('en')} docs/s`);
    console.log(`  central ingest / raw import: ${(centralRate / (total / rawS)).toFixed(2)}×`);
  } finally {
    for (const c of cleanups.reverse()) await c();
  }
}
