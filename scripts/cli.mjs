#!/usr/bin/env node
// `npm run serve|admin|terminal-sim`: runs the built program in this very process (no child), and
// stops it as a signal would when npm's shell is gone (parent-watch.mjs). Builds it first when a
// source changed.
import module from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROGRAMS, buildCli, isFresh, outDir } from './cli-build.mjs';
import { stopWhenOrphaned } from './parent-watch.mjs';

const program = process.argv[2];
if (!PROGRAMS.includes(program)) {
  console.error(`Usage: node scripts/cli.mjs ${PROGRAMS.join('|')} [arguments]`);
  process.exit(2);
}
stopWhenOrphaned();
if (!isFresh()) {
  try {
    await buildCli();
  } catch (err) {
    console.error(`Could not build ${program}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
// Node 22.1 and later keep V8's compiled code between starts (a no-op on Node 20).
module.enableCompileCache?.();
// The program reads its own arguments from process.argv.slice(2).
process.argv.splice(2, 1);
await import(pathToFileURL(join(outDir, `${program}.js`)).href);
