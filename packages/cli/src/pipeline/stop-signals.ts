import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { onTerminationSignal } from '../termination-signal.js';
import { resumeCommand } from './resume-command.js';

/** Where a run's checkpoint shards go, inside its output folder. */
export const CHECKPOINT_DIR = '.checkpoints';

/**
 * Until the run's own handler is in place (the models can take minutes to load), SIGINT / SIGTERM remove the folder
 * this run created (nothing is in it yet but our own empty checkpoint) and exit 130 / 143. Returns the remover.
 */
export function stopBeforeTheRun(outDir: string, outDirExisted: boolean, log: (line: string) => void): () => void {
  return onTerminationSignal(
    async () => {
      if (!outDirExisted) await rm(outDir, { recursive: true, force: true });
      log(`stopped before any frame was computed; ${outDirExisted ? `nothing written in ${outDir}` : `removed ${outDir}, which this run had created`}`);
    },
    { log },
  );
}

/**
 * Once frames are computed, SIGINT / SIGTERM stop the workers at once (a batch in progress is not waited for: its
 * frames are recomputed on --resume), keep the frames already finished as a checkpoint shard, clean up, say what
 * was kept and how to continue, and exit 130 / 143. Returns the remover. `total`: the input's frames, undefined
 * while it is still being counted (then the checkpoint has no identity yet and keeps nothing).
 */
export function stopDuringTheRun(
  stop: { closeWorkers(): Promise<void>; flushCheckpoint(): Promise<void>; kept(): number; cleanUp(): Promise<void> },
  what: { total: () => number | undefined; inputName: string; outDir: string },
  log: (line: string) => void,
): () => void {
  return onTerminationSignal(
    async () => {
      await stop.closeWorkers().catch(() => undefined);
      await stop.flushCheckpoint();
      const kept = stop.kept();
      await stop.cleanUp();
      log(stoppedLine(kept, what.total(), what.inputName, what.outDir));
    },
    { log },
  );
}

/** What a stopped run kept, and the command that continues it (this process's, less --force, plus --resume). */
function stoppedLine(kept: number, total: number | undefined, inputName: string, outDir: string): string {
  if (total === undefined) return 'stopped before the input was read through (a checkpoint needs its fingerprint), so nothing was kept';
  if (kept === 0) return 'no frame was finished, so nothing was kept';
  const how = inputName === '-' ? 'with the same input on standard input' : 'with the same models and options';
  return `kept ${kept.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} frames in ${join(outDir, CHECKPOINT_DIR)}; continue ${how}: ${resumeCommand()}`;
}
