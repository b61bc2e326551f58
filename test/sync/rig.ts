import { createServer, connect, type Server, type Socket } from 'node:net';
import { start, until, type Proc } from '../e2e/processes';
import { openDataStore, type DataStore } from '../../src/store';
import { storeLayouts } from '../../src/engine';
import { bodyOf, SYNC_STREAMS, changesSince } from '../../src/engine/sync/streams';
import type { StoredDoc } from '../../src/store/schema';

/**
 * Real installs on loopback for the sync tests: `npm run serve` per data folder, and a TCP proxy
 * between a lane and its hub that the test cuts (every open connection reset, new ones refused)
 * and restores.
 */
export interface Install {
  name: string;
  dir: string;
  proc: Proc;
  url: string;
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
}

/** `env` adds to the process's environment (a benchmark's NODE_OPTIONS for a CPU profile). */
export async function startInstall(name: string, dir: string, extra: string[] = [], creds = { token: `${name.toUpperCase()}TOKEN1`, key: `${name}-secret-key-1` }, env: Record<string, string> = {}): Promise<Install> {
  const proc = start(['serve', '--', '--data-dir', dir, '--port', '0', '--host', '127.0.0.1', ...extra], { ...env, LANEWAY_API_TOKEN: creds.token, LANEWAY_API_KEY: creds.key });
  const url = (await proc.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/api\b/, `${name} to listen`, 120_000))[1]!;
  await proc.waitFor(/Screens:/, `${name} banner`);
  const auth = `Basic ${Buffer.from(`${creds.token}:${creds.key}`).toString('base64')}`;
  return {
    name,
    dir,
    proc,
    url,
    async api<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${url}${path}`, { method, headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${name} ${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    },
  };
}

/** SIGKILL to the install's process group: no shutdown, whatever was in flight is lost. */
export async function killHard(install: Install): Promise<void> {
  const pid = install.proc.child.pid!;
  const gone = new Promise<void>((resolve) => install.proc.child.once('exit', () => resolve()));
  process.kill(-pid, 'SIGKILL');
  await gone;
  // The group's other processes (npm's shell, the server) go with it; wait until none is left.
  await until(async () => {
    try {
      process.kill(-pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 'the killed process group to be gone', 10_000);
}

export interface Proxy {
  url: string;
  cut(): void;
  restore(): void;
  /** The next `n` answers to requests whose bytes contain `marker` are lost: the request reaches the hub, its answer never the lane. */
  loseAnswers(marker: string, n: number): void;
  /** How many answers were lost so far. */
  lost(): number;
  /** Answers to requests whose bytes contain `marker` reach the lane `ms` late (a slow link back), until cleared with 0. */
  delayAnswers(marker: string, ms: number): void;
  close(): Promise<void>;
}

/** `tap` sees what clients send (a test reads the request lines that went through). */
export async function startProxy(target: string, options: { tap?: (chunk: Buffer) => void } = {}): Promise<Proxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let up = true;
  let lose: { marker: string; left: number } | null = null;
  let lostCount = 0;
  let delay: { marker: string; ms: number } | null = null;
  const server: Server = createServer((client) => {
    if (!up) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    if (options.tap) client.on('data', (chunk: Buffer) => options.tap!(chunk));
    let losing = false;
    let lateMs = 0;
    client.on('data', (chunk: Buffer) => {
      if (lose && lose.left > 0 && chunk.includes(lose.marker)) {
        lose.left -= 1;
        losing = true;
      }
      // A new request on a kept-alive connection decides for its own answer.
      if (/^[A-Z]+ \//.test(chunk.subarray(0, 16).toString('latin1'))) lateMs = delay && chunk.includes(delay.marker) ? delay.ms : 0;
    });
    client.pipe(upstream);
    // Held answers keep their order: each chunk waits for the one before it.
    let sent = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      if (losing) {
        lostCount += 1;
        drop();
      } else if (lateMs > 0) {
        const ms = lateMs;
        sent = sent.then(() => new Promise((r) => setTimeout(r, ms))).then(() => void client.write(chunk));
      } else sent = sent.then(() => void client.write(chunk));
    });
    upstream.on('end', () => void sent.then(() => client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut() {
      up = false;
      for (const s of open) s.resetAndDestroy();
      open.clear();
    },
    restore() {
      up = true;
    },
    loseAnswers(marker, n) {
      lose = { marker, left: n };
    },
    lost: () => lostCount,
    delayAnswers(marker, ms) {
      delay = { marker, ms };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let reading: Promise<unknown> = Promise.resolve();

/**
 * Every document of every sync stream in a stopped install's store, by stream and id, without
 * watermarks. One store at a time: RxDB closes a database opened under the same name in the same
 * process (closeDuplicates), so two read at once could close each other's mid-open.
 */
export function streamDocuments(dir: string): Promise<Map<string, Map<string, Record<string, unknown>>>> {
  const next = reading.then(() => readStreamDocuments(dir));
  reading = next.catch(() => undefined);
  return next;
}

async function readStreamDocuments(dir: string): Promise<Map<string, Map<string, Record<string, unknown>>>> {
  const store: DataStore = await openDataStore({ directory: dir, layouts: storeLayouts });
  try {
    const reader = {
      find: async <T extends StoredDoc>(collection: string, query: Parameters<DataStore['find']>[1]) => (await store.find(collection, query)) as unknown as T[],
    };
    const out = new Map<string, Map<string, Record<string, unknown>>>();
    for (const stream of SYNC_STREAMS) {
      const docs = await changesSince(reader as never, stream, 0, 10_000_000);
      out.set(stream.name, new Map(docs.map((d) => [d.id, bodyOf(d)])));
    }
    return out;
  } finally {
    await store.close();
  }
}
