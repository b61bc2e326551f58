import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SocatPair } from '../serial/helpers';
import { apiOf, start, until, type Proc } from './processes';

/**
 * A register as a shop runs it, for the browser tests of the cashier screens: `npm run serve` on
 * a fresh data folder, `npm run terminal-sim` (interactive: the test plays the customer) on a
 * socat serial pair, and lane 1 set up on it. The sample cashier's code is read from serve's
 * first-start lines.
 */
export interface RegisterInstall {
  dir: string;
  serve: Proc;
  sim: Proc;
  pair: SocatPair;
  url: string;
  cashierCode: string;
  close(): Promise<void>;
}

export async function startRegisterInstall(name: string, credentials: { token: string; key: string }, options: { simArgs?: string[]; lane?: Record<string, unknown> } = {}): Promise<RegisterInstall> {
  const dir = mkdtempSync(join(tmpdir(), `laneway-${name}-`));
  let serve: Proc | undefined;
  let sim: Proc | undefined;
  let pair: SocatPair | undefined;
  const close = async () => {
    await sim?.stop();
    await serve?.stop();
    await pair?.unplug();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    serve = start(['serve', '--', '--data-dir', join(dir, 'data'), '--port', '0', '--timezone', 'UTC'], { LANEWAY_API_TOKEN: credentials.token, LANEWAY_API_KEY: credentials.key });
    const url = (await serve.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/api\b/, 'serve to print its URL'))[1]!;
    const cashierCode = (await serve.waitFor(/Sample cashier of this sandbox \(shown once\): Sam Rivera, code (\d{4})/, 'the sample cashier line'))[1]!;
    pair = new SocatPair(dir, 'lane1');
    await pair.plug();
    sim = start(['terminal-sim', '--', '--port', pair.device, '--interactive', '--pace', 'fast', ...(options.simArgs ?? [])]);
    await sim.waitFor(/terminal simulator/, 'the simulator to start');
    const api = apiOf(() => url, credentials.token, credentials.key);
    await api('POST', '/api/lanes', { laneid: '1', port_path: pair.host, name: 'Lane 1', ...(options.lane ?? {}) });
    await until(async () => (await api<{ last_setup_at: string | null }>('GET', '/api/lanes/1')).last_setup_at !== null, 'lane 1 to connect and be set up');
    return { dir, serve, sim, pair, url, cashierCode, close };
  } catch (err) {
    await close();
    throw err;
  }
}
