import type { Server, ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Engine } from '../engine';
import { createApp, type AppOptions } from './app';
import { warmValidators } from './validation';

export interface RunningServer {
  url: string;
  port: number;
  /**
   * Stops listening, lets requests in flight finish (up to `graceMs`, then cuts them), ends live
   * event streams (they never finish by themselves) and closes idle connections.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * The only file that touches the socket. Binds to 127.0.0.1 unless told otherwise: the API holds
 * payment data and is meant for this machine's integrations and screens.
 */
export async function startServer(engine: Engine, options: Omit<AppOptions, 'engine'> & { host?: string; port?: number } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  let url = '';
  const app = createApp({
    engine,
    ...options,
    // The names it was told to bind to and to be reached at are names it answers to (see request-guard.ts).
    hostNames: [...(options.hostNames ?? []), ...(isIP(host) || host === '0.0.0.0' || host === '::' ? [] : [host]), ...publicHost(options.publicUrl)],
    publicUrl: options.publicUrl ?? (() => url),
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  warmValidators();
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    if (closing) res.shouldKeepAlive = false;
    res.on('close', () => inFlight.delete(res));
    // A keep-alive connection whose last answer went out while closing is idle now: let it go.
    res.on('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `http://${shownHost}:${port}`;
  return {
    url,
    port,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        for (const res of inFlight) {
          res.shouldKeepAlive = false;
          if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) res.end();
        }
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), graceMs).unref();
      }),
  };
}

function publicHost(publicUrl: AppOptions['publicUrl']): string[] {
  if (typeof publicUrl !== 'string') return [];
  try {
    return [new URL(publicUrl).hostname];
  } catch {
    throw new Error(`The public URL ${publicUrl} is not a URL (e.g. http://shop.example:4747)`);
  }
}
