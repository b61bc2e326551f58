import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, storeLayouts, isEngineError, ManualClock, sequentialIds, type Engine } from '../../src/engine';
import { createLogger } from '../../src/engine/logger';
import { openDataStore } from '../../src/store';
import { tempDir } from '../helpers/tmp';

/**
 * What a new install shows once (first credentials, the sample cashier) is made by firstStart, which
 * serve calls only once it listens: an engine opened and closed before that leaves nothing unseen.
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function open(dir: string, deferFirstStart: boolean): Promise<Engine> {
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  return createEngine({ store, clock: new ManualClock('2026-03-02T15:00:00Z'), ids: sequentialIds(`F${Math.floor(Math.random() * 1e6)}X`), logger: createLogger({ directory: `${dir}/logs`, level: 'warn' }), timezone: 'UTC', deferFirstStart });
}

describe('first start', () => {
  it('makes the first credentials and the sample cashier only when asked, once', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    // A start that stopped before listening (port in use): no credential, no cashier made.
    const failed = await open(dir, true);
    expect(await failed.account.credentials.list()).toEqual([]);
    expect(await failed.register.cashiers()).toEqual([]);
    await failed.close();

    const next = await open(dir, true);
    const first = await next.firstStart();
    expect(first.credentials?.key).toBeTruthy();
    expect(next.account.credentials.verifyBasic(first.credentials!.token, first.credentials!.key)).not.toBeNull();
    expect(first.cashier?.code).toMatch(/^\d{4}$/);
    expect(next.firstCredentials).toEqual(first.credentials);
    expect(await next.firstStart()).toEqual({});
    await next.close();

    const later = await open(dir, true);
    expect(await later.firstStart()).toEqual({});
    expect(await later.register.cashiers()).toHaveLength(1);
    await later.close();
  });

  it('resets a cashier code by id or name: the new code signs in, the old one no longer does', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const engine = await open(dir, false);
    try {
      const sample = engine.register.firstCashier!;
      await engine.lanes.create({ laneid: '1', port_path: '/dev/ttyLANEWAYTEST1' });
      const { cashier, code } = await engine.register.resetCashierCode(sample.name.toUpperCase());
      expect(cashier.id).toBe(sample.id);
      expect(code).toMatch(/^\d{6}$/);
      expect((await engine.register.signIn('1', code)).cashier.id).toBe(sample.id);
      await expect(engine.register.signIn('1', sample.code)).rejects.toSatisfy((e: unknown) => isEngineError(e) && e.code === 'cashier_code_invalid');

      await engine.register.createCashier({ name: sample.name, code: '4321' });
      await expect(engine.register.resetCashierCode(sample.name)).rejects.toSatisfy((e: unknown) => isEngineError(e) && e.code === 'cashier_ambiguous');
      expect((await engine.register.resetCashierCode(sample.id)).cashier.id).toBe(sample.id);
      await expect(engine.register.resetCashierCode('Nobody')).rejects.toSatisfy((e: unknown) => isEngineError(e) && e.code === 'cashier_not_found');
    } finally {
      await engine.close();
    }
  });
});
