import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { tempDir } from '../helpers/tmp';

const children: ChildProcess[] = [];
const dirs: Array<() => void> = [];
/** npm runs serve under a shell: the whole process group is signalled, or the server outlives the test. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false; // the group is gone
  }
}

afterEach(() => {
  for (const c of children.splice(0)) signalGroup(c, 'SIGKILL');
  for (const d of dirs.splice(0)) d();
});

/** Starts `npm run serve` as a user would and waits for the line with the URL. */
function serve(dataDir: string, env: Record<string, string> = {}): Promise<{ url: string; output: string; child: ChildProcess }> {
  const child = spawn('npm', ['run', 'serve', '--', '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1'], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/api\b/.exec(output)?.[1];
      if (url && output.includes('Screens:') && (output.includes('API key:') || !output.includes('First API credentials'))) {
        clearTimeout(timer);
        setTimeout(() => resolve({ url, output, child }), 100);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${output}`)));
  });
}

/** SIGTERM to npm and the server under it; resolves once no process of the group is left. */
async function stop(child: ChildProcess): Promise<void> {
  if (!signalGroup(child, 'SIGTERM')) return;
  for (let waited = 0; signalGroup(child, 0); waited += 50) {
    if (waited > 10_000) signalGroup(child, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npm run serve', () => {
  it('creates a sandbox account on a new folder, prints credentials once, and they work', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const first = await serve(tmp.dir);
    const token = /API token: (\S+)/.exec(first.output)?.[1];
    const key = /API key:\s+(\S+)/.exec(first.output)?.[1];
    expect(token && key).toBeTruthy();
    const who = await fetch(`${first.url}/api/whoami`, { headers: { Authorization: `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}` } });
    expect(who.status).toBe(200);
    const body = (await who.json()) as { whoami: Record<string, { environment: string }> };
    expect(body.whoami[token!]!.environment).toBe('sandbox');
    await stop(first.child);

    const second = await serve(tmp.dir);
    expect(second.output).not.toContain('API key:');
    const again = await fetch(`${second.url}/api/whoami`, { headers: { Authorization: `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}` } });
    expect(again.status).toBe(200);
    await stop(second.child);
  }, 120_000);

  it('takes its first credentials from LANEWAY_API_TOKEN and LANEWAY_API_KEY', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const run = await serve(tmp.dir, { LANEWAY_API_TOKEN: 'SCRIPTTOKEN01', LANEWAY_API_KEY: 'script-key-123456' });
    const who = await fetch(`${run.url}/api/whoami`, { headers: { Authorization: `Basic ${Buffer.from('SCRIPTTOKEN01:script-key-123456').toString('base64')}` } });
    expect(who.status).toBe(200);
    await stop(run.child);
  }, 60_000);
});
