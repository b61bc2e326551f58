import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** A request as the fake service's answer function sees it. */
export interface FakeRequest {
  method: string;
  path: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** The `watermark` query parameter (0 when absent): what an export feed answers after. */
  after: number;
  /** A POST's JSON body. */
  body?: Record<string, unknown>;
}

export type FakeAnswer = [status: number, body: unknown];

export interface FakeService {
  readonly url: string;
  /** Every request, as `METHOD /path?query`, in order. */
  readonly seen: string[];
  /** Every POST with its JSON body (the import operations the hub called). */
  readonly posted: Array<{ path: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * A service speaking JSON on loopback, played by `answer` (an upstream with only the reference's
 * operations, as the cloud service has): the hub's replication runs against it over real HTTP.
 */
export async function fakeService(answer: (req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>): Promise<FakeService> {
  const seen: string[] = [];
  const posted: Array<{ path: string; body: Record<string, unknown> }> = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    seen.push(`${method} ${url.pathname}${url.search}`);
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = method === 'POST' && text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      if (body) posted.push({ path: url.pathname, body });
      void (async () => {
        const [status, out] = await answer({ method, path: url.pathname, url, headers: req.headers, after: Number(url.searchParams.get('watermark') ?? 0), ...(body ? { body } : {}) });
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out));
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, posted, close: () => new Promise<void>((r) => server.close(() => r())) };
}
