import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit` (engine, store, HTTP, CLI) runs files in parallel. `devices` (real serial
 * pairs and a real browser) runs its files one at a time: they own OS resources and wait on
 * devices, and on a loaded 2-core machine they must not compete with each other.
 */
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
          exclude: ['test/serial/**', 'test/e2e/**'],
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
