// Times predict's counting pass (countFrames with the input check, as `virnucpro predict` runs it) on one FASTA:
//   node tools/bench/count/time-count.mjs FILE [cli-dist]   (cli-dist: a built packages/cli/dist; default this checkout's)
// Prints wall seconds (and the process's CPU seconds) and the counts (fingerprint included), so two builds' results can be compared line for line.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [file, distArg] = process.argv.slice(2);
const dist = path.resolve(distArg ?? new URL('../../../packages/cli/dist', import.meta.url).pathname);
const { countFrames } = await import(pathToFileURL(path.join(dist, 'pipeline/input-count.js')).href);
const { InputCheck } = await import(pathToFileURL(path.join(dist, 'pipeline/input-check.js')).href);
const t = performance.now();
const cpu = process.cpuUsage();
const counts = await countFrames(file, 300, { check: new InputCheck(file, file, false) });
const wall = (performance.now() - t) / 1000;
const { user, system } = process.cpuUsage(cpu);
// CPU time beside wall time: on a shared box it moves less with the other processes' load.
console.log(`${wall.toFixed(2)} s (cpu ${((user + system) / 1e6).toFixed(2)} s)`, JSON.stringify(counts));
