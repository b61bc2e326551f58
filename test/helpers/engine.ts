import { createEngine, storeLayouts, ManualClock, sequentialIds, type Engine } from '../../src/engine';
import { createLogger } from '../../src/engine/logger';
import { openDataStore, type DataStore } from '../../src/store';
import { tempDir } from './tmp';

export const TEST_TOKEN = 'TESTTOKEN0001';
export const TEST_KEY = 'test-key-0123456789abcdef';

export interface TestEngine {
  engine: Engine;
  clock: ManualClock;
  store: DataStore;
  dir: string;
  /** Close and reopen on the same folder (a restart). */
  restart(): Promise<TestEngine>;
  close(): Promise<void>;
}

/**
 * A real engine on a real SQLite file in a temp folder, with a clock the test moves and
 * predictable ids. Credentials TEST_TOKEN / TEST_KEY.
 */
export async function openTestEngine(options: { dir?: string; clock?: ManualClock; keep?: boolean; timezone?: string } = {}): Promise<TestEngine> {
  const tmp = options.dir ? { dir: options.dir, cleanup: () => undefined } : tempDir();
  const clock = options.clock ?? new ManualClock('2026-03-02T15:00:00Z');
  const store = await openDataStore({ directory: tmp.dir, layouts: storeLayouts });
  const engine = await createEngine({
    store,
    clock,
    ids: sequentialIds(`R${Math.floor(Math.random() * 1e6)}X`),
    logger: createLogger({ directory: `${tmp.dir}/logs`, level: 'debug' }),
    firstToken: TEST_TOKEN,
    firstKey: TEST_KEY,
    timezone: options.timezone ?? 'UTC',
  });
  const handle: TestEngine = {
    engine,
    clock,
    store,
    dir: tmp.dir,
    async restart() {
      await engine.close();
      return openTestEngine({ dir: tmp.dir, clock, keep: options.keep ?? false });
    },
    async close() {
      await engine.close();
      if (!options.keep && !options.dir) tmp.cleanup();
    },
  };
  return handle;
}
