import { Type } from '@sinclair/typebox';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, storeLayouts } from '../src/engine';
import { createLogger } from '../src/engine/logger';
import { openDataStore } from '../src/store';
import { startServer } from '../src/server/http';
import { allRoutes } from '../src/server/routes';
import { defineRoute } from '../src/server/route';

/**
 * The server side of bench/gateway.ts, in its own process so the load generator does not share its
 * core: a fresh install (real SQLite file, synchronous=FULL) plus one no-op route that goes through
 * the same HTTP stack (auth, JSON body parsing, validation) and writes nothing.
 */
const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'laneway-bench-'));
const token = 'BENCHTOKEN01';
const key = 'bench-key-0123456789';

const noop = defineRoute({
  method: 'post',
  path: '/api/bench/noop',
  operationId: 'benchNoop',
  tags: ['Laneway'],
  summary: 'Benchmark ceiling: authenticated, parsed and validated, then nothing',
  body: Type.Object({ amount_cents: Type.Optional(Type.Union([Type.Integer(), Type.String()])) }, { additionalProperties: true }),
  responses: { 200: { description: 'ok', schema: Type.Object({ ok: Type.Boolean() }) } },
  handler: () => ({ body: { ok: true } }),
});

const store = await openDataStore({ directory: dir, layouts: storeLayouts });
const engine = await createEngine({ store, logger: createLogger({ directory: join(dir, 'logs'), level: 'info' }), firstToken: token, firstKey: key, timezone: 'UTC' });
const server = await startServer(engine, { port: 0, rateLimit: 1_000_000_000, routes: [...allRoutes, noop] });
process.stdout.write(`${JSON.stringify({ url: server.url, token, key, dir })}\n`);

const stop = async () => {
  const stats = engine.core.commitStats();
  process.stdout.write(`${JSON.stringify({ units: stats.commits, requests: stats.units })}\n`);
  await server.close();
  await engine.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
