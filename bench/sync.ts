/**
 * Sync benchmark, issue 20's three figures, each beside a baseline measured in the same run:
 *
 * 1. catch-up: N sales a lane made while apart from its hub, pushed lane → hub by the real
 *    replication (two `serve` processes on loopback, RxDB's replication protocol over HTTP),
 *    beside the raw export + import of the same records (read every document from the lane's
 *    store, write them into a new store in units of 1,000: no HTTP, no replication). Target:
 *    100,000 sales under 30 s.
 * 2. steady-state lag p50/p99 from a sale's commit on a lane to its visibility on the hub, at
 *    50 sales/s spread over 10 lanes (bench/sync-live.ts).
 * 3. central ingest rate through NATS JetStream from 10 hubs (bench/sync-live.ts).
 *
 *   npm run bench:sync                                  # all three, 20,000 sales
 *   npm run bench:sync -- --sales 100000 --parts catchup
 *   npm run bench:sync -- --parts lag,central --lanes 10 --rate 50 --seconds 20 --hubs 10 --per-hub 2000
 *   npm run bench:sync -- --sales 10000 --parts catchup --cpu-prof /tmp/lw-prof
 *
 * --cpu-prof writes the catch-up hub's and lane's V8 CPU profiles (.cpuprofile) into DIR/hub and
 * DIR/lane when they stop (bench/cpu-profile.mjs). The catch-up also reports each install's CPU
 * seconds during the replication, steadier than times on a shared machine.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { createEngine, storeLayouts } from '../src/engine';
import { openDataStore } from '../src/store';
import { createLogger } from '../src/engine/logger';
import { changesSince, SYNC_STREAMS } from '../src/engine/sync/streams';
import { startInstall } from '../test/sync/rig';
import { arg, strArg } from './args';
import { measureCentral, measureLag } from './sync-live';

const sales = arg('sales', 20_000);
const profileDir = strArg('cpu-prof');
const here = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'laneway-bench-sync-'));
const hubDir = join(root, 'hub');
const laneDir = join(root, 'lane');

async function openEngine(dir: string) {
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  return createEngine({ store, logger: createLogger({ directory: join(dir, 'logs'), level: 'warn' }), deferFirstStart: true });
}

/** N paid sales of lane 2 with their orders, written straight into the lane's store. */
async function seedLane(n: number): Promise<void> {
  const engine = await openEngine(laneDir);
  for (let at = 0; at < n; at += 1000) {
    await engine.core.mutate(async (tx) => {
      for (let i = at; i < Math.min(n, at + 1000); i++) {
        const id = `BENCH${String(i).padStart(10, '0')}`;
        const number = `2-${String(i + 1).padStart(8, '0')}`;
        await tx.put('records', { id: `pos_sale/${id}`, kind: 'pos_sale', key: id, ref: `2/${String(i + 1).padStart(8, '0')}`, data: { id, number, laneid: '2', status: 'paid', currency: 'CAD', lines: [{ line: 1, product_code: 'TEA', quantity: 1, total_cents: 508 }], tenders: [{ type: 'cash', amount_cents: 508, status: 'approved' }], created_at: tx.at, paid_at: tx.at } }, { type: 'pos_sale.created', entity: 'pos_sale', key: id });
        await tx.put('orders', { id, published: true, data: { identifier: id, number, currency: 'CAD', amount_cents: 508, draft: false, attributes: { pos_lane: '2' } } }, { type: 'order.created', entity: 'order', key: id });
      }
    });
  }
  await engine.close();
}

async function rawCopy(): Promise<{ exportMs: number; importMs: number; docs: number }> {
  const source = await openEngine(laneDir);
  const t0 = performance.now();
  const docs: Array<{ collection: string; doc: Record<string, unknown> }> = [];
  for (const stream of SYNC_STREAMS.filter((s) => s.direction === 'up')) {
    for (const d of await changesSince(source.core, stream, 0, 10_000_000)) docs.push({ collection: stream.collection, doc: JSON.parse(JSON.stringify(d)) as Record<string, unknown> });
  }
  const exportMs = performance.now() - t0;
  await source.close();
  const target = await openEngine(join(root, 'raw-import'));
  const t1 = performance.now();
  for (let at = 0; at < docs.length; at += 1000) {
    await target.core.mutate(async (tx) => {
      for (const { collection, doc } of docs.slice(at, at + 1000)) await tx.put(collection, doc as { id: string }, { type: 'bench.imported', entity: 'bench', key: String(doc.id) });
    });
  }
  const importMs = performance.now() - t1;
  await target.close();
  return { exportMs, importMs, docs: docs.length };
}

