/**
 * Live event streams under load, over loopback HTTP against a separate `serve` process: how long
 * GET /api/status takes while many clients replay the outbox (GET /api/events with an old
 * Last-Event-ID), beside the same request measured alone in the same run, and what the server's
 * memory does. The security probe that found the stall: 50 replays from 0 as the owner, 3.6 s of
 * stall; 2,000, /api/status failed after 135 s and the server grew to about 1 GB.
 *
 *   npx tsx bench/event-streams.ts                      # 20,000 events, 20 replays, 500 streams of one credential
 *   npx tsx bench/event-streams.ts --events 50000 --replays 50 --flood 2000
 *   ... --profile /tmp/lw-prof       # the server's CPU profile (node --cpu-prof), written when it stops
 *
 * Each replay starts 9,000 events back (under the 10,000 a stream replays) and is read to the end;
 * the flood opens streams from watermark 0 with one credential, as fast as the server takes them
 * (past the limit of 8 open streams per credential, each new one closes the oldest).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { arg, strArg } from './args';
import { startServe } from './serve-flags';

const TOKEN = 'BENCHTOKEN01';
const KEY = 'bench-key-0123456789';
const events = arg('events', 20_000);
const replays = arg('replays', 20);
const flood = arg('flood', 500);
/** `--profile DIR`: the server writes a CPU profile there (node --cpu-prof) when it stops. */
const profile = strArg('profile');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'laneway-bench-streams-'));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const auth = (token: string, key: string) => `Basic ${Buffer.from(`${token}:${key}`).toString('base64')}`;

/** The events (notes of 300 characters, as big as a lane's status event) and two more credentials. */
async function seed(): Promise<Array<{ token: string; key: string }>> {
  const [{ openDataStore }, { createEngine, storeLayouts }, { createLogger }, { putRecord }] = await Promise.all([
    import('../src/store'),
    import('../src/engine'),
    import('../src/engine/logger'),
    import('../src/engine/records'),
  ]);
  const store = await openDataStore({ directory: dir, layouts: storeLayouts });
  const engine = await createEngine({ store, logger: createLogger({ directory: path.join(dir, 'logs'), level: 'warn' }), firstToken: TOKEN, firstKey: KEY, timezone: 'UTC' });
  for (let from = 0; from < events; from += 1000) {
    await engine.core.mutate(async (tx) => {
      for (let i = from; i < Math.min(events, from + 1000); i++) {
        const key = `note-${i}-`.padEnd(300, 'x');
        await putRecord(tx, 'note', key, { key }, { type: 'note.updated', entity: 'note', key });
      }
    });
  }
  const more = await Promise.all([1, 2].map((i) => engine.account.credentials.create({ name: `bench-${i}` })));
  await engine.close();
  return [{ token: TOKEN, key: KEY }, ...more.map((c) => ({ token: c.token, key: c.key }))];
}

const startServer = () => startServe({ dir, token: TOKEN, key: KEY, nodeFlags: profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profile)] : [] });

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

function status(url: string, authorization: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/api/status`, { agent: false, headers: { Authorization: authorization } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`status ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

interface Opened {
  /** Its first bytes arrived (the server answered it). */
  started: Promise<void>;
  /** The bytes read, and whether the server ended it (or `until` stopped reading). */
  done: Promise<{ bytes: number; ended: boolean }>;
  close(): void;
}

/** Opens a stream and reads it until `until` says so, or it ends. */
function open(url: string, authorization: string, query: string, headers: Record<string, string>, until: (tail: string) => boolean = () => false): Opened {
  let started!: () => void;
  const opened = { started: new Promise<void>((r) => (started = r)) } as Opened;
  opened.done = new Promise((resolve, reject) => {
    const req = http.get(`${url}/api/events${query}`, { agent: false, headers: { Authorization: authorization, ...headers } }, (res) => {
      let bytes = 0;
      let tail = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        started();
        bytes += Buffer.byteLength(chunk);
        tail = (tail + chunk).slice(-4096);
        if (until(tail)) {
          req.destroy();
          resolve({ bytes, ended: false });
        }
      });
      res.on('end', () => resolve({ bytes, ended: true }));
    });
    opened.close = () => {
      req.destroy();
      resolve({ bytes: 0, ended: false });
    };
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
  });
  return opened;
}

/** /api/status one request at a time while `work` runs (at least `min` of them). */
async function statusDuring(url: string, authorization: string, work: Promise<unknown>, min = 5): Promise<number[]> {
  const times: number[] = [];
  let done = false;
  void work.finally(() => (done = true));
  while (!done || times.length < min) times.push(await status(url, authorization));
  return times.sort((a, b) => a - b);
}

const row = (label: string, times: number[], extra = '') =>
  console.log(`| ${label} | ${times.length} | ${pct(times, 50).toFixed(1)} | ${pct(times, 99).toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${extra} |`);

async function main(): Promise<void> {
  const creds = await seed();
  const { child, url } = await startServer();
  const owner = auth(TOKEN, KEY);
  try {
    for (let i = 0; i < 20; i++) await status(url, owner);
    console.log(`\nbench/event-streams: ${events.toLocaleString('en-US')} events of about 400 bytes; GET /api/status one at a time\n`);
    console.log('| while | requests | p50 ms | p99 ms | max ms | |');
    console.log('|---|---:|---:|---:|---:|---|');
    const alone: number[] = [];
    for (let i = 0; i < 50; i++) alone.push(await status(url, owner));
    row('nothing else (baseline)', alone.sort((a, b) => a - b), `server RSS ${rssMb(child.pid!).toFixed(0)} MB`);

    const from = String(Math.max(0, events - 9_000));
    const last = `"key":"note-${events - 1}-`;
    const started = performance.now();
    const reading = Promise.all(Array.from({ length: replays }, (_, i) => open(url, auth(creds[i % 3]!.token, creds[i % 3]!.key), '', { 'Last-Event-ID': from }, (t) => t.includes(last)).done));
    const during = await statusDuring(url, owner, reading);
    const read = await reading;
    const mb = read.reduce((n, r) => n + r.bytes, 0) / 2 ** 20;
    row(`${replays} replays of 9,000 events`, during, `${mb.toFixed(0)} MB sent in ${((performance.now() - started) / 1000).toFixed(1)} s; server RSS ${rssMb(child.pid!).toFixed(0)} MB`);

    // The probe's attack: streams from watermark 0 with one credential, each opened once the last is answered.
    const flooding: Opened[] = [];
    const opening = (async () => {
      for (let i = 0; i < flood; i++) {
        const s = open(url, owner, '?watermark=0', {});
        flooding.push(s);
        await s.started;
      }
    })();
    const flooded = await statusDuring(url, owner, opening);
    const peak = rssMb(child.pid!);
    // The server closes the oldest as newer ones come (a tree without the limit never does): a second to see it.
    let closed = 0;
    const older = flooding.slice(0, -8);
    for (const s of older) void s.done.then((r) => (closed += r.ended ? 1 : 0));
    await Promise.race([Promise.all(older.map((s) => s.done)), new Promise((r) => setTimeout(r, 1000))]);
    for (const s of flooding) s.close();
    row(`${flood} streams from 0, one credential`, flooded, `${closed} of the first ${older.length} closed by newer ones; server RSS ${peak.toFixed(0)} MB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
