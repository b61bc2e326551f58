import { join } from 'node:path';
import { createEngine, storeLayouts, type Engine, type FirstStart } from '../engine';
import { createLogger } from '../engine/logger';
import { upgradeProgress } from './upgrade-progress';
import { openDataStore } from '../store';
import { startServer, type RunningServer } from '../server/http';
import { createSerialLaneDriver } from '../terminal';
import { lockDataFolder } from './folder-lock';
import type { KeyProtector } from '../engine/security/install-keys';
import { welcomeLink } from '../shared/welcome-link';

export interface LaunchOptions {
  dataDir: string;
  host?: string;
  port?: number;
  rateLimit?: number;
  /** Event streams (GET /api/events) one credential or user holds open at once. */
  maxStreams?: number;
  /** Base URL of links in answers (pay_url); default the bound address. */
  publicUrl?: string;
  /** Host names besides localhost and IP addresses the API answers to. */
  hostNames?: string[];
  uiDir?: string;
  logLevel?: string;
  logToStdout?: boolean;
  timezone?: string;
  /** Read-ahead of invoice export pages (default on). */
  exportReadAhead?: boolean;
  /** Path of a better-sqlite3 binary built for Electron's ABI. */
  sqliteBinding?: string;
  /** Who holds the data folder's lock (serve, desktop), as a second start is told. */
  program?: string;
  /** Seals the install's key file (the desktop window: the OS keychain; see docs/key-management.md). */
  keyProtector?: KeyProtector;
  /** Make this install a lane of the hub at this address (with `pairingCode` the first time). */
  hub?: string;
  pairingCode?: string;
  /** How often a lane asks its hub for changes (ms, default 1000). */
  syncPollMs?: number;
  /** Hub → central through NATS JetStream (docs/sync.md): servers, this install's role, the shop's name. */
  chain?: { servers: string[]; role: 'hub' | 'central'; shop: string; replicas?: number };
}

export interface Launched {
  engine: Engine;
  server: RunningServer;
  /** What to tell the person who started it. */
  banner: string[];
  stop(): Promise<void>;
}

/** Replication with the hub this install is a lane of; `--hub URL --pairing-code CODE` pairs it the first time. */
async function startSync(engine: Engine, options: LaunchOptions): Promise<void> {
  await engine.sync.start(options.syncPollMs ? { pollMs: options.syncPollMs } : {});
  if (options.chain) await engine.sync.startChain(options.chain);
  if (!options.hub || !options.pairingCode) return;
  const paired = (await engine.sync.status()).peers.some((p) => p.role === 'hub');
  if (!paired) await engine.sync.joinHub(options.hub, options.pairingCode);
}

/** Store, engine and HTTP server, as `serve` and the Electron main process both start them. */
export async function launch(options: LaunchOptions): Promise<Launched> {
  // Before anything opens the folder: a second server on it would fight the first over the lanes'
  // serial ports and the store. Throws FolderLockedError naming the holder.
  const lock = lockDataFolder(options.dataDir, options.program ?? 'serve');
  let engine: Engine | undefined;
  try {
    const logger = createLogger({
      directory: join(options.dataDir, 'logs'),
      level: options.logLevel ?? 'info',
      stdout: options.logToStdout ?? false,
    });
    const store = await openDataStore({
      directory: options.dataDir,
      layouts: storeLayouts,
      ...(options.sqliteBinding ? { nativeBinding: options.sqliteBinding } : {}),
      // Once per upgrade, and long on a big file: said where the person starting the app looks.
      onRelayout: upgradeProgress((line) => {
        logger.info({ line }, 'store layout upgrade');
        console.log(line);
      }),
    });
    engine = await createEngine({
      store,
      logger,
      ...(process.env.LANEWAY_API_TOKEN ? { firstToken: process.env.LANEWAY_API_TOKEN } : {}),
      ...(process.env.LANEWAY_API_KEY ? { firstKey: process.env.LANEWAY_API_KEY } : {}),
      ...(options.timezone ? { timezone: options.timezone } : {}),
      ...(options.exportReadAhead === false ? { exportReadAhead: false } : {}),
      laneDriver: createSerialLaneDriver(),
      deferFirstStart: true,
      webhookDelivery: webhookTimingFromEnv(),
      ...(options.keyProtector ? { keyProtector: options.keyProtector } : {}),
    });
    const server = await startServer(engine, {
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
      ...(options.maxStreams ? { eventStreams: { perCredential: options.maxStreams } } : {}),
      ...(options.uiDir ? { uiDir: options.uiDir } : {}),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      ...(options.hostNames?.length ? { hostNames: options.hostNames } : {}),
    });
    // Only now that the socket listens: a start that failed before made no credential nobody saw.
    const first = await engine.firstStart();
    engine.start(tickMsFromEnv());
    await startSync(engine, options);
    const status = engine.status();
    const banner = [
      `Laneway ${status.version}: ${status.name} (${status.environment}), data folder ${options.dataDir}`,
      `API:     ${server.url}/api   (docs ${server.url}/api/docs)`,
      `Screens: ${server.url}/app/customers (back office)   ${server.url}/app/register (register)`,
    ];
    banner.push(...firstStartLines(first, server.url));
    logger.info({ url: server.url, dataDir: options.dataDir, environment: status.environment }, 'laneway started');
    const running = engine;
    return {
      engine: running,
      server,
      banner,
      async stop() {
        try {
          await server.close();
          await running.close();
          logger.flush();
        } finally {
          lock.release();
        }
      },
    };
  } catch (err) {
    await engine?.close().catch(() => undefined);
    lock.release();
    throw err;
  }
}

/** Shorter webhook timing for tests that run serve (default: the 10 s timeout and 1 s first retry). */
/**
 * For tests only: `LANEWAY_TICK_MS` runs the engine's tick (autopay, reminders, settling, ...) that
 * often instead of every 15 s, so a browser test waiting on it waits less. Unset, 15 s as always.
 */
function tickMsFromEnv(): number | undefined {
  const ms = Number(process.env.LANEWAY_TICK_MS);
  return ms > 0 ? ms : undefined;
}

function webhookTimingFromEnv(): { timeoutMs?: number; retryBaseMs?: number } {
  const timeout = Number(process.env.LANEWAY_WEBHOOK_TIMEOUT_MS);
  const retry = Number(process.env.LANEWAY_WEBHOOK_RETRY_MS);
  return { ...(timeout > 0 ? { timeoutMs: timeout } : {}), ...(retry > 0 ? { retryBaseMs: retry } : {}) };
}

/** What a first start shows once: credentials, the sample cashier, the owner's sign-in link. */
function firstStartLines(first: FirstStart, url: string): string[] {
  const lines: string[] = [];
  if (first.credentials) {
    const { token, key } = first.credentials;
    lines.push(
      'First API credentials of this install (shown once; only a hash of the key is kept):',
      `  API token: ${token}`,
      `  API key:   ${key}`,
      `  e.g. curl -u ${token}:${key} ${url}/api/whoami`,
    );
  }
  if (first.cashier) {
    const c = first.cashier;
    lines.push(`Sample cashier of this sandbox (shown once): ${c.name}, code ${c.code}. Add a lane, then sign in on it at ${url}/app`);
  }
  if (first.owner) {
    lines.push(
      `Back-office owner (${first.owner.user.email}): open this one-time link within 24 hours to choose a password:`,
      `  ${welcomeLink(url, first.owner.link, first.owner.user.email)}`,
    );
  }
  if (!first.credentials) lines.push('Lost the API key or a cashier code? Stop Laneway, then: npm run admin -- help');
  return lines;
}