/**
 * CPU seconds (user + system) used so far by an install's processes (npm and the program under it,
 * one process group): on a shared machine the work done moves less with other load than times do.
 */
function cpuSeconds(install: { proc: { child: { pid?: number } } }): number {
  const group = install.proc.child.pid;
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100;
}

/** The environment that has a started install write its CPU profile into DIR/<name> (--cpu-prof DIR). */
function profiled(name: string): Record<string, string> {
  if (!profileDir) return {};
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${pathToFileURL(resolve(here, 'cpu-profile.mjs')).href}`, LANEWAY_CPU_PROF_DIR: resolve(profileDir, name) };
}

async function catchUp(): Promise<void> {
  console.log(`sync benchmark: ${sales.toLocaleString('en')} sales (plus their orders) pushed lane → hub after an offline period`);
  const hub = await startInstall('hub', hubDir, [], undefined, profiled('hub'));
  const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
  let lane = await startInstall('lane', laneDir, ['--hub', hub.url, '--pairing-code', code, '--sync-poll-ms', '200']);
  await lane.api('POST', '/api/sync/pause');
  await lane.proc.stop();

  const seedStart = performance.now();
  await seedLane(sales);
  console.log(`  seeded the lane's store in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (the offline period)`);

  lane = await startInstall('lane', laneDir, ['--sync-poll-ms', '200'], undefined, profiled('lane'));
  // A lane sells through an outage: it has been running for a while when the link comes back
  // (its start-up work, the request validators compiled in the background, is done).
  await new Promise((r) => setTimeout(r, 5000));
  const cpu0 = { hub: cpuSeconds(hub), lane: cpuSeconds(lane) };
  const t0 = performance.now();
  await lane.api('POST', '/api/sync/resume');
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const peer = (await lane.api<{ peers: Array<{ role: string; queued: number; last_error: string | null }> }>('GET', '/api/sync/status')).peers.find((p) => p.role === 'hub')!;
    if (peer.queued === 0 && !peer.last_error) break;
  }
  const syncMs = performance.now() - t0;
  const cpu = { hub: cpuSeconds(hub) - cpu0.hub, lane: cpuSeconds(lane) - cpu0.lane };
  const onHub = await hub.api<{ watermark: number }>('GET', '/api/status');
  await lane.proc.stop();
  await hub.proc.stop();

  const raw = await rawCopy();
  const docs = raw.docs;
  console.log(`  replication (HTTP, RxDB protocol, hub units of work): ${(syncMs / 1000).toFixed(2)} s for ${docs.toLocaleString('en')} documents, ${Math.round(docs / (syncMs / 1000)).toLocaleString('en')} docs/s (hub watermark ${onHub.watermark})`);
  console.log(`  CPU during the replication: hub ${cpu.hub.toFixed(1)} s, lane ${cpu.lane.toFixed(1)} s (${Math.round((cpu.hub * 1e6) / docs)} µs a document on the hub)`);
  console.log(`  baseline raw export + import, same records, no HTTP: export ${(raw.exportMs / 1000).toFixed(2)} s + import ${(raw.importMs / 1000).toFixed(2)} s = ${((raw.exportMs + raw.importMs) / 1000).toFixed(2)} s`);
  console.log(`  replication / raw: ${(syncMs / (raw.exportMs + raw.importMs)).toFixed(2)}×`);
}

async function main(): Promise<void> {
  const parts = (strArg('parts') ?? 'catchup,lag,central').split(',');
  if (parts.includes('catchup')) await catchUp();
  if (parts.includes('lag')) await measureLag(root, { lanes: arg('lanes', 10), rate: arg('rate', 50), seconds: arg('seconds', 20) });
  if (parts.includes('central')) await measureCentral(root, { hubs: arg('hubs', 10), perHub: arg('per-hub', 2000) });
  rmSync(root, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  rmSync(root, { recursive: true, force: true });
  process.exit(1);
});
