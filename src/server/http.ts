import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  const app = createApp({ engine, ...options });
  const host = options.host ?? '127.0.0.1';
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
