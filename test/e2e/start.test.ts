import { afterEach, describe, expect, it } from 'vitest';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';
import { start, type Proc } from './processes';

/**
 * `npm start` as a user on this machine runs it: no display and no Electron binary, so it builds
 * the app when the sources are newer than the build, then runs the same engine headless.
 */
let proc: Proc | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await proc?.stop();
  proc = undefined;
  for (const c of cleanups.splice(0)) c();
});

describe('npm start', () => {
  it('rebuilds stale screens, starts headless, and the printed URL and credentials work', async () => {
    const { dir, cleanup } = tempDir('laneway-start-');
    cleanups.push(cleanup);
    // A source newer than the build: the start has to build first.
    const source = join(process.cwd(), 'src', 'renderer', 'index.html');
    const now = new Date();
    utimesSync(source, now, now);

    proc = start(['start', '--', '--data-dir', dir, '--port', '0'], { DISPLAY: '', WAYLAND_DISPLAY: '' });
    await proc.waitFor(/Building the app/, 'the build', 30_000);
    await proc.waitFor(/starting Laneway headless/, 'the headless start', 120_000);
    const [, base] = await proc.waitFor(/API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api/, 'the API URL');
    const [, token] = await proc.waitFor(/API token: (\S+)/, 'the token');
    const [, key] = await proc.waitFor(/API key:\s+(\S+)/, 'the key');

    const auth = `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;
    const whoami = await fetch(`${base}/api/whoami`, { headers: { authorization: auth } });
    expect(whoami.status).toBe(200);
    const screens = await fetch(`${base}/app`);
    expect(screens.status).toBe(200);
    expect(await screens.text()).toContain('<div id="root">');
  });
});
