import { afterEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp';

/**
 * Start-up and operations, as a person runs them: `npm run serve` and `npm run admin` as real
 * processes on real data folders.
 */
const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const c of cleanups.splice(0)) c();
});

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
}

/** `npm run NAME -- ARGS` in its own process group (the afterEach kills what is left). */
function npmRun(name: string, args: string[], env: Record<string, string> = {}): Run {
  const child = spawn('npm', ['run', '--silent', name, '--', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  return {
    child,
    output: () => out,
    exited,
    async waitFor(pattern, ms = 45_000) {
      const until = Date.now() + ms;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (done) throw new Error(`exited before ${pattern}:\n${out}`);
        if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

async function admin(dataDir: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const run = npmRun('admin', [...args, '--data-dir', dataDir]);
  const code = await run.exited;
  return { code, output: run.output() };
}

function folder(): string {
  const tmp = tempDir('laneway-startup-');
  cleanups.push(tmp.cleanup);
  return join(tmp.dir, 'shop');
}

const basic = (token: string, key: string) => ({ Authorization: `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}` });

async function started(run: Run): Promise<string> {
  const [, url] = await run.waitFor(/API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api/);
  // The banner's last line: the cashier code on a first start, the way back in on later ones.
  await run.waitFor(/Sample cashier of this sandbox|Lost the API key/);
  return url!;
}

/** Whether nothing is left in the process group led by `pid` within `ms` (npm, its shell, the server). */
async function groupGone(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    try {
      process.kill(-pid, 0);
    } catch {
      return true;
    }
  }
  return false;
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('first start', () => {
  it('a first start that fails (port in use) leaves no unseen credentials: the next start shows them and the cashier code', async () => {
    const dir = folder();
    const taken = createServer();
    servers.push(taken);
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as AddressInfo).port;

    const failed = npmRun('serve', ['--data-dir', dir, '--port', String(port)]);
    expect(await failed.exited).not.toBe(0);
    expect(failed.output()).toMatch(/already in use/);
    expect(failed.output()).not.toMatch(/API key/);
    expect(existsSync(join(dir, 'laneway.sqlite'))).toBe(true); // the folder was made before the port failed

    await new Promise((r) => taken.close(r));
    servers.splice(0);
    const second = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    const url = await started(second);
    const [, token] = await second.waitFor(/API token: (\S+)/);
    const [, key] = await second.waitFor(/API key:\s+(\S+)/);
    const [, code] = await second.waitFor(/Sample cashier of this sandbox \(shown once\): .*, code (\d+)/);
    expect((await fetch(`${url}/api/whoami`, { headers: basic(token!, key!) })).status).toBe(200);
    const lane = await fetch(`${url}/api/lanes`, { method: 'POST', headers: { ...basic(token!, key!), 'Content-Type': 'application/json' }, body: JSON.stringify({ laneid: '1', port_path: '/dev/ttyLANEWAYTEST1' }) });
    expect(lane.status).toBeLessThan(300);
    const shift = await fetch(`${url}/api/pos/shifts`, { method: 'POST', headers: { ...basic(token!, key!), 'Content-Type': 'application/json' }, body: JSON.stringify({ laneid: '1', code }) });
    expect(shift.status).toBe(201);
  }, 120_000);
});

describe('one server per data folder', () => {
  it('a second serve on the same folder exits non-zero naming the process that holds it; a stale lock is taken over', async () => {
    const dir = folder();
    const first = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    await started(first);
    const holder = JSON.parse(spawnSync('cat', [join(dir, 'laneway.lock')]).stdout.toString()) as { pid: number };
    expect(pidAlive(holder.pid)).toBe(true);

    const second = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(`in use by process ${holder.pid}`);
    expect(second.output()).not.toMatch(/API:/);

    // The admin commands refuse too, naming the same process.
    const refused = await admin(dir, 'list-credentials');
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`in use by process ${holder.pid}`);

    // Killed without a chance to clean up: its lock is stale, and the next start takes it over.
    process.kill(-first.child.pid!, 'SIGKILL');
    await first.exited;
    for (let i = 0; i < 100 && pidAlive(holder.pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, 'laneway.lock'))).toBe(true);
    const third = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    await started(third);

    // A lock naming a live process that is not the one that wrote it (a reused pid) is stale too.
    process.kill(-third.child.pid!, 'SIGKILL');
    await third.exited;
    writeFileSync(join(dir, 'laneway.lock'), JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), started_at: '2020-01-01T00:00:00Z', proc_start: '1', program: 'serve' }));
    const fourth = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    await started(fourth);
  }, 120_000);
});

