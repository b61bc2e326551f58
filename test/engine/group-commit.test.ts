import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/harness';
import { getRecord, putRecord } from '../../src/engine/records';
import { fail } from '../../src/engine/errors';
import type { DomainEvent } from '../../src/engine/events';

let t: TestEngine;
afterEach(async () => {
  await t.close();
});

const ev = (key: string) => ({ type: 'probe.created', entity: 'probe', key });

describe('group commit in the unit-of-work queue', () => {
  it('shares commits among concurrent units and answers each only once it is committed', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    const before = core.commitStats();
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const results = await Promise.all(
      keys.map((k) =>
        core
          .mutate(async (tx) => {
            await putRecord(tx, 'probe', k, { k }, ev(k));
            return k;
          })
          .then(async (value) => ({ value, committed: (await getRecord(core, 'probe', value)) !== undefined })),
      ),
    );
    expect(results.every((r) => r.committed)).toBe(true);
    expect(results.map((r) => r.value)).toEqual(keys);
    const after = core.commitStats();
    expect(after.units - before.units).toBe(40);
    expect(after.commits - before.commits).toBeLessThan(40);
  });

  it('rolls back only the unit that throws, even after it wrote; its neighbours commit with gapless watermarks', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    const seen: DomainEvent[] = [];
    core.bus.subscribe((e) => seen.push(e));
    const start = core.currentWatermark();
    const outcomes = await Promise.allSettled([
      core.mutate(async (tx) => putRecord(tx, 'probe', 'a', {}, ev('a'))),
      core.mutate(async (tx) => {
        await putRecord(tx, 'probe', 'half', {}, ev('half'));
        throw fail.invalid('bad_request', 'refused after a write');
      }),
      core.mutate(async () => {
        throw fail.invalid('early', 'refused before writing');
      }),
      core.mutate(async (tx) => putRecord(tx, 'probe', 'c', {}, ev('c'))),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(await getRecord(core, 'probe', 'half')).toBeUndefined();
    expect(await getRecord(core, 'probe', 'a')).toBeDefined();
    expect(await getRecord(core, 'probe', 'c')).toBeDefined();
    expect(seen.map((e) => [e.key, e.watermark])).toEqual([
      ['a', start + 1],
      ['c', start + 2],
    ]);
  });

  it('a later unit in the same group sees the writes of an earlier one', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    await core.mutate((tx) => putRecord(tx, 'counter', 'n', { n: 0 }, ev('n')));
    await Promise.all(
      Array.from({ length: 30 }, () =>
        core.mutate(async (tx) => {
          const r = await getRecord<{ n: number }>(tx, 'counter', 'n');
          await putRecord(tx, 'counter', 'n', { n: (r?.data.n ?? 0) + 1 }, ev('n'));
        }),
      ),
    );
    expect((await getRecord<{ n: number }>(core, 'counter', 'n'))?.data.n).toBe(30);
  });
});
