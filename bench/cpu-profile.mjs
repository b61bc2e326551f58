/**
 * `node --import bench/cpu-profile.mjs`: a V8 CPU profile of a `serve` started through npm, for
 * benchmarks. Node 20 refuses --cpu-prof in NODE_OPTIONS, and npm's child inherits only that, so
 * the program profiles itself: the profiler starts here and the profile is written into
 * LANEWAY_CPU_PROF_DIR when the program exits (serve exits on SIGTERM). npm's own process, which
 * loads this too, is left alone.
 */
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.LANEWAY_CPU_PROF_DIR;
if (dir && /cli\.mjs$/.test(process.argv[1] ?? '')) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // A session on this thread answers synchronously, so the profile is written before exit.
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `serve-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