describe('stopping serve', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process's pid stops the server: port freed, lock released, exit 0`, async () => {
      const dir = folder();
      const run = npmRun('serve', ['--data-dir', dir, '--port', '0']);
      const url = await started(run);
      const port = Number(new URL(url).port);
      // A live event stream is open: it must not hold the stop up.
      const [, token] = await run.waitFor(/API token: (\S+)/);
      const [, key] = await run.waitFor(/API key:\s+(\S+)/);
      const events = await fetch(`${url}/api/events`, { headers: basic(token!, key!) });
      expect(events.status).toBe(200);

      const t0 = Date.now();
      process.kill(run.child.pid!, signal); // npm's pid only, as a person or a service manager does
      expect(await run.exited).toBe(0);
      for (let i = 0; i < 100 && (await portAnswers(port)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await portAnswers(port)).toBe(false);
      expect(Date.now() - t0).toBeLessThan(8_000);
      expect(run.output()).toContain('Laneway stopped');
      expect(existsSync(join(dir, 'laneway.lock'))).toBe(false);
      expect(await groupGone(run.child.pid!, 2_000)).toBe(true);
    }, 90_000);
  }
});

describe('stopping npm start (headless)', () => {
  // `npm start` runs without `exec` (cmd.exe on Windows has none), so npm's SIGTERM ends its shell
  // only: the launcher and the server it started notice they are orphaned and stop cleanly.
  it("SIGTERM to the npm process's pid stops the headless server: port freed, lock released, nothing left", async () => {
    const dir = folder();
    const run = npmRun('start', ['--data-dir', dir, '--port', '0'], { DISPLAY: '', WAYLAND_DISPLAY: '', LANEWAY_HEADLESS: '1' });
    const url = await started(run);
    const port = Number(new URL(url).port);
    process.kill(run.child.pid!, 'SIGTERM');
    await run.exited;
    for (let i = 0; i < 100 && (await portAnswers(port)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await portAnswers(port)).toBe(false);
    await run.waitFor(/Laneway stopped/, 10_000).catch(() => undefined);
    for (let i = 0; i < 100 && existsSync(join(dir, 'laneway.lock')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, 'laneway.lock'))).toBe(false);
    expect(await groupGone(run.child.pid!, 3_000)).toBe(true);
  }, 120_000);
});

describe('a signal during start-up', () => {
  it('stops the server once it is up, cleanly: exit 0, lock released', async () => {
    const dir = folder();
    const run = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    // As soon as the folder is locked (start-up under way), before the server listens.
    for (let i = 0; i < 400 && !existsSync(join(dir, 'laneway.lock')); i++) await new Promise((r) => setTimeout(r, 5));
    process.kill(run.child.pid!, 'SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('Laneway stopped');
    expect(existsSync(join(dir, 'laneway.lock'))).toBe(false);
  }, 60_000);
});

describe('npm run admin', () => {
  it('lists, makes and disables credentials and resets a cashier code on a stopped install', async () => {
    const dir = folder();
    const first = npmRun('serve', ['--data-dir', dir, '--port', '0'], { LANEWAY_API_TOKEN: 'FIRSTTOKEN01', LANEWAY_API_KEY: 'first-key-0123456789' });
    await started(first);
    process.kill(first.child.pid!, 'SIGTERM');
    expect(await first.exited).toBe(0);

    const listed = await admin(dir, 'list-credentials');
    expect(listed.code).toBe(0);
    expect(listed.output).toMatch(/FIRSTTOKEN01\s+enabled/);
    expect(listed.output).not.toContain('first-key');

    const made = await admin(dir, 'new-credentials', '--name', 'Back office');
    expect(made.code).toBe(0);
    const token = /API token: (\S+)/.exec(made.output)![1]!;
    const key = /API key:\s+(\S+)/.exec(made.output)![1]!;

    expect((await admin(dir, 'disable-credential', 'FIRSTTOKEN01')).code).toBe(0);
    expect((await admin(dir, 'list-credentials')).output).toMatch(/FIRSTTOKEN01\s+disabled/);
    expect((await admin(dir, 'disable-credential', 'NOSUCHTOKEN1')).code).not.toBe(0);

    const reset = await admin(dir, 'reset-cashier-code');
    expect(reset.code).toBe(0);
    const code = /New code for .*: (\d+)/.exec(reset.output)![1]!;

    const again = npmRun('serve', ['--data-dir', dir, '--port', '0']);
    const url = await started(again);
    expect(again.output()).not.toContain('API key:');
    expect((await fetch(`${url}/api/whoami`, { headers: basic(token, key) })).status).toBe(200);
    expect((await fetch(`${url}/api/whoami`, { headers: basic('FIRSTTOKEN01', 'first-key-0123456789') })).status).toBe(401);
    const json = { ...basic(token, key), 'Content-Type': 'application/json' };
    expect((await fetch(`${url}/api/lanes`, { method: 'POST', headers: json, body: JSON.stringify({ laneid: '1', port_path: '/dev/ttyLANEWAYTEST1' }) })).status).toBeLessThan(300);
    expect((await fetch(`${url}/api/pos/shifts`, { method: 'POST', headers: json, body: JSON.stringify({ laneid: '1', code }) })).status).toBe(201);
  }, 150_000);

  it('says what it needs: unknown command, no data folder', async () => {
    const unknown = await admin(folder(), 'bogus');
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('new-credentials');
    const missing = await admin(folder(), 'list-credentials');
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('No Laneway data folder');
  }, 60_000);
});
