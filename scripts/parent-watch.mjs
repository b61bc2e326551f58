// Under `npm run`, npm's shell stands between npm and this process, and npm passes SIGTERM/SIGINT
// to that shell only; Debian's dash does not pass them on. `npm run serve|admin|terminal-sim` use
// `exec` so the signal reaches the program itself, but `npm start` cannot: cmd.exe (npm's shell on
// Windows, where most shops run the desktop app) has no `exec`. So a program started by npm also
// watches its parent: when npm's shell dies of a SIGTERM (or npm itself is killed outright) and
// this process is orphaned, it stops the way the signal would have stopped it. Once: a second
// signal means "now". (SIGINT to npm's pid alone does not kill dash, which waits on its child; a
// Ctrl-C in the terminal reaches the whole process group.)
const POLL_MS = 200;

export function stopWhenOrphaned(signal = 'SIGTERM') {
  // On Windows a process keeps its parent's id when the parent dies, and Ctrl-C reaches the whole
  // console group anyway.
  if (!process.env.npm_lifecycle_event || process.platform === 'win32') return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, signal);
  }, POLL_MS);
  timer.unref();
}
