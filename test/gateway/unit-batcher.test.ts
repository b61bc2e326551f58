import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine, type TestEngine } from '../helpers/engine';
import { UnitBatcher } from '../../src/engine/gateway/unit-batcher';
import { getRecord, putRecord } from '../../src/engine/records';
import { fail } from '../../src/engine/errors';
import type { EngineCore } from '../../src/engine/core';

let t: TestEngine;
afterEach(async () => {
  await t.close();
});

function counting(core: EngineCore) {
  const counter = { units: 0 };
  const wrapped: EngineCore = {
    ...core,
    mutate: (fn) => {
      counter.units += 1;
      return core.mutate(fn);
    },
  };
  return { core: wrapped, counter };
}

const ev = (key: string) => ({ type: 'probe.created', entity: 'probe', key });

describe('group commit for gateway requests', () => {
  it('shares commits among concurrent requests and answers each only once it is committed', async () => {
    t = await openTestEngine();
    const { core, counter } = counting(t.engine.core);
    const batcher = new UnitBatcher(core);
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const results = await Promise.all(
      keys.map((k) =>
        batcher
          .run(async (tx) => {
            await putRecord(tx, 'probe', k, { k }, ev(k));
            return k;
          })
          .then(async (value) => ({ value, committed: (await getRecord(t.engine.core, 'probe', value)) !== undefined })),
      ),
    );
    expect(results.every((r) => r.committed)).toBe(true);
    expect(results.map((r) => r.value)).toEqual(keys);
    expect(counter.units).toBeLessThan(keys.length);
  });

  it('fails a request that throws before writing alone; its neighbours commit', async () => {
    t = await openTestEngine();
    const batcher = new UnitBatcher(t.engine.core);
    const outcomes = await Promise.allSettled([
      batcher.run(async (tx) => putRecord(tx, 'probe', 'a', {}, ev('a'))),
      batcher.run(async () => {
        throw fail.gateway('bad_request', 'refused before writing');
      }),
      batcher.run(async (tx) => putRecord(tx, 'probe', 'c', {}, ev('c'))),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'bad_request' });
    expect(await getRecord(t.engine.core, 'probe', 'a')).toBeDefined();
    expect(await getRecord(t.engine.core, 'probe', 'c')).toBeDefined();
  });

  it('never commits half of a request that throws after writing, and still commits the others', async () => {
    t = await openTestEngine();
    const batcher = new UnitBatcher(t.engine.core);
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    // Occupy the batcher so the next three share one unit.
    const first = batcher.run(async () => hold);
    const rest = [
      batcher.run(async (tx) => putRecord(tx, 'probe', 'x', {}, ev('x'))),
      batcher.run(async (tx) => {
        await putRecord(tx, 'probe', 'half', {}, ev('half'));
        throw new Error('bug after a write');
      }),
      batcher.run(async (tx) => putRecord(tx, 'probe', 'y', {}, ev('y'))),
    ];
    release();
    await first;
    const outcomes = await Promise.allSettled(rest);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await getRecord(t.engine.core, 'probe', 'half')).toBeUndefined();
    expect(await getRecord(t.engine.core, 'probe', 'x')).toBeDefined();
    expect(await getRecord(t.engine.core, 'probe', 'y')).toBeDefined();
  });
});
