import { afterAll, beforeAll } from 'vitest';
import { createEngine, storeLayouts, ManualClock, sequentialIds, type Engine } from '../../src/engine';
import type { CardPresentPort } from '../../src/engine/card-present';
import type { LaneDriver } from '../../src/engine/lanes';
import { createLogger } from '../../src/engine/logger';
import type { ReceivablesPort } from '../../src/engine/wallets/autopay-port';
import { startServer, type RunningServer } from '../../src/server/http';
import { openDataStore, type DataStore } from '../../src/store';
import { checkResponse } from './openapi-check';
import type { DeliveryOptions } from '../../src/engine/webhooks/worker';
import { tempDir } from './tmp';

/**
 * The one test harness: a real engine on a real SQLite file in a fresh folder, with a clock the
 * test moves and predictable ids, optionally the HTTP server on loopback, and one teardown. The
 * register rig (./register) and the gateway rig (./gateway) are built on it.
 */

export const TEST_TOKEN = 'TESTTOKEN0001';
export const TEST_KEY = 'test-key-0123456789abcdef';

export interface TestEngine {
  engine: Engine;
  clock: ManualClock;
  store: DataStore;
  dir: string;
  /** Close and reopen on the same folder (a restart); `start: false` leaves its lanes closed. */
  restart(options?: { start?: boolean }): Promise<TestEngine>;
  close(): Promise<void>;
}

export interface EngineOptions {
  dir?: string;
  clock?: ManualClock;
  /** Leave the folder behind on close (a test that reopens it itself). */
  keep?: boolean;
  timezone?: string;
  /** A lane driver per engine (the serial tests give the real one); none means lanes stay offline. */
  laneDriver?: () => LaneDriver;
  /** Start the engine's timers and lanes, as the app does once it is up. */
  start?: boolean;
  /** Webhook delivery timing (a short timeout and first retry). */
  webhookDelivery?: Partial<DeliveryOptions>;
}

/** The engine's tick while started: long, so a test moves time itself with the clock. */
const TICK_MS = 3_600_000;

/**
 * The engine layer of the harness on its own, for tests that restart, reopen or inspect the data
 * folder themselves. Credentials TEST_TOKEN / TEST_KEY.
 */
export async function openTestEngine(options: EngineOptions = {}): Promise<TestEngine> {
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
    ...(options.laneDriver ? { laneDriver: options.laneDriver() } : {}),
    ...(options.webhookDelivery ? { webhookDelivery: options.webhookDelivery } : {}),
  });
  if (options.start) engine.start(TICK_MS);
  return {
    engine,
    clock,
    store,
    dir: tmp.dir,
    async restart(next = {}) {
      await engine.close();
      return openTestEngine({ ...options, ...next, dir: tmp.dir, clock, keep: options.keep ?? false });
    },
    async close() {
      await engine.close();
      if (!options.keep && !options.dir) tmp.cleanup();
    },
  };
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface ApiClient {
  url: string;
  server: RunningServer;
  request<T = unknown>(method: string, path: string, options?: { body?: unknown; auth?: string | null; headers?: Record<string, string>; raw?: string }): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, auth?: string | null): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  patch<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  put<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, body?: unknown, auth?: string | null): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface ApiOptions {
  rateLimit?: number;
}

