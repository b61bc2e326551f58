import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatStamp, hlcReceive, hlcTick, laterStamp, parseStamp, type Hlc } from '../../src/engine/sync/hlc';
import { openHarness, type Harness } from '../helpers/harness';
import { putRecord } from '../../src/engine/records';
import { applyPush } from '../../src/engine/sync/master';
import type { SyncDoc } from '../../src/engine/sync/streams';
import type { Resolution } from '../../src/engine/sync/customer-merge';
import { getRecord } from '../../src/engine/records';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';
import { until } from '../e2e/processes';
import { startInstall } from './rig';

const after = (a: Hlc, b: Hlc) => a.ms > b.ms || (a.ms === b.ms && a.counter > b.counter);
const hlc = fc.record({ ms: fc.integer({ min: 0, max: 4e12 }), counter: fc.integer({ min: 0, max: 50 }) });

describe('the hybrid logical clock', () => {
  it('moves forward on every edit and past every stamp it receives, whatever the wall clock says', () => {
    fc.assert(
      fc.property(hlc, hlc, fc.integer({ min: 0, max: 4e12 }), (clock, remote, now) => {
        const ticked = hlcTick(clock, now);
        expect(after(ticked, clock)).toBe(true);
        expect(ticked.ms).toBeGreaterThanOrEqual(now);
        const received = hlcReceive(clock, remote, now);
        expect(after(received, clock) && after(received, remote)).toBe(true);
        // Stamps compare as their clocks do, and read back.
        expect(laterStamp(formatStamp(received, 'hub'), formatStamp(remote, 'lane:2'))).toBe('a');
        expect(parseStamp(formatStamp(ticked, 'lane:2'))).toEqual({ ...ticked, node: 'lane:2' });
      }),
    );
  });

  it('a wall clock going back does not take stamps back; the counter orders edits in one millisecond', () => {
    const a = hlcTick({ ms: 1000, counter: 0 }, 900);
    expect(a).toEqual({ ms: 1000, counter: 1 });
    expect(hlcTick(a, 1000)).toEqual({ ms: 1000, counter: 2 });
    expect(hlcTick(a, 1001)).toEqual({ ms: 1001, counter: 0 });
    expect(hlcReceive({ ms: 1000, counter: 4 }, { ms: 1000, counter: 7 }, 10)).toEqual({ ms: 1000, counter: 8 });
  });
});

let hub: Harness | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe('customer merge on the hub by the hybrid logical clock', () => {
  it('an edit the hub made after it saw a fast lane clock wins over that lane edit pushed again', async () => {
    hub = await openHarness({ api: true });
    const { engine } = hub.t;
    const core = engine.core;
    await core.mutate((tx) => putRecord(tx, 'sync_lane', '2', { laneid: '2' }, { type: 'sync_lane.paired', entity: 'sync_lane', key: '2' }));
    await hub.api.post('/api/imports/customer', { identifier: 'C1', name: 'Ana', city: 'Laval' });
    const base = (await core.store.find('customers', { selector: { identifier: 'C1' } }))[0] as unknown as SyncDoc;

    // Lane 2's clock runs ten minutes ahead: its edit of the city carries that time.
    const ahead = core.clock.now() + 10 * 60_000;
    const laneDoc = { ...base, data: { ...(base.data as object), city: 'Québec', updated_ms: ahead, updated_at: new Date(ahead).toISOString() } };
    const push = () => applyPush(core, 'customers', '2', [{ newDocumentState: laneDoc as unknown as Record<string, unknown>, assumedMasterState: base as unknown as Record<string, unknown> }]);
    expect(await push()).toMatchObject({ written: 1 });

    // The hub then changes the city: on its wall clock, ten minutes before the lane's edit.
    await hub.api.post('/api/imports/customer', { identifier: 'C1', name: 'Ana', city: 'Montréal' });
    await engine.sync.close(); // waits for the edit's stamp
    // The lane's answer was lost: it pushes the same edit again against the version it had.
    await push();
    const now = await hub.api.get<{ city?: string }>('/api/exports/customer/C1');
    expect(now.body.city).toBe('Montréal');
    const { resolutions } = await engine.sync.resolutions(10);
    const city = resolutions[0]!.fields.find((f) => f.field === 'city')!;
    expect(city).toMatchObject({ winner: 'hub', lane_value: 'Québec', hub_value: 'Montréal' });
    expect(parseStamp(city.hub_stamp)).toMatchObject({ ms: ahead, counter: 2, node: 'hub' });
  });
});

