import { describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { MAX_FAILURES_ALL } from '../../src/engine/account/users';
import { useHarness } from '../helpers/harness';

/**
 * The user-wide sign-in lock against a guesser who sends wrong passwords together from many
 * addresses, over real loopback HTTP: each request leaves from its own 127.x.y.z source address
 * (Linux routes the whole 127/8 to loopback), so the per-address lock (5) never stops it and only
 * the user-wide one (50) can. Before, tries sent together each wrote "count read before the hash
 * + 1" and overwrote one another: 1000 wrong tries, no lock, and the right password then signed in.
 */
const h = useHarness({ api: true });

interface Answer {
  status: number;
  code: string | undefined;
}

/** POST /api/session from `localAddress`. */
function signIn(email: string, password: string, localAddress: string): Promise<Answer> {
  const u = new URL(h.api.url);
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, method: 'POST', path: '/api/session', localAddress, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string };
          resolve({ status: res.statusCode ?? 0, code: json.code });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `jobs` at most `width` at a time, answers in order. */
async function inWaves<T>(jobs: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

describe('sign-in lock under parallel guesses', () => {
  it('wrong passwords from 100 addresses, 100 at a time, lock the user after at most fifty; the right password is then refused', async () => {
    const users = h.t.engine.users;
    const { user, link } = await users.create({ email: 'target@example.com', role: 'owner' });
    await users.redeemLink(link, 'the right password');

    const jobs = Array.from({ length: 200 }, (_, i) => () => signIn('target@example.com', `guess ${i}`, `127.41.0.${Math.floor(i / 2) + 2}`));
    const answers = await inWaves(jobs, 100);
    const wrong = answers.filter((a) => a.status === 401 && a.code === 'sign_in_failed').length;
    const locked = answers.filter((a) => a.status === 403 && a.code === 'user_locked').length;
    expect(wrong + locked).toBe(200);
    expect(wrong).toBeLessThanOrEqual(MAX_FAILURES_ALL);
    expect(users.get(user.id).locked_until).not.toBeNull();

    // Locked for everyone, the right password from a fresh address included.
    expect(await signIn('target@example.com', 'the right password', '127.43.0.9')).toEqual({ status: 403, code: 'user_locked' });
    expect(await signIn('target@example.com', 'the right password', '127.0.0.1')).toEqual({ status: 403, code: 'user_locked' });
  }, 180_000);
});
