import { plural } from './plural.js';
import { formatDuration } from './progress-reporter.js';

export interface RunEstimateOptions {
  /** Batches computed at once (worker processes; 1 in-process): one round of them is the warm-up. */
  concurrency: number;
  /** The shortest time after warm-up the rate is measured over (default MIN_TIMED_SECONDS). */
  minTimedSeconds?: number;
  now?: () => number;
}

/**
 * How long the run takes, from a rate measured on this machine with these models. The first round of batches (one
 * per worker) is warm-up (kernel compilation, caches, the pipeline filling) and is not timed; the rate is the tokens
 * of the batches done since then over the time since then. The estimate line comes once, when a second round is done
 * (a run of fewer batches ends before an estimate would help; none is made up from a rate measured elsewhere), and
 * secondsLeft() gives the progress ETA from the same rate.
 */
/** The shortest time after warm-up a rate is measured over. */
export const MIN_TIMED_SECONDS = 10;

export class RunEstimate {
  private batches = 0;
  private tokensDone = 0;
  private warmUp?: { at: number; tokens: number };
  private lastBatchAt = 0;
  private said = false;
  private work?: { frames: number; tokens: number };
  private readonly now: () => number;
  private readonly round: number;
  constructor(private readonly options: RunEstimateOptions) {
    this.now = options.now ?? Date.now;
    this.round = Math.max(1, options.concurrency);
  }

  /**
   * The frames this run computes (the input's, less those restored from a checkpoint) and their ESM-2 tokens (what
   * batches are packed on, and what the time goes with), once counted: the estimate (line and ETA) waits for them
   * (a fresh run computes beside its count).
   */
  setWork(frames: number, tokens: number): void {
    this.work = { frames, tokens };
  }

  /** A batch of `tokens` is done; returns the estimate line the first time there is a measured rate. */
  batch(tokens: number): string | undefined {
    this.batches++;
    this.tokensDone += tokens;
    this.lastBatchAt = this.now();
    if (this.batches === this.round) this.warmUp = { at: this.lastBatchAt, tokens: this.tokensDone };
    const rate = this.tokensPerSecond();
    if (this.said || rate === undefined || !this.work) return undefined;
    this.said = true;
    return estimateLine(this.work.frames, this.work.tokens, this.tokensDone, rate);
  }

  /**
   * Tokens per second since warm-up, once a full round of batches has been timed over at least `minTimedSeconds`;
   * undefined before. (Batches queued ahead on a GPU finish in bunches at first: timed over a second, one H200's
   * rate came out 2.2× too high.)
   */
  tokensPerSecond(): number | undefined {
    if (!this.warmUp || this.batches < 2 * this.round) return undefined;
    const seconds = (this.lastBatchAt - this.warmUp.at) / 1000;
    const tokens = this.tokensDone - this.warmUp.tokens;
    return seconds >= (this.options.minTimedSeconds ?? MIN_TIMED_SECONDS) && seconds > 0 && tokens > 0 ? tokens / seconds : undefined;
  }

  /** The tokens not done yet at the measured rate, less the time the batch in progress has run; undefined before a rate (or the count). */
  secondsLeft(): number | undefined {
    const rate = this.tokensPerSecond();
    if (rate === undefined || !this.work) return undefined;
    return Math.max(0, Math.max(0, this.work.tokens - this.tokensDone) / rate - (this.now() - this.lastBatchAt) / 1000);
  }
}

/** "estimated ~5h31m for 6,213 frames (1,050,112 ESM-2 tokens) at 52.8 tokens/s (measured on this machine, after warm-up); ~5h28m left". */
export function estimateLine(frames: number, tokens: number, tokensDone: number, tokensPerSecond: number): string {
  const total = formatDuration(tokens / tokensPerSecond);
  const left = formatDuration(Math.max(0, tokens - tokensDone) / tokensPerSecond);
  const rate = tokensPerSecond >= 100 ? Math.round(tokensPerSecond).toLocaleString('en-US') : tokensPerSecond.toFixed(1);
  return (
    `estimated ~${total} for ${plural(frames, 'frame')} (${tokens.toLocaleString('en-US')} ESM-2 tokens) ` +
    `at ${rate} tokens/s (measured on this machine, after warm-up); ~${left} left`
  );
}
