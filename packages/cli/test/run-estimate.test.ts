import { describe, it, expect } from 'vitest';
import { RunEstimate, estimateLine } from '../src/progress/run-estimate.js';
import { StageCounter } from '../src/progress/progress-reporter.js';

describe('run estimate', () => {
  it('times the batches after the warm-up one and extrapolates over the tokens', () => {
    let now = 0;
    const e = new RunEstimate({ concurrency: 1, now: () => now });
    e.setWork(6_000, 1_000_000);
    now = 90_000; // the first batch: compilation, caches; not timed
    expect(e.batch(4_000)).toBeUndefined();
    expect(e.secondsLeft()).toBeUndefined();
    now = 90_000 + 80_000; // the second: 4,000 tokens in 80 s = 50 tokens/s
    const line = e.batch(4_000);
    // 1,000,000 / 50 = 20,000 s = 5h33m; left: (1,000,000 - 8,000) / 50 = 19,840 s = 5h30m.
    expect(line).toBe('estimated ~5h33m for 6,000 frames (1,000,000 ESM-2 tokens) at 50.0 tokens/s (measured on this machine, after warm-up); ~5h30m left');
    expect(e.secondsLeft()).toBe(19_840);
    now += 20_000; // half-way through the next batch, the ETA counts down
    expect(e.secondsLeft()).toBe(19_820);
    now += 20_000;
    expect(e.batch(2_000)).toBeUndefined(); // said once
    // 6,000 tokens in the 120 s since warm-up: still 50 tokens/s; 990,000 left.
    expect(e.secondsLeft()).toBe(19_800);
  });

  it('with several workers, the first round of batches is the warm-up and a second round is timed', () => {
    let now = 0;
    const e = new RunEstimate({ concurrency: 2, now: () => now });
    e.setWork(100, 100_000);
    now = 10_000;
    expect(e.batch(1_000)).toBeUndefined();
    now = 10_500;
    expect(e.batch(1_000)).toBeUndefined(); // warm-up round done here
    now = 20_500;
    expect(e.batch(1_000)).toBeUndefined(); // one batch of the second round is not a round
    now = 20_500 + 10_000;
    // 2,000 tokens in 20 s = 100 tokens/s: 100,000 tokens take 1,000 s; 96,000 left take 960 s.
    expect(e.batch(1_000)).toBe('estimated ~16m40s for 100 frames (100,000 ESM-2 tokens) at 100 tokens/s (measured on this machine, after warm-up); ~16m00s left');
  });

  it('times the rate over at least 10 s after warm-up: batches queued ahead finish in a bunch at first', () => {
    let now = 0;
    const e = new RunEstimate({ concurrency: 1, now: () => now });
    e.setWork(1_000, 1_000_000);
    now = 5_000;
    expect(e.batch(30_000)).toBeUndefined(); // warm-up
    now = 5_300;
    expect(e.batch(30_000)).toBeUndefined(); // queued behind it: 100,000 tokens/s over 0.3 s says nothing yet
    expect(e.secondsLeft()).toBeUndefined();
    for (let t = 1; t <= 4; t++) {
      now = 5_000 + t * 3_000;
      const line = e.batch(30_000);
      // 10 s reached at the fourth: 5 × 30,000 tokens in the 12 s since warm-up = 12,500 tokens/s; 1,000,000 take
      // 1m20s, the 820,000 left 65.6 s.
      if (t < 4) expect(line).toBeUndefined();
      else expect(line).toBe('estimated ~1m20s for 1,000 frames (1,000,000 ESM-2 tokens) at 12,500 tokens/s (measured on this machine, after warm-up); ~1m06s left');
    }
  });

  it('while the input is still being counted: no line and no ETA, then both from the next batch after setWork', () => {
    let now = 0;
    const e = new RunEstimate({ concurrency: 1, minTimedSeconds: 0, now: () => now });
    now = 1_000;
    expect(e.batch(1_000)).toBeUndefined(); // warm-up
    now = 2_000;
    expect(e.batch(1_000)).toBeUndefined(); // a rate (1,000 tokens/s), but nothing to extrapolate over yet
    expect(e.secondsLeft()).toBeUndefined();
    e.setWork(10, 10_000);
    expect(e.secondsLeft()).toBe(8); // 8,000 tokens left at 1,000 tokens/s
    now = 3_000;
    expect(e.batch(1_000)).toBe('estimated ~10s for 10 frames (10,000 ESM-2 tokens) at 1,000 tokens/s (measured on this machine, after warm-up); ~7s left');
  });

  it('rounds the rate to a whole number from 100 tokens/s up', () => {
    expect(estimateLine(1, 123_456, 0, 1234.56)).toBe('estimated ~1m40s for 1 frame (123,456 ESM-2 tokens) at 1,235 tokens/s (measured on this machine, after warm-up); ~1m40s left');
  });

  it('the progress ETA is the measured one when given, unknown while it is', () => {
    let left: number | undefined;
    const counter = new StageCounter('predict', 'frames', () => 0, 10, () => left);
    counter.done = 5; // a rate by frames would exist; the measured one does not yet
    expect(counter.eta).toBe('?');
    expect(counter.describe()).not.toContain('ETA');
    left = 125;
    expect(counter.eta).toBe('2m05s');
    expect(counter.describe()).toContain('ETA 2m05s');
  });
});
