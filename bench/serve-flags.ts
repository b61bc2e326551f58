import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Node's flags in package.json's `serve` script: benchmarks start servers the way users do. */
export function serveNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8')) as { scripts: { serve: string } };
  return pkg.scripts.serve.split(' ').filter((a) => a.startsWith('--'));
}

/**
 * `serve` from the sources (tsx) on a free port with the given data folder and first credentials,
 * no rate limit to speak of; answers once it prints its API address.
 */
export function startServe(opts: { dir: string; token: string; key: string; nodeFlags?: string[]; serveArgs?: string[] }): Promise<{ child: ChildProcess; url: string }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? []), '--import', 'tsx', join(root, 'src/cli/serve.ts'), '--data-dir', opts.dir, '--port', '0', '--rate-limit', '100000000', ...(opts.serveArgs ?? [])], {
    cwd: root,
    env: { ...process.env, LANEWAY_API_TOKEN: opts.token, LANEWAY_API_KEY: opts.key },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /API:\s+(http:\/\/[^\s]+)\/api/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
}
