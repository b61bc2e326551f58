#!/usr/bin/env node
// `npm start`: build the app when the sources changed, then open the desktop window when
// Electron's binary is here (or can be downloaded); otherwise run the same engine headless and
// say where the API and the screens are.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, mkdirSync, cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopWhenOrphaned } from './parent-watch.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const passThrough = process.argv.slice(2);

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function ensureBuilt() {
  const stamp = join(root, 'out', 'renderer', 'index.html');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(join(root, 'src'))) return;
  console.log('Building the app (electron-vite build)…');
  // The CLI's path from the package's `bin` (its `exports` map does not expose bin/).
  const manifest = require.resolve('electron-vite/package.json');
  const cli = join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin['electron-vite']);
  const r = spawnSync(process.execPath, [cli, 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function hasDisplay() {
  if (process.platform !== 'linux') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Path of Electron's executable, downloading it once when missing. Null when it cannot be had. */
function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron');
  if (!existsSync(pkg)) return null;
  const installed = () => {
    const pathTxt = join(pkg, 'path.txt');
    if (!existsSync(pathTxt)) return null;
    const bin = join(pkg, 'dist', readFileSync(pathTxt, 'utf8').trim());
    return existsSync(bin) ? bin : null;
  };
  if (installed()) return installed();
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return null;
  console.log("Fetching Electron's binary (first start only)…");
  const r = spawnSync(process.execPath, [join(pkg, 'install.js')], { stdio: 'inherit', timeout: 180_000 });
  return r.status === 0 ? installed() : null;
}

/**
 * better-sqlite3 is compiled for Node's ABI (tests and `serve` use it). Electron needs its own
 * build: fetch the prebuilt one for this Electron version into a cache beside node_modules, so
 * both can live side by side.
 */
function sqliteBindingForElectron() {
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  const cache = join(root, 'node_modules', '.cache', 'laneway-electron-sqlite', electronVersion);
  const binding = join(cache, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(binding)) return binding;
  mkdirSync(cache, { recursive: true });
  cpSync(join(root, 'node_modules', 'better-sqlite3'), cache, { recursive: true, filter: (src) => !src.includes(`${join('better-sqlite3', 'build')}`) });
  const prebuild = spawnSync(
    process.execPath,
    [require.resolve('prebuild-install/bin.js'), '--runtime', 'electron', '--target', electronVersion, '--arch', process.arch, '--platform', process.platform],
    { cwd: cache, stdio: 'inherit' },
  );
  if (prebuild.status !== 0 || !existsSync(binding)) {
    const gyp = spawnSync(
      process.execPath,
      [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--release', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers'],
      { cwd: cache, stdio: 'inherit' },
    );
    if (gyp.status !== 0) return null;
  }
  return existsSync(binding) ? binding : null;
}

function runHeadless(reason) {
  console.log(`${reason}: starting Laneway headless. Open the Screens URL below in a browser.`);
  // The built serve with Node's flags as `npm run serve` passes them (a larger young generation:
  // see README, Benchmarks); scripts/cli.mjs builds it first when a source changed.
  const serveScript = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.serve.split(' ');
  const nodeFlags = serveScript.filter((a) => a.startsWith('--'));
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'scripts', 'cli.mjs'), 'serve', ...passThrough], { cwd: root, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

stopWhenOrphaned();
ensureBuilt();
if (process.env.LANEWAY_HEADLESS === '1') {
  runHeadless('LANEWAY_HEADLESS=1');
} else if (!hasDisplay()) {
  runHeadless('No display here');
} else {
  const electron = electronBinary();
  if (!electron) {
    runHeadless("Electron's binary is not available on this machine");
  } else {
    let binding = null;
    try {
      binding = sqliteBindingForElectron();
    } catch (err) {
      console.error(`Could not prepare better-sqlite3 for Electron: ${err.message}`);
    }
    if (!binding) {
      runHeadless('No better-sqlite3 build for Electron could be made');
    } else {
      const child = spawn(electron, [root, ...passThrough], { cwd: root, stdio: 'inherit', env: { ...process.env, LANEWAY_SQLITE_BINDING: binding } });
      for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
      child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
    }
  }
}
