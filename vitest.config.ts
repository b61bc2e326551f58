import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Three projects. `unit` (engine, store, HTTP, CLI) runs files in parallel, each worker running
 * its files one after another in one process (`isolate: false`): the engine's modules (RxDB,
 * express, ajv, ...) are loaded once a worker, not once a file, which was about 40% of the
 * project's time. Every file still makes its own engines, stores and folders.
 * `unit-isolated` holds the files that change process-wide state no later file may see: each
 * runs in a process of its own, as every file used to (`npm test` runs both).
 * `devices` (real serial pairs and a real browser) runs its files one at a time: they own OS
 * resources and wait on devices, and on a loaded 2-core machine they must not compete with each
 * other.
 */
const OWN_PROCESS = [
  // Adds RxDB's dev-mode plugin, which cannot be removed: every later database in the process
  // would then have to be wrapped in a schema validator (RxDB error DVM1).
  'test/store/rxdb-database.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // Every install a test makes keeps its key file here (named by its install id), not in the
    // runner's own keys folder; the processes tests start inherit it.
    env: { LANEWAY_KEYS_HOME: join(tmpdir(), 'laneway-test-keys') },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/serial/**', 'test/e2e/**', ...OWN_PROCESS],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'unit-isolated',
          include: OWN_PROCESS,
        },
      },
      {
        extends: true,
        test: {
          name: 'devices',
          include: ['test/serial/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
        },
      },
    ],
  },
});
