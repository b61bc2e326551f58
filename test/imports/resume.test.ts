import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTestEngine } from '../helpers/harness';
import { tempDir } from '../helpers/tmp';
import { upload, type Batch } from './upload';

const TOKEN = 'IMPORTTOKEN01';
const KEY = 'import-key-0123456789';
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;
const children: ChildProcess[] = [];
const dirs: Array<() => void> = [];

function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
}

afterEach(() => {
  for (const c of children.splice(0)) signalGroup(c, 'SIGKILL');
  for (const d of dirs.splice(0)) d();
});

/** `npm run serve` as a user starts it (see test/cli/serve.test.ts), on a given folder. */
function serve(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('npm', ['run', 'serve', '--', '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1'], {
    cwd: process.cwd(),
    env: { ...process.env, LANEWAY_API_TOKEN: TOKEN, LANEWAY_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/api\b/.exec(output)?.[1];
      if (url && output.includes('Screens:')) {
        clearTimeout(timer);
        resolve({ url, child });
      }
    });
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${output}`)));
  });
}

const batch = async (url: string, id: number) => (await (await fetch(`${url}/api/imports/${id}`, { headers: { Authorization: auth } })).json()) as Batch;

async function killed(child: ChildProcess): Promise<void> {
  signalGroup(child, 'SIGKILL');
  for (let i = 0; i < 200 && signalGroup(child, 0); i++) await new Promise((r) => setTimeout(r, 25));
}

describe('a server killed mid-batch', () => {
  it('resumes the batch after a restart from its last committed line: every line imported once', async () => {
    const tmp = tempDir();
    dirs.push(tmp.cleanup);
    const count = 12_000;
    const rows = Array.from({ length: count }, (_, i) => `R${i},CUST${i % 500},2026-03-01,${1000 + i}`);
    const csv = `number,customer_identifier,date,amount\n${rows.join('\n')}\n`;

    const first = await serve(tmp.dir);
    const res = await upload(first.url, csv, { auth, filename: 'night.csv' });
    expect(res.status).toBe(201);
    const id = res.body.id;
    let seen: Batch;
    for (;;) {
      seen = await batch(first.url, id);
      if (seen.lines_done > 1 || seen.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await killed(first.child);
    expect(seen.status).toBe('processing');
    expect(seen.lines_done).toBeLessThan(count + 1);
    expect(readdirSync(join(tmp.dir, 'imports'))).toHaveLength(1);

    const second = await serve(tmp.dir);
    let done: Batch;
    for (let waited = 0; ; waited += 100) {
      done = await batch(second.url, id);
      if (done.status !== 'processing' || waited > 90_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(done).toMatchObject({ status: 'completed', result_message: `${count} invoices`, file_errors_count: 0, lines_done: count + 1 });
    expect(readdirSync(join(tmp.dir, 'imports'))).toEqual([]);
    signalGroup(second.child, 'SIGTERM');
    for (let i = 0; i < 400 && signalGroup(second.child, 0); i++) await new Promise((r) => setTimeout(r, 25));

    // The outbox holds each invoice's creation once and no second version of any.
    const t = await openTestEngine({ dir: tmp.dir });
    try {
      const events = await t.engine.core.eventsSince(0, 1_000_000);
      const created = events.filter((e) => e.type === 'invoice.created');
      expect(created).toHaveLength(count);
      expect(new Set(created.map((e) => e.key)).size).toBe(count);
      expect(events.filter((e) => e.type === 'invoice.updated')).toEqual([]);
      expect(events.filter((e) => e.type === 'import.progress').length).toBeGreaterThanOrEqual(count / 500);
    } finally {
      await t.close();
    }
  }, 240_000);
});
