import { describe, expect, it } from 'vitest';
import { useHarness } from '../helpers/harness';
import { getRecord, putRecord, recordId } from '../../src/engine/records';

/**
 * A record removed (an RxDB tombstone) and written again under the same id, as a lane, the SMTP
 * relay or the upstream removed and set again: the write takes the tombstone's place, in a unit of
 * its own and in a unit that also writes other records.
 */
const h = useHarness({});

describe('a record written again after its removal', () => {
  it('is stored again, each time, with its events', async () => {
    const { core } = h.t.engine;
    const put = (v: number) => core.mutate((tx) => putRecord(tx, 'probe', 'a', { v }, { type: 'probe.put', entity: 'probe', key: 'a' }));
    const remove = () => core.mutate((tx) => tx.remove('records', recordId('probe', 'a'), { type: 'probe.removed', entity: 'probe', key: 'a' }));
    await put(1);
    await remove();
    expect(await getRecord(core, 'probe', 'a')).toBeUndefined();
    await put(2);
    expect((await getRecord<{ v: number }>(core, 'probe', 'a'))!.data.v).toBe(2);
    await remove();
    // Written again beside a record that is new, in one unit: both land.
    await core.mutate(async (tx) => {
      await putRecord(tx, 'probe', 'a', { v: 3 }, { type: 'probe.put', entity: 'probe', key: 'a' });
      await putRecord(tx, 'probe', 'b', { v: 1 }, { type: 'probe.put', entity: 'probe', key: 'b' });
    });
    expect((await getRecord<{ v: number }>(core, 'probe', 'a'))!.data.v).toBe(3);
    expect((await getRecord<{ v: number }>(core, 'probe', 'b'))!.data.v).toBe(1);
    const types = (await core.eventsSince(0, 1000)).filter((e) => e.entity === 'probe').map((e) => `${e.type}:${e.key}`);
    expect(types).toEqual(['probe.put:a', 'probe.removed:a', 'probe.put:a', 'probe.removed:a', 'probe.put:a', 'probe.put:b']);
  });

  it('still refuses a write that really conflicts', async () => {
    const { core } = h.t.engine;
    await core.mutate((tx) => putRecord(tx, 'probe', 'c', { v: 1 }, { type: 'probe.put', entity: 'probe', key: 'c' }));
    // Two writers that both read no record: the second insert meets a live record, not a tombstone.
    const raw = await core.store.get('records', recordId('probe', 'c'));
    expect(raw).toBeDefined();
    await expect(core.store.commit([{ collection: 'records', doc: { id: recordId('probe', 'c'), kind: 'probe', key: 'c', ref: '', watermark: 0, data: { v: 9 } } }])).rejects.toThrow(/write conflict/);
    expect((await getRecord<{ v: number }>(core, 'probe', 'c'))!.data.v).toBe(1);
  });
});
