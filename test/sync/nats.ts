import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Real nats-server processes with JetStream for the chain tests (Debian's `nats-server`): own
 * loopback ports and store folders under `dir`. One node is a lone server; more form a cluster
 * (`--cluster_name laneway`, every node routed to every other).
 */
export interface NatsNode {
  name: string;
  port: number;
  child: ChildProcess;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

export async function startNats(dir: string, count: number, cleanups: Array<() => unknown>): Promise<NatsNode[]> {
  const ports = await Promise.all(Array.from({ length: count }, async () => ({ client: await freePort(), cluster: await freePort() })));
  const routes = ports.map((p) => `nats://127.0.0.1:${p.cluster}`).join(',');
  return ports.map((p, i) => {
    const store = join(dir, `n${i}`);
    mkdirSync(store, { recursive: true });
    const cluster = count > 1 ? ['--cluster_name', 'laneway', '--cluster', `nats://127.0.0.1:${p.cluster}`, '--routes', routes] : [];
    const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(p.client), '-n', `n${i}`, ...cluster, '-sd', store], { stdio: 'ignore' });
    cleanups.push(() => child.kill('SIGKILL'));
    return { name: `n${i}`, port: p.client, child };
  });
}

/** The servers list a chain install is given (`--nats`). */
export const natsServers = (nodes: NatsNode[]) => nodes.map((n) => `127.0.0.1:${n.port}`);
