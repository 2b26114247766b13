// How far V8 lets the main process's heap grow past its live data (issue 46: peak RSS within 10 % from 100,000 to
// 2,000,000 frames). `predict`'s main process keeps a bounded set of live data (~35–45 MB on the host bench: the
// frames in flight, ~10,000 with the read-ahead, records waiting for their frames, the report's candidates, a
// consensus run being gathered), but ~1 KB a frame of it outlives V8's young generation (a frame lives from its read
// to its row) and dies in the old one. After each full collection V8 lets the old generation grow to a multiple of
// what survived, a factor it raises towards 4 while collections are cheap next to that allocation rate; a run reached
// that steady state only after ~10^5 frames, so its peak RSS grew with the input while its live data did not. A
// factor of 2 (heap growing percent 100) holds the heap near twice the live data from the first collections on. It
// costs more full collections, marked concurrently on another thread: ~4 % more CPU on the host bench, the main
// thread's pauses no longer (docs/benchmarks/scaling.md).
//
// V8's flags are the process's: with the models in a thread of this process (no --devices, --workers 0) that
// thread's heap would be bounded too, and its collections cost more (the demo models on wasm: 11–17 % more CPU) for no
// less memory, so the command sets it only when the models run in worker processes (usesWorkerProcesses).

import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to (1 + this / 100) × what survived the last full collection. */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Bounds the heap's growth for the rest of this process (V8 reads the flag at each collection), unless node was
 * started with its own `--heap-growing-percent` (that one stays; `--heap-growing-percent=0` is V8's own heuristic).
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
