import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { vaultKeys } from './wallets/secrets';
import { openEngineKeys, type EngineKeysOptions, type ScrubbableStore } from './security/key-upgrade';
import { freeFormScrubNotNeeded, scrubFreeFormCardData } from './security/free-form-scrub';
import type { InstallKeys, KeyPurpose, KeyProtector } from './security/install-keys';
import { createGateway, type Gateway } from './gateway';
import { createReceivables, type Receivables } from './receivables';
import { receivablesForAutopay } from './autopay-receivables';
import { createRegister, type Register } from './register';
import { createSettlementReporting, type SettlementReporting } from './settlement-reporting';
import { createSandboxClock, loadOffset, OffsetClock, type SandboxClock } from './sandbox-clock';
import { createOnboarding, type Onboarding } from './onboarding';
import { createPayport, type Payport } from './payport';
import { createPayLinks, type PayLinks } from './pay-links';
import { createEcommerce, type Ecommerce } from './ecommerce';
import { createWebhooks, type Webhooks } from './webhooks';
import { createCollaboration, type Collaboration } from './collaboration';
import { createNotifications, type Notifications } from './notifications';
import type { DeliveryOptions } from './webhooks/worker';
import { createSync, type Sync } from './sync';
import { createHubGift, shopGiftCards } from './sync/hub-gift-cards';
import { shopCardRef } from './sync/offline-floor';
import { createUsers, type Users, type UserView } from './account/users';
import { createBackofficeQueries, type BackofficeQueries } from './backoffice/queries';
import { createImports, type Imports } from './imports';

export interface EngineOptions {
  store: Store & ScrubbableStore & { sizeBytes?(): number };
  /**
   * The install's keys. Default: the key file of the store's data folder (security/install-keys.ts),
   * created for a new install, upgraded from keys an earlier version kept in the database.
   */
  keys?: InstallKeys;
  /** Where the key file is, when not `<keys home>/<install id>.json` (install-keys.ts; default LANEWAY_KEY_FILE). */
  keyFile?: string;
  /** Seals the key file with the OS keychain (the desktop window: Electron's safeStorage). */
  keyProtector?: KeyProtector;
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
  /** Webhook delivery timing (tests and benchmarks shorten the timeout and the first retry). */
  webhookDelivery?: Partial<DeliveryOptions>;
  /** Send webhooks and email (default true); the admin CLI's short-lived engine does not. */
  deliver?: boolean;
}

/** What a new install shows once: its first API credentials and the sandbox's sample cashier. */
export interface FirstStart {
  credentials?: FirstCredentials;
  cashier?: { id: string; name: string; code: string };
  /** The back-office owner made on this start and the secret of their one-time sign-in link. */
  owner?: { user: UserView; link: string };
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
  /** Settlement reporting: daily batch deposits, exceptions, monthly statements. */
  readonly settlementReporting: SettlementReporting;
  /** The sandbox's movable clock (GET/POST /api/sandbox/v1/clock). */
  readonly sandboxClock: SandboxClock;
  /** Merchant onboarding applications (partner credentials only). */
  readonly onboarding: Onboarding;
  /** Fund sources, transactions by email (request/send money) and debit agreements. */
  readonly payport: Payport;
  /** Click-to-pay: the page an invoice's pay_url opens, and its payments. */
  readonly payLinks: PayLinks;
  /** Ecommerce payment sessions, their hosted frame's tokens, and sales on a session (/api/v2). */
  readonly ecommerce: Ecommerce;
  /** Webhook endpoints, the signing key and deliveries (spec: Events). */
  readonly webhooks: Webhooks;
  /** Disputes and comments on invoices and customers (reference tag Collaboration). */
  readonly collaboration: Collaboration;
  /** Invoice reminders, direct messages, the SMTP relay and the mail outbox. */
  readonly notifications: Notifications;
  /** Lanes ↔ hub replication: pairing, the hub's pull and push, a lane's client (docs/sync.md). */
  readonly sync: Sync;
  /** Back-office users: e-mail and password sign-in, roles (account/roles.ts), sessions. */
  readonly users: Users;
  /** The back office's list queries and search (backoffice/queries.ts). */
  readonly backoffice: BackofficeQueries;
  /** CSV file imports: batches run in the background, reconciliation. */
  readonly imports: Imports;
  /** Set only on the start that made the first credentials: print once, never store in clear. */
  readonly firstCredentials?: FirstCredentials;
  /**
   * Makes the install's first credentials when it has none, and then the sandbox's sample
   * cashier; returns what to show once (empty on later starts).
   */
  firstStart(): Promise<FirstStart>;
  /** The install's key file: rotation (see docs/key-management.md). */
  readonly keys: EngineKeys;
  status(): EngineStatus;
  /** Runs the time-driven work now (tests call it after moving the clock). */
  tick(): Promise<void>;
  /** Starts the background tick (every `intervalMs`, default 15 s) and opens the lanes' ports. */
  start(intervalMs?: number): void;
  close(): Promise<void>;
}

