import { esmTokenCount, type Features, type FrameItem } from '@virnucpro/predict';
import type { ProgressReporter } from '../progress/progress-reporter.js';
import { RunEstimate } from '../progress/run-estimate.js';
import type { RunSummaryBuilder } from '../progress/run-summary.js';
import { workerEventWarning } from '../progress/worker-events.js';
import type { FrameCounts } from './input-count.js';

/**
 * What the user sees while frames are computed: the progress bar (its ETA from the measured token rate), the one
 * line with the run's estimated duration, and a warning when a worker dies; every batch also counts towards the
 * summary's packing efficiency. `restored`: frames a resumed run takes from its checkpoint instead. The bar has no
 * total until `counted` gives the input's count (a fresh run computes while its input is still being counted).
 */
export function followRun(
  reporter: ProgressReporter,
  summary: RunSummaryBuilder,
  features: Pick<Features, 'pool' | 'plan'>,
  restored: number,
): { counted(totals: FrameCounts): void; tick(frame: FrameItem): void; finish(): void } {
  const estimate = new RunEstimate({ concurrency: features.plan.devices?.length ?? 1, ...estimateAfterFromEnv(process.env[ESTIMATE_AFTER_ENV]) });
  const progress = reporter.stage('predict', { unit: 'frames', secondsLeft: () => estimate.secondsLeft() });
  features.pool.events$.subscribe((event) => {
    // Every batch the pool embeds counts towards the packing efficiency, and times the run's estimate.
    if (event.type === 'batch') {
      summary.addBatch(event.tokens);
      const line = estimate.batch(event.tokens);
      if (line) reporter.log(`virnucpro: ${line}`);
    }
    // A worker process that died (its GPU failed, it was killed, it hung): said as it happens.
    const warning = workerEventWarning(event);
    if (warning) reporter.log(`virnucpro: warning: ${warning}`);
  });
  return {
    counted: (totals) => {
      // The frames this run computes (a resumed run restores the others; their tokens in proportion).
      const toCompute = Math.max(0, totals.frames - restored);
      estimate.setWork(toCompute, totals.frames > 0 ? Math.round((totals.esmTokens * toCompute) / totals.frames) : 0);
      progress.setTotal(totals.frames);
    },
    tick: (frame) => progress.tick(1, esmTokenCount(frame)),
    finish: () => progress.finish(),
  };
}

/** Seconds of batches after warm-up before the estimate is made (default 10; tests of a few batches set 0). */
export const ESTIMATE_AFTER_ENV = 'VIRNUCPRO_ESTIMATE_AFTER';

function estimateAfterFromEnv(value: string | undefined): { minTimedSeconds?: number } {
  const seconds = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0 ? { minTimedSeconds: seconds } : {};
}
