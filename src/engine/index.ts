import type { Store } from '../store/database';
import { systemClock, type Clock } from './clock';
import { randomIds, type Ids } from './ids';
import { createCore, type EngineCore } from './core';
import { createLogger, type Logger } from './logger';
import { openAccount, type Account } from './account';
import { createReceivables, type Receivables } from './receivables';

export interface EngineOptions {
  store: Store & { sizeBytes?(): number };
  clock?: Clock;
  ids?: Ids;
  logger?: Logger;
  /** The first API credentials of a new install (LANEWAY_API_TOKEN / LANEWAY_API_KEY). */
  firstToken?: string;
  firstKey?: string;
  /** Time zone for a new account (default: the machine's). */
  timezone?: string;
}

export interface Engine {
  readonly core: EngineCore;
  readonly clock: Clock;
  readonly account: Account;
  /** Customers, invoices, invoicing payments and divisions. */
  readonly receivables: Receivables;
  readonly logger: Logger;
  /** Set only on the start that created the account: print once, never store in clear. */
  readonly firstCredentials?: { token: string; key: string };
  status(): EngineStatus;
  /** Runs the time-driven work now (tests call it after moving the clock). */
  tick(): Promise<void>;
  /** Starts the background tick (every `intervalMs`, default 15 s). */
  start(intervalMs?: number): void;
  close(): Promise<void>;
}

export interface EngineStatus {
  name: string;
  environment: string;
  version: string;
  watermark: number;
  store_bytes: number;
  started_at: string;
  now: string;
}

export const ENGINE_VERSION = '0.1.0';

/**
 * The service engine: every business rule, state machine and event. Routes and screens call it;
 * it calls the store and (through interfaces it defines) the terminal driver.
 */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const logger = options.logger ?? createLogger();
  const core = await createCore({ store: options.store, clock, ids, logger });
  const { account, firstCredentials } = await openAccount(core, {
    ...(options.firstToken ? { firstToken: options.firstToken } : {}),
    ...(options.firstKey ? { firstKey: options.firstKey } : {}),
    ...(options.timezone ? { timezone: options.timezone } : {}),
  });

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const startedAt = new Date(clock.now()).toISOString();
  const receivables = createReceivables(core, account);
  return {
    core,
    clock,
    account,
    receivables,
    logger,
    ...(firstCredentials ? { firstCredentials } : {}),
    status() {
      const profile = account.profile();
      return {
        name: profile.name,
        environment: profile.environment,
        version: ENGINE_VERSION,
        watermark: core.currentWatermark(),
        store_bytes: options.store.sizeBytes?.() ?? 0,
        started_at: startedAt,
        now: new Date(clock.now()).toISOString(),
      };
    },
    tick: () => core.tick(),
    start(intervalMs = 15_000) {
      if (timer || closed) return;
      void core.tick();
      timer = setInterval(() => void core.tick(), intervalMs);
      timer.unref();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      // Let queued units of work finish before the store goes away.
      await core.mutate(async () => undefined);
      await options.store.close();
    },
  };
}

export type { Clock } from './clock';
export type { Ids } from './ids';
export { ManualClock, systemClock } from './clock';
export { randomIds, sequentialIds } from './ids';
export { EngineError, fail, isEngineError } from './errors';
export type { DomainEvent } from './events';
