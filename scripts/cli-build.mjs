// The command-line programs (serve, admin, terminal-sim) as built JavaScript in out/cli/, so a
// start runs plain Node instead of compiling TypeScript first (tsx took ~4 s of every start).
// `npm run build` builds them; scripts/cli.mjs rebuilds them first when a source changed.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = join(root, 'out', 'cli');
export const PROGRAMS = ['serve', 'admin', 'terminal-sim'];
// The ecommerce SDK (client.js), its hosted payment frame and the click-to-pay page: browser bundles that serve sends.
export const webDir = join(root, 'out', 'ecommerce');
export const WEB_BUNDLES = ['client', 'frame', 'pay'];
// What each build was made from, so a start can tell in a few stats whether it is current.
const inputsFile = join(outDir, 'inputs.json');

/** True when every program is built and no source it was built from changed since. */
export function isFresh() {
  if (!existsSync(join(root, 'src'))) return true; // a packaged copy: the build is all there is
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return false;
  }
  const builtAt = manifest.builtAt;
  if (PROGRAMS.some((p) => !existsSync(join(outDir, `${p}.js`)))) return false;
  if (WEB_BUNDLES.some((p) => !existsSync(join(webDir, `${p}.js`)))) return false;
  for (const input of manifest.inputs) {
    try {
      if (statSync(join(root, input)).mtimeMs > builtAt) return false;
    } catch {
      return false; // a source was removed or renamed
    }
  }
  return true;
}

/**
 * Bundles each program into one ESM file; packages stay imports of node_modules (better-sqlite3
 * and serialport are native). Written beside the target and renamed into place, so a second
 * process starting at the same moment reads a whole file, old or new, never half of one.
 */
export async function buildCli() {
  // esbuild comes with electron-vite (the desktop build): no dependency of our own.
  const { build } = await import('esbuild');
  const startedAt = Date.now();
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(PROGRAMS.map((p) => [p, join(root, 'src', 'cli', `${p}.ts`)])),
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages are bundled too: loading ~1,300 files of node_modules one by one took 0.4-0.8 s of
    // every start, one file takes 0.1-0.2 s. Native ones (and pino, whose transports load files
    // beside its own) stay imports of node_modules.
    // pdfkit finds its standard fonts through its package's own `#standard-fonts` imports: bundled, it finds none.
    // fontkit, linebreak and bidi-js load with the first PDF, as pdfkit does: bundled, their ~2 MB were read at every start.
    external: ['better-sqlite3', 'serialport', '@serialport/*', 'pino', 'swagger-ui-dist', 'electron', 'pdfkit', 'fontkit', 'linebreak', 'bidi-js'],
    // Bundled CommonJS packages call require() for Node's built-ins.
    banner: { js: "import { createRequire as __lanewayRequire } from 'node:module';\nconst require = __lanewayRequire(import.meta.url);" },
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const web = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(WEB_BUNDLES.map((p) => [p, join(root, 'src', 'ecommerce-client', `${p}.ts`)])),
    outdir: webDir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    minify: true,
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  mkdirSync(webDir, { recursive: true });
  const tmp = `.tmp-${process.pid}`;
  for (const file of [...result.outputFiles, ...web.outputFiles]) {
    writeFileSync(file.path + tmp, file.contents);
    renameSync(file.path + tmp, file.path);
  }
  // Our sources one by one; a bundled package by its package.json (npm rewrites it on install).
  const inputs = [
    ...new Set(
      [...Object.keys(result.metafile.inputs), ...Object.keys(web.metafile.inputs)].map((p) => {
        const path = relative(root, resolve(root, p));
        const pkg = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
        return pkg ? `${pkg[1]}/package.json` : path;
      }),
    ),
  ];
  // The time the sources were read, not the time the files were written: an edit made during the
  // build makes the next start build again.
  writeFileSync(inputsFile + tmp, JSON.stringify({ builtAt: startedAt, inputs }));
  renameSync(inputsFile + tmp, inputsFile);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli();
  console.log(`Built ${PROGRAMS.join(', ')} into ${relative(process.cwd(), outDir) || outDir}`);
}