export type EngineStatus = InstallStatus;

export interface EngineKeys {
  readonly path: string;
  /**
   * New current keys for the purposes named (default all). JWTs signed before a \`jwt\` rotation are
   * refused at once; API-key hash keys no enabled credential needs are dropped; see
   * security/install-keys.ts for what each purpose keeps.
   */
  rotate(purposes?: readonly KeyPurpose[]): Promise<Array<{ purpose: KeyPurpose; id: string; previous: string[] }>>;
}

export const ENGINE_VERSION = '0.1.0';

/**
 * The service engine: every business rule, state machine and event. Routes and screens call it;
 * it calls the store and (through interfaces it defines) the terminal driver.
 */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const clock = new OffsetClock(options.clock ?? systemClock);
  const ids = options.ids ?? randomIds;
  const logger = options.logger ?? createLogger();
  const core = await createCore({ store: options.store, clock, ids, logger });
  await loadOffset(core, clock);
  const keyOptions: EngineKeysOptions = {
    ...(options.keys ? { keys: options.keys } : {}),
    ...(options.keyFile ? { keyFile: options.keyFile } : {}),
    ...(options.keyProtector ? { protector: options.keyProtector } : {}),
  };
  const keys = await openEngineKeys(core, options.store, keyOptions);
  const { account, created } = await openAccount(core, keys, options.timezone ? { timezone: options.timezone } : {});
  if (created) await freeFormScrubNotNeeded(core);
  // A moved clock is a sandbox's: production always runs on the real time.
  if (account.profile().environment !== 'sandbox') clock.setOffset(0);
  const lanes = createLanes(core, account, options.laneDriver ? { driver: options.laneDriver } : {});

  const vault = vaultKeys(keys);
  const keyer = vault.keyer;
  const dropUnusedHashKeys = () => keys.dropPrevious('api_key_hash', (id) => account.credentials.hashKeysInUse().has(id));
  dropUnusedHashKeys();
  const orders = createOrders({ core, account });
  // Wallets ask autopay for the receivables port only at request time, after it exists.
  const wallets = createWallets({ core, account, keyer, receivables: () => autopay.receivables() });
  const giftCards = createGiftCards({ core, account, vault, shopRef: (n) => shopCardRef(keys, n) });
  const hubGift = createHubGift({ core, account, keys });
  const gateway = createGateway({ core, account, orders, wallets, giftCards, keyer, cardPresent: options.cardPresent ?? lanes });
  const receivables = createReceivables(core, account, { exportReadAhead: options.exportReadAhead ?? true, onCustomerRenamed: renameWalletsAndAutopay });
  const autopay: Autopay = createAutopay({ core, account, gateway, receivables: options.receivables ?? receivablesForAutopay(receivables) });
  const register = await createRegister({ core, account, orders, lanes, gateway, giftCards, keys, hubGift });
  const onboarding = createOnboarding({ core, account, vault });
  const payport = createPayport({ core, account, gateway, wallets });
  const payLinks = createPayLinks({ core, account, receivables, gateway, wallets });
  const ecommerce = createEcommerce({ core, account, orders, wallets, giftCards, gateway });
  const deliver = options.deliver ?? true;
  const notifications = createNotifications({ core, account, keys, receivables, orders, autopay, deliver, ...(options.webhookDelivery ? { options: options.webhookDelivery } : {}) });
  const webhooks = await createWebhooks({ core, account, keys, deliver, sources: { receivables, orders, gateway }, ...(options.webhookDelivery ? { options: options.webhookDelivery } : {}) });
  const sync = createSync({ core, account, keys, receivables, orders, gifts: { gateway, giftCards } });
  const users = await createUsers(core, keys, account.credentials);
  // The register's own answer for a sale: its state and money back are the sale's, on every back-office screen.
  const findSale = (key: string) => register.sale(key).then((s) => ({ id: s.id, number: s.number, status: s.status, refunded_cents: s.totals.refunded_cents }), () => undefined);
  const backoffice = createBackofficeQueries(core, account, findSale, receivables);
  const dataDir = (options.store as { directory?: string }).directory ?? join(tmpdir(), 'laneway-imports');
  const imports = createImports({ core, account, wallets, autopay, keys: vault, dataDir });

  let firstCredentials: FirstCredentials | undefined;
  const firstStart = async (): Promise<FirstStart> => {
    const credentials = await ensureFirstCredentials(account.credentials, {
      ...(options.firstToken ? { token: options.firstToken } : {}),
      ...(options.firstKey ? { key: options.firstKey } : {}),
    });
    // Installs made before users existed get their owner on their next start.
    const owner = await users.ensureOwner();
    if (!credentials) return owner ? { owner } : {};
    firstCredentials = credentials;
    const cashier = await register.seedSample();
    return { credentials, ...(cashier ? { cashier } : {}), ...(owner ? { owner } : {}) };
  };
  if (!options.deferFirstStart) await firstStart();

  const settlementReporting = createSettlementReporting({ core, account, gateway });
  const sandboxClock = createSandboxClock({ core, account, clock, tick: () => core.tick() });

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let scrubbing: Promise<void> = Promise.resolve();
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
    giftCards: shopGiftCards(giftCards, hubGift),
    autopay,
    register,
    sandboxClock,
    settlementReporting,
    onboarding,
    payport,
    payLinks,
    ecommerce,
    webhooks,
    collaboration: createCollaboration({ core, account, receivables }),
    notifications,
    sync,
    users,
    backoffice,
    imports,
    get firstCredentials() {
      return firstCredentials;
    },
    firstStart,
    keys: {
      path: keys.path,
      async rotate(purposes = ['jwt', 'api_key_hash', 'vault', 'cashier_code', 'settings_secret']) {
        // Through the write queue, so no unit of work hashes with a key being replaced.
        return core.mutate(async () => {
          const rotated = keys.rotate(purposes);
          if (purposes.includes('api_key_hash')) dropUnusedHashKeys();
          logger.info({ rotated: rotated.map((r) => `${r.purpose}:${r.id}`) }, 'install keys rotated');
          return rotated;
        });
      },
    },
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
        timezone: profile.timezone,
        clock_offset_seconds: Math.floor(clock.offset() / 1000),
      };
    },
    tick: () => core.tick(),
    start(intervalMs = 15_000) {
      if (timer || closed) return;
      lanes.start().catch((err: unknown) => logger.error({ err }, 'lanes did not start'));
      void core.tick();
      // In the background: a large install's first start after the upgrade answers meanwhile.
      scrubbing = scrubFreeFormCardData(core, options.store, () => closed).catch((err: unknown) => logger.error({ err }, 'masking card data in stored free-form values failed; tried again at the next start'));
      timer = setInterval(() => void core.tick(), intervalMs);
      timer.unref();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      // Ports first: closing them settles whatever a lane was waiting for.
      await lanes.close();
      await webhooks.close();
      notifications.close();
      await sync.close();
      // A running import stops between two units of work; the next start resumes it.
      await imports.close();
      await scrubbing;
      // Let queued units of work and reads ahead finish before the store goes away.
      await core.mutate(async () => undefined);
      await receivables.close();
      await options.store.close();
    },
  };
}

export { storeLayouts } from './store-layouts';
export type { Clock } from './clock';
export type { Ids } from './ids';
export { ManualClock, systemClock } from './clock';
export { randomIds, sequentialIds } from './ids';
export { EngineError, fail, isEngineError } from './errors';
export type { DomainEvent } from './events';
