import { afterEach, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { startServer } from '../../src/server/http';
import { defineRoute } from '../../src/server/route';
import { openTestEngine, TEST_KEY, TEST_TOKEN, type TestEngine } from '../helpers/harness';

/** A stop lets the requests in flight finish; new connections are refused; live streams end. */
let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const slow = defineRoute({
  method: 'get',
  path: '/api/test/slow',
  operationId: 'testSlow',
  tags: ['Laneway'],
  summary: 'Answers after 400 ms',
  auth: false,
  responses: { 200: { description: 'ok', schema: Type.Object({ ok: Type.Boolean() }) } },
  async handler() {
    await new Promise((r) => setTimeout(r, 400));
    return { body: { ok: true } };
  },
});

describe('server.close', () => {
  it('finishes a request in flight, then stops listening', async () => {
    t = await openTestEngine();
    const server = await startServer(t.engine, { port: 0, routes: [slow] });
    const inFlight = fetch(`${server.url}/api/test/slow`);
    await new Promise((r) => setTimeout(r, 100));
    const closed = server.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    await closed;
    await expect(fetch(`${server.url}/api/test/slow`)).rejects.toThrow();
  });

  it('ends live event streams instead of waiting for them', async () => {
    t = await openTestEngine();
    const server = await startServer(t.engine, { port: 0 });
    const events = await fetch(`${server.url}/api/events`, { headers: { authorization: `Basic ${Buffer.from(`${TEST_TOKEN}:${TEST_KEY}`).toString('base64')}` } });
    expect(events.status).toBe(200);
    const started = Date.now();
    await server.close(20_000);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
