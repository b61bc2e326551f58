import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { tempDir } from '../helpers/tmp';

/**
 * `npm run serve` with --public-url and --allowed-hosts (issue 13 items 2 and 11): the names it
 * answers to and the base of the links it hands out come from its configuration.
 */
const TOKEN = 'SERVESECTOKEN1';
const KEY = 'serve-security-key-0123456789';
const AUTH = `Basic ${Buffer.from(`${TOKEN}:${KEY}`).toString('base64')}`;

let child: ChildProcess;
let url: string;
const tmp = tempDir();

function signalGroup(signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-child.pid!, signal);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  child = spawn('npm', ['run', 'serve', '--', '--data-dir', tmp.dir, '--port', '0', '--public-url', 'https://pay.shop.example/', '--allowed-hosts', 'till-1.shop.lan, backoffice.shop.lan'], {
    cwd: process.cwd(),
    env: { ...process.env, LANEWAY_API_TOKEN: TOKEN, LANEWAY_API_KEY: KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+)\/api\b/.exec(output)?.[1];
      if (found && output.includes('Screens:')) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${output}`)));
  });
});

afterAll(async () => {
  if (signalGroup('SIGTERM')) {
    for (let waited = 0; signalGroup(0); waited += 50) {
      if (waited > 10_000) signalGroup('SIGKILL');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  tmp.cleanup();
});

function call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: { Authorization: AUTH, ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

describe('npm run serve: configured names and public URL', () => {
  it('answers to the configured names and refuses others', async () => {
    for (const host of ['till-1.shop.lan', 'backoffice.shop.lan:4747', 'pay.shop.example', 'localhost']) {
      expect((await call('GET', '/api/whoami', { Host: host })).status, host).toBe(200);
    }
    const other = await call('GET', '/api/whoami', { Host: 'rebound.evil.example' });
    expect(other.status).toBe(403);
    expect(other.json.code).toBe('host_not_allowed');
  });

  it('builds pay_url on --public-url, whatever Host the request named', async () => {
    const res = await call('POST', '/api/imports/invoice', { Host: 'till-1.shop.lan' }, JSON.stringify({ number: 'INV-SERVE-1', customer_identifier: 'C1', customer_name: 'Payer', amount: 700, echo: 'pay_urls' }));
    expect(res.status).toBe(201);
    expect(res.json.pay_url).toMatch(/^https:\/\/pay\.shop\.example\/pay\/[0-9]+-[A-Z0-9]+$/);
  });
});
