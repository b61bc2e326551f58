#!/usr/bin/env node
// Before `npm test` (and in .ci/run): the tests use real parts from Debian (Chromium for the
// browser tests, socat for serial pairs, nats-server for JetStream sync, pdftoppm to look at the
// PDFs). Without them the suite fails late and says nothing useful, so check first; install them where this user can (root, or passwordless sudo, with apt-get); otherwise
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

/** Debian package, what the tests use it for, and whether it is here. */
const parts = [
  { pkg: 'chromium', why: `Chromium at ${chromium} for the browser tests`, here: () => executable(chromium) },
  { pkg: 'socat', why: 'socat for the serial tests', here: () => onPath('socat') },
  { pkg: 'nats-server', why: 'nats-server for the JetStream sync tests', here: () => onPath('nats-server') },
  { pkg: 'poppler-utils', why: 'pdftoppm to render statements in the tests', here: () => onPath('pdftoppm') },
];

function missing() {
  return parts.filter((part) => !part.here()).map((part) => part.pkg);
}

function run(command, args) {
  console.log(`$ ${[command, ...args].join(' ')}`);
  return spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
}

function stop(need, why) {
  console.error(
    `npm test needs ${need.join(' and ')} (${parts.filter((part) => need.includes(part.pkg)).map((part) => part.why).join(', ')})${why ? `; ${why}` : ''}.\n` +
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
  console.log(`npm test: installing ${need.join(' and ')} (real parts the tests use)`);
  const [cmd, ...pre] = prefix.length ? prefix : ['apt-get'];
  const args = (rest) => (prefix.length ? [...pre, 'apt-get', ...rest] : rest);
  const ok = run(cmd, args(['update', '-qq'])) && run(cmd, args(['install', '-y', '-qq', '--no-install-recommends', ...need]));
  const still = missing();
  if (!ok || still.length > 0) stop(still.length ? still : need, 'apt-get could not install them');
}