export const basicAuth = (token = TEST_TOKEN, key = TEST_KEY) => `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;

/**
 * The HTTP layer of the harness: real HTTP on loopback against a real engine. Every response is
 * checked against our OpenAPI document; a response the document does not describe fails the test.
 */
export async function startApi(engine: Engine, options: ApiOptions = {}): Promise<ApiClient> {
  const server = await startServer(engine, { port: 0, rateLimit: options.rateLimit ?? 1_000_000 });
  const client: ApiClient = {
    url: server.url,
    server,
    async request<T>(method: string, path: string, opts: { body?: unknown; auth?: string | null; headers?: Record<string, string>; raw?: string } = {}) {
      const auth = opts.auth === undefined ? basicAuth() : opts.auth;
      const hasBody = opts.body !== undefined || opts.raw !== undefined;
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(auth ? { Authorization: auth } : {}),
          ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
          ...(opts.headers ?? {}),
        },
        ...(hasBody ? { body: opts.raw ?? JSON.stringify(opts.body) } : {}),
      });
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      const body = (type.includes('json') && text ? JSON.parse(text) : text) as T;
      if (path.startsWith('/api/')) {
        const problems = checkResponse(method, path, res.status, body, type);
        if (problems.length) throw new Error(`Response does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${text.slice(0, 500)}`);
      }
      return { status: res.status, body, headers: res.headers, text };
    },
    get: (path, auth) => client.request('GET', path, { ...(auth !== undefined ? { auth } : {}) }),
    post: (path, body, auth) => client.request('POST', path, { body: body ?? {}, ...(auth !== undefined ? { auth } : {}) }),
    patch: (path, body, auth) => client.request('PATCH', path, { body: body ?? {}, ...(auth !== undefined ? { auth } : {}) }),
    put: (path, body, auth) => client.request('PUT', path, { body: body ?? {}, ...(auth !== undefined ? { auth } : {}) }),
    delete: (path, body, auth) => client.request('DELETE', path, { ...(body !== undefined ? { body } : {}), ...(auth !== undefined ? { auth } : {}) }),
    close: () => server.close(),
  };
  return client;
}

export interface HarnessOptions extends EngineOptions {
  /** Start the HTTP server on loopback with the engine (otherwise `startApi()` later). */
  api?: boolean | ApiOptions;
  /** The lanes' card-present port, replaced by a test double. */
  cardPresent?: CardPresentPort;
  /** Receivables as the autopay side sees it, replaced by a test double. */
  receivables?: ReceivablesPort;
}

export interface Harness {
  /** The engine on its data folder; replaced by `restart()`. */
  t: TestEngine;
  /** The loopback API; a test that did not start one gets an error naming the fix. */
  readonly api: ApiClient;
  /** Starts the HTTP server on the current engine (closing one already running). */
  startApi(options?: ApiOptions): Promise<ApiClient>;
  /** Closes the server and the engine, reopens the same folder, and restarts the server if one ran. */
  restart(): Promise<TestEngine>;
  /** The one teardown: server, engine, folder. */
  close(): Promise<void>;
}

export async function openHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { api: withApi, cardPresent, receivables, ...engineOptions } = options;
  const ports = (t: TestEngine) => {
    if (cardPresent) t.engine.gateway.setCardPresent(cardPresent);
    if (receivables) t.engine.autopay.setReceivables(receivables);
  };
  let t = await openTestEngine(engineOptions);
  ports(t);
  let api: ApiClient | undefined;
  let apiOptions: ApiOptions = typeof withApi === 'object' ? withApi : {};
  const harness: Harness = {
    get t() {
      return t;
    },
    set t(next) {
      t = next;
    },
    get api() {
      if (!api) throw new Error('This harness has no HTTP server: open it with { api: true } or call startApi()');
      return api;
    },
    async startApi(next = apiOptions) {
      await api?.close();
      apiOptions = next;
      api = await startApi(t.engine, next);
      return api;
    },
    async restart() {
      const hadApi = api !== undefined;
      await api?.close();
      api = undefined;
      t = await t.restart();
      ports(t);
      if (hadApi) await harness.startApi();
      return t;
    },
    async close() {
      await api?.close();
      api = undefined;
      await t.close();
    },
  };
  if (withApi) await harness.startApi();
  return harness;
}

/**
 * One harness per test file (opened before the first test, closed after the last). The returned
 * object reads through to it, so it can be taken at the top of the file.
 */
export function useHarness(options: HarnessOptions = {}): Harness {
  let current: Harness | undefined;
  const opened = (): Harness => {
    if (!current) throw new Error('The file harness is opened in beforeAll: use it inside a test or hook');
    return current;
  };
  beforeAll(async () => {
    current = await openHarness(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  return {
    get t() {
      return opened().t;
    },
    set t(next) {
      opened().t = next;
    },
    get api() {
      return opened().api;
    },
    startApi: (next) => opened().startApi(next),
    restart: () => opened().restart(),
    close: () => opened().close(),
  };
}

/** Adds a rig's own parts to a harness, keeping the harness's live `t` and `api`. */
export function extendHarness<X extends object>(harness: Harness, extra: X): Harness & X {
  return Object.defineProperties(extra, {
    t: { get: () => harness.t, set: (next: TestEngine) => (harness.t = next), enumerable: true },
    api: { get: () => harness.api, enumerable: true },
    startApi: { value: harness.startApi, enumerable: true },
    restart: { value: harness.restart, enumerable: true },
    close: { value: harness.close, enumerable: true },
  }) as Harness & X;
}
