import type { Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import type { Engine } from '../engine';
import { createApp, type AppOptions } from './app';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
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
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  url = `http://${shownHost}:${port}`;
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
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
