#!/usr/bin/env node
// Before `npm test` (and in .ci/run): the browser tests drive Debian's Chromium and the serial
// tests pair ports with socat. Without them the suite fails late and says nothing useful, so check
// first; install them where this user can (root, or passwordless sudo, with apt-get); otherwise
// stop at once naming the one command that installs them.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

// The same path test/helpers/browser.ts launches.
const chromium = process.env.LANEWAY_CHROMIUM ?? '/usr/bin/chromium';

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && executable(join(dir, name)));
}

function missing() {
  const need = [];
  if (!executable(chromium)) need.push('chromium');
  if (!onPath('socat')) need.push('socat');
  return need;
}

function run(command, args) {
  console.log(`$ ${[command, ...args].join(' ')}`);
  return spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
}

function stop(need, why) {
  console.error(
    `npm test needs ${need.join(' and ')} (${need.includes('chromium') ? `Chromium at ${chromium} for the browser tests` : ''}${need.length > 1 ? ', ' : ''}${need.includes('socat') ? 'socat for the serial tests' : ''})${why ? `; ${why}` : ''}.\n` +
      `Install ${need.length > 1 ? 'them' : 'it'} with:\n\n  sudo apt-get install -y ${need.join(' ')}\n\nthen run npm test again.`,
  );
  process.exit(1);
}

const need = missing();
if (need.length > 0) {
  if (process.platform !== 'linux' || !onPath('apt-get')) stop(need, 'this machine has no apt-get to install them here');
  let prefix = null;
  if (process.getuid?.() === 0) prefix = [];
  else if (onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0) prefix = ['sudo', '-n'];
  if (!prefix) stop(need, 'installing needs root');
  console.log(`npm test: installing ${need.join(' and ')} (browser and serial tests)`);
  const [cmd, ...pre] = prefix.length ? prefix : ['apt-get'];
  const args = (rest) => (prefix.length ? [...pre, 'apt-get', ...rest] : rest);
  const ok = run(cmd, args(['update', '-qq'])) && run(cmd, args(['install', '-y', '-qq', '--no-install-recommends', ...need]));
  const still = missing();
  if (!ok || still.length > 0) stop(still.length ? still : need, 'apt-get could not install them');
}