describe('a lane runs the clock too', () => {
  const stops: Array<() => unknown> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('receives the hub clock on pull and stamps its edits after it, ordered within one millisecond', async () => {
    const tmp = tempDir();
    stops.push(tmp.cleanup);
    const hubInstall = await startInstall('hub', join(tmp.dir, 'hub'));
    stops.push(() => hubInstall.proc.stop());
    await hubInstall.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Ana', city: 'Laval' });

    // The lane's wall clock is stopped months behind the hub's (ManualClock at 2026-03-02).
    const lane = await openHarness({ api: true });
    stops.push(() => lane.close());
    const core = lane.t.engine.core;
    const { code } = await hubInstall.api<{ code: string }>('POST', '/api/sync/pairing-codes', { laneid: '2' });
    await lane.t.engine.sync.start({ pollMs: 100, retryMs: 200 });
    await lane.t.engine.sync.joinHub(hubInstall.url, code);
    const laneCustomer = async () => (await lane.api.get<{ name?: string; city?: string }>('/api/exports/customer/C1')).body;
    await until(async () => (await lane.api.get('/api/exports/customer/C1')).status === 200, 'the hub customer on the lane');

    // The hub edits the customer; the lane pulls it and its clock moves past the hub's stamp.
    const beforeHubEdit = Date.now();
    await hubInstall.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Ana Hub', city: 'Laval' });
    await until(async () => (await laneCustomer()).name === 'Ana Hub', 'the hub edit on the lane');
    // The clock a pull page carries is received on the lane's stamping chain, just after the page is written.
    const received = await until(async () => {
      const clock = (await getRecord<Hlc>(core, 'sync_hlc', 'clock'))?.data;
      return clock && clock.ms >= beforeHubEdit - 1000 ? clock : undefined;
    }, 'the hub clock received on the lane', 5_000);

    // Two lane edits in the same millisecond of its wall clock: both after what it received,
    // the second after the first (its counter), named for the lane.
    const stampOfC1 = async () => {
      const id = (await core.find('customers', { selector: { identifier: 'C1' } }))[0]!.id;
      return (await getRecord<{ stamp: string }>(core, 'sync_edit', id))?.data.stamp;
    };
    await lane.t.engine.sync.pause();
    await lane.api.post('/api/imports/customer', { identifier: 'C1', name: 'Ana Hub', city: 'Québec' });
    const first = await until(stampOfC1, 'the first lane edit stamped');
    await lane.api.post('/api/imports/customer', { identifier: 'C1', name: 'Ana Hub', city: 'Lévis' });
    const second = await until(async () => ((await stampOfC1()) !== first ? stampOfC1() : undefined), 'the second lane edit stamped');
    expect(parseStamp(first)).toMatchObject({ node: 'lane:2' });
    expect(after(parseStamp(first), received)).toBe(true);
    expect(after(parseStamp(second), parseStamp(first))).toBe(true);
    expect(parseStamp(second).ms).toBe(parseStamp(first).ms);

    // Meanwhile the hub changed the city too (later on its clock): the push carries the lane's
    // stamp, which the hub compares, not the lane's wall clock of March.
    await hubInstall.api('POST', '/api/imports/customer', { identifier: 'C1', name: 'Ana Hub', city: 'Montréal' });
    await lane.t.engine.sync.resume();
    await until(async () => (await hubInstall.api<{ resolutions: unknown[] }>('GET', '/api/sync/resolutions')).resolutions.length > 0, 'the merge on the hub');
    const { resolutions } = await hubInstall.api<{ resolutions: Resolution[] }>('GET', '/api/sync/resolutions');
    const city = resolutions[0]!.fields.find((f) => f.field === 'city')!;
    expect(city.lane_stamp).toBe(second);
    expect(after(parseStamp(city.hub_stamp), parseStamp(second))).toBe(true);
    expect(city).toMatchObject({ lane_value: 'Lévis', hub_value: 'Montréal', winner: 'hub' });
    await until(async () => (await laneCustomer()).city === 'Montréal', 'the merged customer back on the lane');
  }, 180_000);
});
