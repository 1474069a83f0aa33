// Preloaded with `--import` through NODE_OPTIONS (which refuses --cpu-prof): profiles the whole
// process with the inspector and writes a .cpuprofile into BENCH_CPU_PROF when it exits, as
// --cpu-prof would. Bench use only (bench/start: BENCH_CPU_PROF).
import fs from 'node:fs';
import path from 'node:path';
import inspector from 'node:inspector';
import process from 'node:process';

const dir = process.env.BENCH_CPU_PROF;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.start');
  process.on('exit', () => {
    // The in-process session answers synchronously, so this completes before the exit.
    session.post('Profiler.stop', (err, result) => {
      if (err || !result) return;
      const file = path.join(dir, `CPU.${process.pid}.${Date.now()}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
