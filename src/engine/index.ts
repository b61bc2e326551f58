import type { Store } from '../store/database';
import type { InstallStatus } from '../shared/schemas/system';
import { systemClock, type Clock } from './clock';
import { randomIds, type Ids } from './ids';
import { createCore, type EngineCore } from './core';
import { createLogger, type Logger } from './logger';
import { ensureFirstCredentials, openAccount, type Account, type FirstCredentials } from './account';
import { createLanes, type Lanes } from './lanes';
import type { LaneDriver } from './lanes/driver-port';
import type { CardPresentPort } from './card-present';
import { createOrders, type Orders } from './orders';
import { createWallets, type Wallets } from './wallets';
import { createGiftCards, type GiftCards } from './wallets/gift-cards';
import { createAutopay, renameWalletsAndAutopay, type Autopay } from './wallets/autopay';
import type { ReceivablesPort } from './wallets/autopay-port';
import { openVaultKeyer } from './wallets/secrets';
import { createGateway, type Gateway } from './gateway';
import { createReceivables, type Receivables } from './receivables';
import { receivablesForAutopay } from './autopay-receivables';
import { createRegister, type Register } from './register';

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
  /** Drives the card-present lanes (src/terminal's serial driver); without it lanes are configurable but offline. */
  laneDriver?: LaneDriver;
  /** Overrides the lanes as the gateway's card-present port (tests); settable later with gateway.setCardPresent. */
  cardPresent?: CardPresentPort;
  /** Overrides the receivables domain as autopay sees it (tests). */
  receivables?: ReceivablesPort;
  /** Read-ahead of invoice export pages (default on; `serve --no-read-ahead` turns it off). */
  exportReadAhead?: boolean;
  /**
   * Leave the first start's credentials and sample cashier to `firstStart()`: `serve` and the
   * desktop app make them only once their socket listens. Otherwise createEngine makes them.
   */
  deferFirstStart?: boolean;
}

/** What a new install shows once: its first API credentials and the sandbox's sample cashier. */
export interface FirstStart {
  credentials?: FirstCredentials;
  cashier?: { id: string; name: string; code: string };
}

export interface Engine {
  readonly core: EngineCore;
  readonly clock: Clock;
  readonly account: Account;
  /** Card-present lanes: settings, terminal commands, and the CardPresentPort for the gateway. */
  readonly lanes: Lanes;
  /** Customers, invoices, invoicing payments and divisions. */
  readonly receivables: Receivables;
  readonly logger: Logger;
  readonly orders: Orders;
  readonly gateway: Gateway;
  readonly wallets: Wallets;
  readonly giftCards: GiftCards;
  readonly autopay: Autopay;
  /** The point of sale: catalog, cashiers, sales and tenders, voids and refunds, X and Z reports. */
  readonly register: Register;
  /** Set only on the start that made the first credentials: print once, never store in clear. */
  readonly firstCredentials?: FirstCredentials;
  /**
   * Makes the install's first credentials when it has none, and then the sandbox's sample
   * cashier; returns what to show once (empty on later starts).
   */
  firstStart(): Promise<FirstStart>;
  status(): EngineStatus;
  /** Runs the time-driven work now (tests call it after moving the clock). */
  tick(): Promise<void>;
  /** Starts the background tick (every `intervalMs`, default 15 s) and opens the lanes' ports. */
  start(intervalMs?: number): void;
  close(): Promise<void>;
}

export type EngineStatus = InstallStatus;

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
  const { account } = await openAccount(core, options.timezone ? { timezone: options.timezone } : {});
  const lanes = createLanes(core, account, options.laneDriver ? { driver: options.laneDriver } : {});

  const keyer = await openVaultKeyer(core);
  const orders = createOrders(core, account);
  // Wallets ask autopay for the receivables port only at request time, after it exists.
  const wallets = createWallets({ core, account, keyer, receivables: () => autopay.receivables() });
  const giftCards = createGiftCards(core, account, keyer);
  const gateway = createGateway({ core, account, orders, wallets, giftCards, keyer, cardPresent: options.cardPresent ?? lanes });
  const receivables = createReceivables(core, account, { exportReadAhead: options.exportReadAhead ?? true, onCustomerRenamed: renameWalletsAndAutopay });
  const autopay: Autopay = createAutopay({ core, account, gateway, receivables: options.receivables ?? receivablesForAutopay(receivables) });
  const register = await createRegister({ core, account, orders, lanes, gateway, giftCards });

  let firstCredentials: FirstCredentials | undefined;
  const firstStart = async (): Promise<FirstStart> => {
    const credentials = await ensureFirstCredentials(account.credentials, {
      ...(options.firstToken ? { token: options.firstToken } : {}),
      ...(options.firstKey ? { key: options.firstKey } : {}),
    });
    if (!credentials) return {};
    firstCredentials = credentials;
    const cashier = await register.seedSample();
    return { credentials, ...(cashier ? { cashier } : {}) };
  };
  if (!options.deferFirstStart) await firstStart();

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const startedAt = new Date(clock.now()).toISOString();
  return {
    core,
    clock,
    account,
    lanes,
    receivables,
    logger,
    orders,
    gateway,
    wallets,
    giftCards,
    autopay,
    register,
    get firstCredentials() {
      return firstCredentials;
    },
    firstStart,
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
      lanes.start().catch((err: unknown) => logger.error({ err }, 'lanes did not start'));
      void core.tick();
      timer = setInterval(() => void core.tick(), intervalMs);
      timer.unref();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      // Ports first: closing them settles whatever a lane was waiting for.
      await lanes.close();
      // Let queued units of work and reads ahead finish before the store goes away.
      await core.mutate(async () => undefined);
      await receivables.close();
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
