import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Node's flags in package.json's `serve` script: benchmarks start servers the way users do. */
export function serveNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8')) as { scripts: { serve: string } };
  return pkg.scripts.serve.split(' ').filter((a) => a.startsWith('--'));
}
