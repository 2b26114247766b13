// A diagnostic for "where do the frames wait?", on when VIRNUCPRO_PIPELINE_TRACE names a file (off: nothing
// runs). Every 200 ms it appends one tab-separated row of the main thread's counters: frames read, embedded,
// delivered to the consumer and classified, the pool's free credit, and the main thread's event-loop use over
// the interval. Read beside the cuda backend's VIRNUCPRO_CUDA_TRACE (the model thread) and nvidia-smi (the GPU):
// frames piling up between two counters say which stage the others wait for.
import { closeSync, openSync, writeSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export const PIPELINE_TRACE_ENV = 'VIRNUCPRO_PIPELINE_TRACE';
const EVERY_MS = 200;

export interface PipelineCounters {
  read: number;
  embedded: number;
  delivered: number;
  classified: number;
  freeCredit: number;
}

export interface PipelineTrace {
  stop(): void;
}

/** Starts the trace when the environment asks for it; `counters` is read on each tick. */
export function startPipelineTrace(counters: () => PipelineCounters, env: NodeJS.ProcessEnv = process.env): PipelineTrace {
  const path = env[PIPELINE_TRACE_ENV];
  if (!path) return { stop: () => undefined };
  const fd = openSync(path, 'w');
  const t0 = performance.now();
  let lastElu: EventLoopUtilization = performance.eventLoopUtilization();
  writeSync(fd, 'seconds\tread\tembedded\tdelivered\tclassified\tfree_credit\tmain_elu\n');
  const tick = () => {
    const elu = performance.eventLoopUtilization(lastElu);
    lastElu = performance.eventLoopUtilization();
    const c = counters();
    const seconds = ((performance.now() - t0) / 1000).toFixed(2);
    writeSync(fd, `${seconds}\t${c.read}\t${c.embedded}\t${c.delivered}\t${c.classified}\t${c.freeCredit}\t${elu.utilization.toFixed(3)}\n`);
  };
  const timer = setInterval(tick, EVERY_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      tick();
      closeSync(fd);
    },
  };
}
