import { spawn, type ChildProcess } from 'node:child_process';

/**
 * `npm run serve` and `npm run terminal-sim` as a user starts them. Each runs in its own process
 * group so that stopping it stops npm and the program under it, and nothing else.
 */
export interface Proc {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output (bounded). */
  waitFor(pattern: RegExp, what: string, ms?: number): Promise<RegExpExecArray>;
  send(line: string): void;
  stop(): Promise<void>;
}

export function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn('npm', ['run', '--silent', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of [...waiters]) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  let exited = false;
  child.on('exit', () => {
    exited = true;
    for (const w of [...waiters]) w();
  });
  return {
    child,
    output: () => out,
    waitFor(pattern, what, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}; output so far:\n${out.slice(-3000)}`));
        }, ms);
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(m);
          } else if (exited) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`${args.join(' ')} exited before ${what}:\n${out.slice(-3000)}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    send(line) {
      child.stdin!.write(`${line}\n`);
    },
    async stop() {
      if (exited || child.pid === undefined) return;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 10_000);
      await done;
      // npm exits on the signal before the program under it has finished closing (its data
      // folder's lock, its port): wait until nothing of the group is left, so a restart finds them free.
      const pid = child.pid;
      const groupAlive = () => {
        try {
          process.kill(-pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      // Bounded: a member the container's init never reaps stays a zombie, which kill(0) still finds.
      for (const end = Date.now() + 15_000; groupAlive() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
      clearTimeout(timer);
    },
  };
}

/** Polls `check` until it answers something truthy; fails naming `what` after `ms`. */
export async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** JSON calls to a started `serve` with Basic credentials; `base()` is read at each call (set in beforeAll). */
export function apiOf(base: () => string, token: string, key: string) {
  const auth = `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;
  return async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${base()}${path}`, { method, headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
}
