import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { join } from 'node:path';
import { until } from '../e2e/processes';
import { natsServers, startNats } from './nats';
import { startInstall, streamDocuments, type Install } from './rig';
import { requireShopName, shopOfCentralId } from '../../src/engine/sync/chain-keys';

/**
 * Two shops' hubs publish to one central install through a real nats-server (JetStream). Each
 * shop has a lane 2, so both hubs hold `pos_register/2`, the same Z report key, and (ids handed
 * out by the same sequence) the same sale, order and transaction ids: on the central every one of
 * them is two documents, keyed by the shop, each with its own shop's data.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

type Row = { newDocumentState: Record<string, unknown> };

/** Lane 2 of a shop, paired with its hub, pushes as lanes do (the hub's push operation over HTTP). */
async function laneOf(hub: Install): Promise<(stream: string, rows: Row[]) => Promise<void>> {
  const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
  const res = await fetch(`${hub.url}/api/sync/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  const grant = (await res.json()) as { token: string; key: string };
  const auth = `Basic ${Buffer.from(`${grant.token}:${grant.key}`).toString('base64')}`;
  return async (stream, rows) => {
    const push = await fetch(`${hub.url}/api/sync/push/${stream}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ rows }) });
    expect(push.status, await push.text()).toBe(200);
  };
}

/** What lane 2 of a shop pushed to its hub: its register, a Z report, a sale, its order and transaction (each carrying the lane's receipt number, as the hub requires of a lane's new documents). */
async function lanePushes(hub: Install, shop: string, total: number): Promise<void> {
  const push = await laneOf(hub);
  await push('lane_records', [
    { newDocumentState: { id: 'pos_register/2', kind: 'pos_register', key: '2', ref: '', data: { laneid: '2', name: `${shop} lane 2` } } },
    { newDocumentState: { id: 'pos_z/2/2026-03-02', kind: 'pos_z', key: '2/2026-03-02', ref: '2', data: { laneid: '2', total_cents: total } } },
    { newDocumentState: { id: 'pos_sale/SALE1', kind: 'pos_sale', key: 'SALE1', ref: '2/00000001', data: { id: 'SALE1', laneid: '2', number: '2-00000001', total_cents: total } } },
  ]);
  await push('orders', [{ newDocumentState: { id: 'SALE1', published: true, data: { identifier: 'SALE1', number: '2-00000001', amount_cents: total, attributes: { pos_lane: '2' } } } }]);
  await push('transactions', [
    { newDocumentState: { id: 'TXN1', order_id: 'SALE1', unique_reference: 'SALE1-1', due_at: 0, batch_id: '', fund: '', recency: 0, data: { laneid: '2', order_id: 'SALE1', order: { identifier: 'SALE1', number: '2-00000001' }, amount_cents: total } } },
  ]);
}

describe('a chain: two shops into one central install through NATS JetStream', () => {
  it('keys every shop document by its shop: two shops never overwrite each other', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const nats = natsServers(await startNats(tmp.dir, 1, cleanups)).join(',');
    const centralDir = join(tmp.dir, 'central');
    const [montreal, quebec, central] = await Promise.all([
      startInstall('montreal', join(tmp.dir, 'montreal'), ['--nats', nats, '--chain-role', 'hub', '--shop', 'montreal']),
      startInstall('quebec', join(tmp.dir, 'quebec'), ['--nats', nats, '--chain-role', 'hub', '--shop', 'quebec']),
      startInstall('central', centralDir, ['--nats', nats, '--chain-role', 'central', '--shop', 'hq']),
    ]);
    for (const i of [montreal, quebec, central]) cleanups.push(() => i.proc.stop());
    const before = (await central.api<{ watermark: number }>('GET', '/api/status')).watermark;
    await lanePushes(montreal, 'montreal', 1111);
    await lanePushes(quebec, 'quebec', 2222);
    // Five documents a shop, one watermark each on the central.
    await until(async () => (await central.api<{ watermark: number }>('GET', '/api/status')).watermark - before >= 2 * 5, 'both shops on the central install', 60_000);
    await Promise.all([montreal.proc.stop(), quebec.proc.stop(), central.proc.stop()]);

    const docs = await streamDocuments(centralDir);
    const records = docs.get('lane_records')!;
    for (const [shop, total] of [['montreal', 1111], ['quebec', 2222]] as const) {
      expect(records.get(`pos_register/${shop}:2`)).toMatchObject({ key: `${shop}:2`, data: { name: `${shop} lane 2` } });
      expect(records.get(`pos_z/${shop}:2/2026-03-02`)).toMatchObject({ ref: `${shop}:2`, data: { total_cents: total } });
      expect(records.get(`pos_sale/${shop}:SALE1`)).toMatchObject({ data: { number: '2-00000001', total_cents: total } });
      expect(docs.get('orders')!.get(`${shop}:SALE1`)).toMatchObject({ data: { amount_cents: total } });
      // The transaction names its order within the shop on the central too.
      expect(docs.get('transactions')!.get(`${shop}:TXN1`)).toMatchObject({ order_id: `${shop}:SALE1`, unique_reference: `${shop}:SALE1-1`, data: { amount_cents: total } });
      expect(shopOfCentralId('records', `pos_register/${shop}:2`)).toBe(shop);
    }
    // Nothing kept its shop-less key, and nothing else arrived.
    expect([...records.keys()].filter((id) => !/^pos_\w+\/(montreal|quebec):/.test(id))).toEqual([]);
    expect([...docs.get('orders')!.keys()].sort()).toEqual(['montreal:SALE1', 'quebec:SALE1']);
  }, 300_000);

  it('refuses a shop name that cannot be a subject token or a key prefix', () => {
    expect(() => requireShopName('bad.name')).toThrow(/letters, digits/);
    expect(requireShopName('montreal-1')).toBe('montreal-1');
  });
});
