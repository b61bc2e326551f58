import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { startInstall, streamDocuments } from './rig';
import { natsServers, startNats } from './nats';
import { centralDocument } from '../../src/engine/sync/chain-keys';
import { bodyOf, streamNamed, type SyncDoc } from '../../src/engine/sync/streams';

/**
 * Hub → central through a real 3-node nats-server cluster with JetStream (own ports, temporary
 * store folders), the hub and the central install as `serve` processes. One node is killed while
 * the hub publishes; the central install still ends with every sale the hub holds, field by
 * field, each once.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

function saleRows(laneid: string, from: number, count: number) {
  return Array.from({ length: count }, (_, k) => {
    const n = from + k;
    const key = `S${laneid}-${String(n).padStart(6, '0')}`;
    return { newDocumentState: { id: `pos_sale/${key}`, kind: 'pos_sale', key, ref: `${laneid}/${String(n).padStart(8, '0')}`, data: { id: key, laneid, number: `${laneid}-${n}`, status: 'paid', total_cents: 100 + (n % 50) } } };
  });
}

describe('hub → central over a 3-node JetStream cluster', () => {
  it('converges when a node dies mid-stream', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const nodes = await startNats(tmp.dir, 3, cleanups);
    const nats = natsServers(nodes).join(',');
    const hubDir = join(tmp.dir, 'hub');
    const centralDir = join(tmp.dir, 'central');
    const hub = await startInstall('hub', hubDir, ['--nats', nats, '--chain-role', 'hub', '--shop', 'shop1', '--nats-replicas', '3']);
    cleanups.push(() => hub.proc.stop());
    const central = await startInstall('central', centralDir, ['--nats', nats, '--chain-role', 'central', '--shop', 'hq', '--nats-replicas', '3']);
    cleanups.push(() => central.proc.stop());
    const before = (await central.api<{ watermark: number }>('GET', '/api/status')).watermark;

    // Two lanes paired with the hub push their sales, as lanes do.
    const pushers = await Promise.all(
      ['2', '3'].map(async (laneid) => {
        const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid });
        const res = await fetch(`${hub.url}/api/sync/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
        const grant = (await res.json()) as { token: string; key: string };
        const auth = `Basic ${Buffer.from(`${grant.token}:${grant.key}`).toString('base64')}`;
        return async (from: number, count: number) => {
          for (let at = from; at < from + count; at += 200) {
            const push = await fetch(`${hub.url}/api/sync/push/lane_records`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ rows: saleRows(laneid, at, 200) }) });
            expect(push.status).toBe(200);
          }
        };
      }),
    );
    for (const push of pushers) await push(1, 600);
    await until(async () => (await central.api<{ watermark: number }>('GET', '/api/status')).watermark - before >= 200, 'the first messages at the central install', 60_000);
    nodes[0]!.child.kill('SIGKILL');
    for (const push of pushers) await push(601, 400);
    await until(async () => (await central.api<{ watermark: number }>('GET', '/api/status')).watermark - before >= 2000, 'the central install to have every sale', 90_000);
    await central.proc.stop();
    await hub.proc.stop();

    const [onHub, onCentral] = await Promise.all([streamDocuments(hubDir), streamDocuments(centralDir)]);
    const sales = (m: Map<string, Record<string, unknown>>) => new Map([...m].filter(([, d]) => d.kind === 'pos_sale'));
    // The central keys the shop's documents by the shop (chain-keys.ts).
    const asCentral = (d: Record<string, unknown>) => bodyOf(centralDocument('shop1', streamNamed('lane_records')!, d as SyncDoc));
    const expected = new Map([...sales(onHub.get('lane_records')!).values()].map((d) => [`pos_sale/shop1:${String(d.key)}`, asCentral(d)]));
    const got = sales(onCentral.get('lane_records')!);
    expect(expected.size).toBe(2000);
    expect(got).toEqual(expected);
    const sum = (m: Map<string, Record<string, unknown>>) => [...m.values()].reduce((n, d) => n + Number((d.data as { total_cents: number }).total_cents), 0);
    expect(sum(got)).toBe(sum(expected));
  }, 300_000);
});
