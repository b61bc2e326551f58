import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { startInstall, startProxy, type Install } from './rig';
import { metaRecordOf } from './meta-rows';

/**
 * RxDB's replication records a pushed customer as the hub's version after the push; when its
 * downstream wrote that customer's record meanwhile, the record is dropped as a conflict (a race
 * a shop test met about once in thirty runs on a loaded machine). The lane then skipped every
 * later hub version of that customer as "a local change not yet pushed", for good. Here the
 * dropped record is made on purpose, in the lane's store while it is stopped: its record of the
 * hub's C9 is put back to the version before the lane's edit, as the race leaves it.
 */
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('a customer push the lane replication did not record', () => {
  const hubDir = tempDir();
  const laneDir = tempDir();
  cleanups.push(hubDir.cleanup, laneDir.cleanup);
  let hub: Install;
  let lane: Install;

  it('is pushed again, and the hub edits made after it come down to the lane', async () => {
    hub = await startInstall('hub', hubDir.dir);
    cleanups.push(() => hub.proc.stop());
    await hub.api('POST', '/api/imports/customer', { identifier: 'C9', name: 'Customer 9', city: 'Laval' });
    const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
    const laneArgs = ['--sync-poll-ms', '200'];
    lane = await startInstall('lane', laneDir.dir, ['--hub', hub.url, '--pairing-code', code, ...laneArgs]);
    await until(async () => (await lane.api('GET', '/api/exports/customer/C9').catch(() => undefined)) !== undefined, 'C9 on the lane');

    const ofC9 = (d: Record<string, unknown>) => d.identifier === 'C9';
    const before = (await until(async () => metaRecordOf(laneDir.dir, ofC9), "the lane's record of C9")).data;
    await lane.api('POST', '/api/imports/customer', { identifier: 'C9', name: 'Customer 9', telephone: '5145550101' });
    await until(async () => (await hub.api<{ telephone: string }>('GET', '/api/exports/customer/C9')).telephone === '5145550101', "the lane's edit on the hub");
    await until(async () => (metaRecordOf(laneDir.dir, ofC9)?.data.docData.data as { telephone?: string } | undefined)?.telephone === '5145550101', "the lane's record of its push");
    await lane.proc.stop();
    // The push's record lost, as the race leaves it: the hub's version before the lane's edit.
    metaRecordOf(laneDir.dir, ofC9)!.replace(before);

    lane = await startInstall('lane', laneDir.dir, laneArgs);
    cleanups.push(() => lane.proc.stop());
    await hub.api('POST', '/api/imports/customer', { identifier: 'C9', name: 'Customer 9', notes: 'after' });
    const onLane = await until(async () => {
      const c = await lane.api<{ notes: string; telephone: string; city: string }>('GET', '/api/exports/customer/C9');
      return c.notes === 'after' ? c : undefined;
    }, "the hub's later edit on the lane");
    expect([onLane.telephone, onLane.city]).toEqual(['5145550101', 'Laval']);
    const onHub = await hub.api<{ notes: string; telephone: string; city: string }>('GET', '/api/exports/customer/C9');
    expect([onHub.notes, onHub.telephone, onHub.city]).toEqual(['after', '5145550101', 'Laval']);
  }, 120_000);
});

/**
 * A lane's customer edit merged on the hub with a hub edit the lane had not received: the hub
 * writes the merge, and the lane's next pull can bring it down before the push's answer is back
 * (a slow link, a loaded lane). RxDB skips it then (the lane's edit looks unpushed), and once the
 * answer is back it records the lane's own version as the hub's: the hub's edit never came down.
 * The push's answer carries the merge (its conflicts), which the lane writes.
 */
describe('a customer edit the hub merges while its answer is slow', () => {
  const hubDir = tempDir();
  const laneDir = tempDir();
  cleanups.push(hubDir.cleanup, laneDir.cleanup);

  it('brings the hub edit down to the lane', async () => {
    const hub = await startInstall('hub', hubDir.dir);
    cleanups.push(() => hub.proc.stop());
    const proxy = await startProxy(hub.url);
    cleanups.push(() => proxy.close());
    await hub.api('POST', '/api/imports/customer', { identifier: 'C7', name: 'Customer 7', city: 'Laval' });
    const { code } = await hub.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
    const lane = await startInstall('lane', laneDir.dir, ['--hub', proxy.url, '--pairing-code', code, '--sync-poll-ms', '200']);
    cleanups.push(() => lane.proc.stop());
    await until(async () => (await lane.api('GET', '/api/exports/customer/C7').catch(() => undefined)) !== undefined, 'C7 on the lane');

    await lane.api('POST', '/api/sync/pause');
    await lane.api('POST', '/api/imports/customer', { identifier: 'C7', name: 'Customer 7', telephone: '5145550107' });
    await hub.api('POST', '/api/imports/customer', { identifier: 'C7', name: 'Customer 7', notes: 'hub note' });
    // Several polls of the lane pass while its push's answer is on the way back.
    proxy.delayAnswers('POST /api/sync/push/customers', 2_000);
    await lane.api('POST', '/api/sync/resume');

    type C = { notes?: string; telephone?: string; city?: string };
    const onHub = await until(async () => {
      const c = await hub.api<C>('GET', '/api/exports/customer/C7');
      return c.telephone === '5145550107' ? c : undefined;
    }, "the lane's edit on the hub");
    expect([onHub.notes, onHub.city]).toEqual(['hub note', 'Laval']);
    const onLane = await until(async () => {
      const c = await lane.api<C>('GET', '/api/exports/customer/C7');
      return c.notes === 'hub note' ? c : undefined;
    }, "the hub's edit on the lane", 20_000);
    expect([onLane.telephone, onLane.city]).toEqual(['5145550107', 'Laval']);
  }, 120_000);
});
