import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Serial-port and browser suites own real OS resources; the rest run in parallel workers.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
