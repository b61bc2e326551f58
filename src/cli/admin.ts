import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createEngine, storeLayouts, isEngineError, type Engine } from '../engine';
import { createLogger } from '../engine/logger';
import { DATA_FILE, openDataStore } from '../store';
import { parseArgs } from './args';
import { FolderLockedError, lockDataFolder } from './folder-lock';
import { defaultDataDir, DEFAULT_PORT } from './paths';
import { welcomeLink } from '../shared/welcome-link';

const USAGE = `Usage: npm run admin -- COMMAND [--data-dir DIR]

Works on the data folder itself, with Laneway stopped (it refuses while a server or the desktop
app has the folder open: use the API's /api/account/credentials then).

  list-credentials                 the API credentials: token, name, created, enabled
  new-credentials [--name NAME] [--kind api|partner]
                                   a new API token and key (the key is shown once); partner: onboarding only
  disable-credential TOKEN         that token and its JWTs stop working at once
  reset-owner                      a new one-time sign-in link for the back-office owner (24 hours;
                                   also clears a lockout)
  list-cashiers                    the cashiers: id, name, active
  reset-cashier-code [--cashier NAME|ID]
                                   a new code for that cashier (shown once); the only cashier
                                   when there is one

The data folder defaults to LANEWAY_DATA_DIR or the OS's app-data folder, as serve's does.`;

type Command = (engine: Engine, args: Map<string, string>, positional: string[]) => Promise<void>;

const COMMANDS: Record<string, Command> = {
  async 'list-credentials'(engine) {
    const all = await engine.account.credentials.list();
    if (all.length === 0) return void console.log('No API credentials yet: make one with `npm run admin -- new-credentials`.');
    for (const c of all) console.log(`${c.token}  ${c.enabled ? 'enabled ' : 'disabled'}  created ${c.created_at}  ${c.name}${c.kind === 'api' ? '' : `  (${c.kind})`}`);
  },
  async 'new-credentials'(engine, args) {
    const kind = args.get('kind') ?? 'api';
    if (kind !== 'api' && kind !== 'partner') throw new UsageError('--kind is api (default) or partner (onboarding only)');
    const made = await engine.account.credentials.create({ name: args.get('name') ?? 'Made with npm run admin', kind });
    console.log('New API credentials (shown once; only a hash of the key is kept):');
    console.log(`  API token: ${made.token}`);
    console.log(`  API key:   ${made.key}`);
  },
  async 'disable-credential'(engine, _args, positional) {
    const token = positional[0];
    if (!token) throw new UsageError('disable-credential needs the token: npm run admin -- disable-credential TOKEN');
    const c = await engine.account.credentials.disable(token);
    console.log(`Disabled ${c.token} (${c.name}) at ${c.disabled_at}`);
  },
  async 'reset-owner'(engine) {
    const owner = engine.users.owner() ?? (await engine.users.ensureOwner())?.user;
    if (!owner) throw new UsageError('This install has no owner');
    const { user, link } = await engine.users.newLink(owner.id);
    const base = process.env.LANEWAY_PUBLIC_URL ?? `http://127.0.0.1:${process.env.LANEWAY_PORT ?? DEFAULT_PORT}`;
    console.log(`New sign-in link for the owner ${user.email} (works once, for 24 hours; start Laneway first):`);
    console.log(`  ${welcomeLink(base, link, user.email)}`);
  },
  async 'list-cashiers'(engine) {
    const all = await engine.register.cashiers();
    if (all.length === 0) return void console.log('No cashiers yet: add them on the screens or at /api/pos/cashiers.');
    for (const c of all) console.log(`${c.id}  ${c.active ? 'active  ' : 'inactive'}  ${c.name}`);
  },
  async 'reset-cashier-code'(engine, args) {
    let who = args.get('cashier');
    if (!who) {
      const all = await engine.register.cashiers();
      if (all.length !== 1) throw new UsageError(`${all.length === 0 ? 'There are no cashiers' : `There are ${all.length} cashiers`}: say which with --cashier NAME (see list-cashiers)`);
      who = all[0]!.id;
    }
    const { cashier, code } = await engine.register.resetCashierCode(who);
    console.log(`New code for ${cashier.name}: ${code} (shown once)${cashier.active ? '' : '. This cashier is inactive: activate them to sign in.'}`);
  },
};

class UsageError extends Error {}

/** Admin commands on a stopped install: the engine does the work; this only parses and prints. */
async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const args = parseArgs(argv);
  // Words that are not flags or flag values, the way parseArgs pairs them.
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) positional.push(a);
    else if (!a.includes('=') && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) i++;
  }
  const [name, ...rest] = positional;
  if (!name || name === 'help' || args.has('help')) {
    console.log(USAGE);
    return name || args.has('help') ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`Unknown command ${name}.\n\n${USAGE}`);
    return 2;
  }
  const dataDir = resolve(args.get('data-dir') ?? defaultDataDir());
  if (!existsSync(join(dataDir, DATA_FILE))) {
    console.error(`No Laneway data folder at ${dataDir} (no ${DATA_FILE}): start Laneway once, or give --data-dir.`);
    return 1;
  }
  // The running server keeps credentials and cashiers in memory: changing the file under it would
  // not reach it, so the admin takes the same lock and refuses while the folder is in use.
  const lock = lockDataFolder(dataDir, 'admin');
  try {
    const logger = createLogger({ directory: join(dataDir, 'logs'), level: 'info', stdout: false });
    const engine = await createEngine({ store: await openDataStore({ directory: dataDir, layouts: storeLayouts }), logger, deferFirstStart: true, deliver: false });
    try {
      await command(engine, args, rest);
    } finally {
      await engine.close();
      logger.flush();
    }
  } finally {
    lock.release();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof FolderLockedError) console.error(`${err.message}\nThe admin commands work on a stopped install only.`);
    else if (err instanceof UsageError || isEngineError(err)) console.error(err.message);
    else {
      console.error(`Admin command failed: ${err instanceof Error ? err.message : String(err)}`);
      if (process.env.LANEWAY_DEBUG && err instanceof Error) console.error(err.stack);
    }
    process.exit(1);
  },
);
