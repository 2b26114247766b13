// `node --import tools/device/cpu-profile.mjs`: a V8 CPU profile of this process's main thread, written at exit to
// $PROF_DIR/PID.cpuprofile (1 ms samples). Node refuses --cpu-prof in NODE_OPTIONS, so a run's child processes (the
// GPU workers) cannot be profiled that way; NODE_OPTIONS="--import /abs/path/cpu-profile.mjs" reaches them.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 1000 });
session.post('Profiler.start');
process.on('exit', () => {
  session.post('Profiler.stop', (err, result) => {
    if (!err && result) writeFileSync(`${process.env.PROF_DIR ?? '.'}/${process.pid}.cpuprofile`, JSON.stringify(result.profile));
  });
});
