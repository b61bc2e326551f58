import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { tempDir } from '../helpers/tmp';
import { startReceiver, type Receiver } from '../helpers/receiver';

const children: ChildProcess[] = [];
const cleanups: Array<() => unknown> = [];
const kill = (child: ChildProcess, signal: NodeJS.Signals | 0) => {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
};
afterEach(async () => {
  for (const c of children.splice(0)) kill(c, 'SIGKILL');
  for (const f of cleanups.splice(0)) await f();
});

const TOKEN = 'HOOKTOKEN0001';
const KEY = 'hook-key-0123456789';
const auth = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;

/** `npm run serve` as a user starts it, with short webhook timing; resolves with its URL. */
function serve(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('npm', ['run', 'serve', '--', '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1'], {
    env: { ...process.env, LANEWAY_API_TOKEN: TOKEN, LANEWAY_API_KEY: KEY, LANEWAY_WEBHOOK_TIMEOUT_MS: '800', LANEWAY_WEBHOOK_RETRY_MS: '1500' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)\/api\b/.exec(output)?.[1];
      if (url && output.includes('Screens:')) {
        clearTimeout(timer);
        resolve({ url, child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  });
}

async function call<T>(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, { method, headers: { Authorization: auth, 'Content-Type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as T };
}

async function killed(child: ChildProcess): Promise<void> {
  kill(child, 'SIGKILL');
  while (kill(child, 0)) await new Promise((r) => setTimeout(r, 50));
}

describe('webhooks across a SIGKILL of serve', () => {
  it('a receiver answering 500, killed server, then a timeout, then 200: every event arrives, signed', { timeout: 180_000 }, async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    const rx: Receiver = await startReceiver();
    cleanups.push(() => rx.close());
    rx.script([500, 'hang'], 200);

    const first = await serve(tmp.dir);
    const made = await call<{ signing_key: string }>(first.url, 'POST', '/api/account/webhooks', { url: rx.url, events: ['customer.created', 'customer.updated', 'invoice.created'] });
    expect(made.status).toBe(201);
    const key = made.body.signing_key;
    expect((await call(first.url, 'POST', '/api/imports/customer', { identifier: 'CRASH1', name: 'Acme' })).status).toBe(201);
    expect((await call(first.url, 'POST', '/api/imports/invoice', { number: 'CRASH-INV1', customer_identifier: 'CRASH1', amount: 500 })).status).toBe(201);
    await rx.waitFor(1);
    // Killed between the first attempt (500) and its retry: nothing but the store survives.
    await new Promise((r) => setTimeout(r, 300));
    await killed(first.child);
    expect(rx.received.map((r) => r.answered)).toEqual([500]);

    const second = await serve(tmp.dir);
    expect((await call(second.url, 'POST', '/api/imports/customer', { identifier: 'CRASH2', name: 'After the crash' })).status).toBe(201);

    // The retry times out once, then everything is acknowledged.
    const wanted = ['customer.created:CRASH1', 'invoice.created:CRASH-INV1', 'customer.created:CRASH2'];
    const deadline = Date.now() + 60_000;
    const seen = () => rx.received.filter((r) => r.answered === 200).map((r) => `${r.headers['x-service-event']}:${(JSON.parse(r.body.toString()) as { identifier?: string; number?: string }).number ?? (JSON.parse(r.body.toString()) as { identifier: string }).identifier}`);
    while (!wanted.every((w) => seen().includes(w)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(seen()).toEqual(expect.arrayContaining(wanted));
    expect(rx.received.slice(0, 2).map((r) => r.answered)).toEqual([500, 'hang']);
    // The first delivery's three attempts, across the crash, are one delivery to the receiver.
    expect(new Set(rx.received.slice(0, 3).map((r) => r.headers['x-service-delivery'])).size).toBe(1);
    for (const r of rx.received) {
      expect(r.headers['x-service-signature']).toBe(encodeURIComponent(createHmac('sha256', key).update(r.body).digest('base64') + '\n'));
    }
    // Order: the acknowledged deliveries' watermarks never go back.
    const marks = rx.received.filter((r) => r.answered === 200).map((r) => Number(r.headers['x-service-watermark']));
    expect(marks).toEqual([...marks].sort((a, b) => a - b));
  });
});
