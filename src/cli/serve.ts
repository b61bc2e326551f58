import { fileURLToPath } from 'node:url';
import { basename, dirname, resolve } from 'node:path';
import { launch } from './launch';
import { parseArgs, intFlag } from './args';
import { defaultDataDir, DEFAULT_PORT } from './paths';

const USAGE = `Usage: npm run serve -- [--data-dir DIR] [--port N] [--host 127.0.0.1] [--rate-limit N]
                         [--max-streams N] [--public-url URL] [--allowed-hosts name,name]
                         [--log-level info|debug] [--timezone Area/City] [--no-read-ahead]
                         [--hub URL --pairing-code CODE] [--sync-poll-ms N]
                         [--nats host:port,... --chain-role hub|central --shop NAME [--nats-replicas 3]]
  --public-url is the base of links in answers (pay_url), default the bound address; its host name and
  --allowed-hosts are the names (besides localhost and IP addresses) the API answers to.
  --hub makes this install a lane of the hub at URL, with the code the hub showed (once; later starts resume).
  --max-streams is how many live event streams one credential or user holds open (default 8; a
  screen holds one, and a new one past it closes the oldest).
  --port 0 picks a free port. --no-read-ahead reads every export page only when it is asked for. Set LANEWAY_API_TOKEN and LANEWAY_API_KEY to choose the first credentials.`;

/** Headless engine + API + the built screens: CI, servers, and machines without Electron. */
async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.has('help')) {
    console.log(USAGE);
    return;
  }
  // A signal during start-up stops the server as soon as it is up (not half-way, with the lock
  // and the store left open).
  let early: string | undefined;
  const onEarly = (signal: string) => () => (early ??= signal);
  const earlyInt = onEarly('SIGINT');
  const earlyTerm = onEarly('SIGTERM');
  process.once('SIGINT', earlyInt);
  process.once('SIGTERM', earlyTerm);
  // Built into out/cli/ (scripts/cli-build.mjs), the screens beside it in out/renderer/; run from
  // src/cli/ (tsx, the benchmarks), they are in out/renderer/ all the same.
  const here = dirname(fileURLToPath(import.meta.url));
  const launched = await launch({
    dataDir: resolve(args.get('data-dir') ?? defaultDataDir()),
    host: args.get('host') ?? process.env.LANEWAY_HOST ?? '127.0.0.1',
    port: intFlag(args, 'port', process.env.LANEWAY_PORT ? Number(process.env.LANEWAY_PORT) : DEFAULT_PORT) ?? DEFAULT_PORT,
    ...(intFlag(args, 'rate-limit', process.env.LANEWAY_RATE_LIMIT ? Number(process.env.LANEWAY_RATE_LIMIT) : undefined) ? { rateLimit: intFlag(args, 'rate-limit', Number(process.env.LANEWAY_RATE_LIMIT)) } : {}),
    ...(intFlag(args, 'max-streams', undefined) ? { maxStreams: intFlag(args, 'max-streams', undefined) } : {}),
    uiDir: resolve(args.get('ui-dir') ?? (basename(dirname(here)) === 'src' ? resolve(here, '../../out/renderer') : resolve(here, '../renderer'))),
    program: 'serve',
    ...(args.get('public-url') ?? process.env.LANEWAY_PUBLIC_URL ? { publicUrl: args.get('public-url') ?? process.env.LANEWAY_PUBLIC_URL } : {}),
    hostNames: (args.get('allowed-hosts') ?? process.env.LANEWAY_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean),
    logLevel: args.get('log-level') ?? 'info',
    logToStdout: args.has('log-level'),
    ...(args.get('timezone') ? { timezone: args.get('timezone') } : {}),
    ...(args.has('no-read-ahead') ? { exportReadAhead: false } : {}),
    ...(args.get('hub') ? { hub: args.get('hub') } : {}),
    ...(args.get('nats')
      ? { chain: { servers: args.get('nats')!.split(','), role: args.get('chain-role') === 'central' ? ('central' as const) : ('hub' as const), shop: args.get('shop') ?? 'shop', replicas: intFlag(args, 'nats-replicas', 1) ?? 1 } }
      : {}),
    ...(args.get('pairing-code') ? { pairingCode: args.get('pairing-code') } : {}),
    ...(intFlag(args, 'sync-poll-ms', undefined) ? { syncPollMs: intFlag(args, 'sync-poll-ms', undefined) } : {}),
  });
  for (const line of launched.banner) console.log(line);

  // SIGTERM (a service manager, `kill`, npm passing it on) and SIGINT (Ctrl-C) stop the same way:
  // stop listening, let requests in flight finish, close the lanes and the store, release the
  // data folder, exit 0. A second signal while stopping does not wait any longer.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.log(`Laneway stopping now (${signal} again)`);
      process.exit(1);
    }
    stopping = true;
    console.log(`Laneway stopping (${signal})`);
    launched.stop().then(
      () => {
        console.log('Laneway stopped');
        process.exit(0);
      },
      (err: unknown) => {
        console.error(`Laneway did not stop cleanly: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.removeListener('SIGINT', earlyInt);
  process.removeListener('SIGTERM', earlyTerm);
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (early) stop(early);
}

function explain(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e?.code === 'EADDRINUSE') return `port ${e.port ?? ''} on ${e.address ?? 'this machine'} is already in use: stop what uses it, or choose another with --port`;
  return err instanceof Error ? err.message : String(err);
}

main().catch((err: unknown) => {
  console.error(`Laneway could not start: ${explain(err)}`);
  // The stack is for whoever diagnoses it, not for the person starting the app.
  if (process.env.LANEWAY_DEBUG && err instanceof Error) console.error(err.stack);
  process.exit(1);
});
