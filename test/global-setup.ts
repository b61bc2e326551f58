import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n = Math.max(n, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return n;
}

/** The browser tests drive the built screens: build them when the sources are newer. */
export default function setup(): void {
  buildEcommerceClient();
  const stamp = join(process.cwd(), 'out', 'renderer', 'index.html');
  const sources = Math.max(newest(join(process.cwd(), 'src', 'renderer')), newest(join(process.cwd(), 'src', 'shared')));
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(process.cwd(), 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { stdio: 'inherit' });
}

/** The ecommerce browser tests load client.js and the frame from out/ecommerce (scripts/cli-build.mjs). */
function buildEcommerceClient(): void {
  const stamp = join(process.cwd(), 'out', 'ecommerce', 'frame.js');
  const sources = Math.max(newest(join(process.cwd(), 'src', 'ecommerce-client')), newest(join(process.cwd(), 'src', 'shared')));
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(process.cwd(), 'scripts', 'cli-build.mjs')], { stdio: 'inherit' });
}
