import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTestEngine, type TestEngine } from '../helpers/harness';
import { putRecord, getRecord } from '../../src/engine/records';
import { fail } from '../../src/engine/errors';
import type { DomainEvent } from '../../src/engine/events';

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const ev = (key: string) => ({ type: 'note.updated', entity: 'note', key });

describe('engine spine: watermarks and events', () => {
  it('stamps every created or updated record with the next, strictly increasing watermark', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    const before = core.currentWatermark();
    const a = await core.mutate((tx) => putRecord(tx, 'note', 'a', { text: 'one' }, ev('a')));
    const b = await core.mutate((tx) => putRecord(tx, 'note', 'b', { text: 'two' }, ev('b')));
    const a2 = await core.mutate((tx) => putRecord(tx, 'note', 'a', { text: 'three' }, ev('a')));
    expect(a.watermark).toBe(before + 1);
    expect(b.watermark).toBeGreaterThan(a.watermark);
    expect(a2.watermark).toBeGreaterThan(b.watermark);
    expect((await getRecord<{ text: string }>(core, 'note', 'a'))?.watermark).toBe(a2.watermark);
  });

  it('emits exactly one event per record change, carrying its watermark, after the commit', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    const seen: DomainEvent[] = [];
    core.bus.subscribe((e) => seen.push(e));
    const records = await core.mutate(async (tx) => [await putRecord(tx, 'note', 'x', { n: 1 }, ev('x')), await putRecord(tx, 'note', 'y', { n: 2 }, ev('y'))]);
    expect(seen.map((e) => e.watermark)).toEqual(records.map((r) => r.watermark));
    expect(seen.map((e) => e.key)).toEqual(['x', 'y']);
    // The outbox holds them too, for replay after a restart.
    const persisted = await core.eventsSince(records[0]!.watermark - 1, 10);
    expect(persisted.map((e) => [e.watermark, e.type, e.key])).toEqual(seen.map((e) => [e.watermark, e.type, e.key]));
  });

  it('replays the outbox in pages, in watermark order, and only what is committed', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    const start = core.currentWatermark();
    await core.mutate(async (tx) => {
      for (let i = 0; i < 1_200; i++) await putRecord(tx, 'note', `n${i % 50}`, { i }, ev(`n${i % 50}`));
    });
    const replayed: number[] = [];
    for (let after = start; ; ) {
      const page = await core.eventsSince(after, 450);
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(450);
      replayed.push(...page.map((e) => e.watermark));
      after = page[page.length - 1]!.watermark;
    }
    expect(replayed).toEqual(Array.from({ length: 1_200 }, (_, i) => start + 1 + i));
    // A unit being staged has taken its watermark, but a reader must not see (or skip) it yet.
    const during = await core.mutate(async (tx) => {
      await putRecord(tx, 'note', 'late', {}, ev('late'));
      return core.eventsSince(start + 1_200, 10);
    });
    expect(during).toEqual([]);
    expect((await core.eventsSince(start + 1_200, 10)).map((e) => e.key)).toEqual(['late']);
  });

  it('writes nothing, emits nothing and reuses no watermark when a unit of work throws', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    const seen: DomainEvent[] = [];
    core.bus.subscribe((e) => seen.push(e));
    const start = core.currentWatermark();
    await expect(
      core.mutate(async (tx) => {
        await putRecord(tx, 'note', 'half', { n: 1 }, ev('half'));
        throw fail.invalid('nope', 'rejected after a write');
      }),
    ).rejects.toMatchObject({ code: 'nope' });
    expect(await getRecord(core, 'note', 'half')).toBeUndefined();
    expect(seen).toHaveLength(0);
    expect(core.currentWatermark()).toBe(start);
    const next = await core.mutate((tx) => putRecord(tx, 'note', 'after', {}, ev('after')));
    expect(next.watermark).toBe(start + 1);
  });

  it('keeps the watermark sequence across a restart', async () => {
    t = await openTestEngine({ keep: true });
    const last = await t.engine.core.mutate((tx) => putRecord(tx, 'note', 'k', { v: 1 }, ev('k')));
    t = await t.restart();
    expect(t.engine.core.currentWatermark()).toBe(last.watermark);
    const next = await t.engine.core.mutate((tx) => putRecord(tx, 'note', 'k', { v: 2 }, ev('k')));
    expect(next.watermark).toBe(last.watermark + 1);
  });

  it('serialises concurrent units of work: no lost update', async () => {
    t = await openTestEngine();
    const core = t.engine.core;
    await core.mutate((tx) => putRecord(tx, 'counter', 'c', { n: 0 }, ev('c')));
    await Promise.all(
      Array.from({ length: 50 }, () =>
        core.mutate(async (tx) => {
          const current = await getRecord<{ n: number }>(tx, 'counter', 'c');
          await new Promise((r) => setTimeout(r, Math.random() * 2));
          await putRecord(tx, 'counter', 'c', { n: (current?.data.n ?? 0) + 1 }, ev('c'));
        }),
      ),
    );
    expect((await getRecord<{ n: number }>(core, 'counter', 'c'))?.data.n).toBe(50);
  });

  it('lets a unit of work read its own writes', async () => {
    t = await openTestEngine();
    const seenInside = await t.engine.core.mutate(async (tx) => {
      await putRecord(tx, 'note', 'ryw', { text: 'mine' }, ev('ryw'));
      const byId = await getRecord<{ text: string }>(tx, 'note', 'ryw');
      const byQuery = await tx.find('records', { selector: { kind: 'note' } });
      return { byId: byId?.data.text, inQuery: byQuery.some((d) => d.id === 'note/ryw') };
    });
    expect(seenInside).toEqual({ byId: 'mine', inQuery: true });
  });

  it('matches its own pending writes in queries by equality, operators and nested fields', async () => {
    t = await openTestEngine();
    await t.engine.core.mutate(async (tx) => {
      await putRecord(tx, 'note', 'old', { n: 1 }, ev('old'));
    });
    const ids = await t.engine.core.mutate(async (tx) => {
      await putRecord(tx, 'note', 'a', { n: 2 }, ev('a'));
      await putRecord(tx, 'memo', 'b', { n: 2 }, ev('b'));
      // A committed record rewritten in this unit so that it no longer matches `data.n: 1`.
      await putRecord(tx, 'note', 'old', { n: 3 }, ev('old'));
      const found = async (selector: Record<string, unknown>) => (await tx.find('records', { selector })).map((d) => d.id).sort();
      return {
        equality: await found({ kind: 'note', key: 'a' }),
        noMatch: await found({ kind: 'note', key: 'b' }),
        operator: await found({ kind: { $in: ['note', 'memo'] }, key: { $ne: 'old' } }),
        nested: await found({ 'data.n': 2 }),
        rewritten: await found({ 'data.n': 1 }),
      };
    });
    expect(ids).toEqual({
      equality: ['note/a'],
      noMatch: [],
      operator: ['memo/b', 'note/a'],
      nested: ['memo/b', 'note/a'],
      rewritten: [],
    });
  });

  it('stores credentials with a hashed key only', async () => {
    t = await openTestEngine();
    const made = await t.engine.account.credentials.create({ name: 'ERP' });
    await t.engine.close();
    const file = ['laneway.sqlite', 'laneway.sqlite-wal']
      .filter((f) => existsSync(join(t!.dir, f)))
      .map((f) => readFileSync(join(t!.dir, f)).toString('latin1'))
      .join('');
    expect(file).toContain(made.token);
    expect(file).not.toContain(made.key);
    t = await openTestEngine({ dir: t.dir });
    expect(t.engine.account.credentials.verifyBasic(made.token, made.key)).toMatchObject({ credential: made.token });
  });
});
