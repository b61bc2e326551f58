import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a test receiver does with one request: answer a status, or never answer (the sender times out). */
export type Answer = number | 'hang' | { status: number; delayMs?: number; headers?: Record<string, string>; body?: string };

export interface Received {
  /** The request's path and query, as the sender asked for it. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
  answered: number | 'hang';
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; after them, `otherwise` (default 200). */
  script(answers: Answer[], otherwise?: Answer): void;
  /** Resolves once `n` requests have come in. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on loopback, scripted per test. `listenOn: '0.0.0.0'` makes it answer on
 * every address of the machine, as a service that listens everywhere does (`url` stays loopback's).
 */
export async function startReceiver(path = '/hooks', listenOn = '127.0.0.1'): Promise<Receiver> {
  let queue: Answer[] = [];
  let otherwise: Answer = 200;
  const received: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = queue.length ? queue.shift()! : otherwise;
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now(), answered: typeof answer === 'object' ? answer.status : answer });
      for (const w of waiters.filter((w) => received.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const a = typeof answer === 'number' ? { status: answer } : answer;
      const send = () => res.writeHead(a.status, { 'Content-Type': 'text/plain', ...(a.headers ?? {}) }).end(a.body ?? `answer ${a.status}`);
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, listenOn, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    script(answers, other = 200) {
      queue = [...answers];
      otherwise = other;
    },
    waitFor(n, timeoutMs = 20_000) {
      if (received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests`)), timeoutMs);
        waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
