import type { Precision } from '@virnucpro/ops';
import type { FrameItem } from './frame-item.js';
import type { Features } from './start-features.js';

/**
 * `--refine-margin`'s default: fp8 moved a frame's virus score by at most 0.036 from fp32's at 500 bp and 0.028 at
 * 300 bp (full-size random models, phage lambda + 1 Mb of E. coli, H100, 2026-11-26, docs/benchmarks/predict-gpu.md),
 * so a frame scored further than 0.04 from 0.5 in fp8 keeps the label a more accurate precision gives it.
 */
export const DEFAULT_REFINE_MARGIN = 0.04;

/**
 * The second look at frames near the decision: a frame whose virus probability lies within `margin` of 0.5 is
 * scored again by `score` (embedded at the backend's refinement precision, bf16 under fp8, and classified in the
 * worker). Which frames qualify depends on each frame's own score only, so a frame's output stays independent of
 * its batch, its shard and of a resume; it is decided here, in input order, so that the frames near 0.5 of many
 * batches go to the GPU together (refinement-batcher.ts) — a worker sees too few of them in one batch.
 */
export interface FrameRefinement {
  /** Half-width of the band around 0.5, in [0, 0.5]; 0: no frame is refined. */
  margin: number;
  /** The frames' two scores (others, virus) at the refinement precision, one row per frame (then its features, when kept), in order (Features.refine). */
  score(frames: FrameItem[]): Promise<Float32Array[]>;
  /** ESM-2 tokens of frames to gather from several MLP batches before embedding them together (default 0: each batch's at once). */
  batchTokens?: number;
}

/** Refuses a margin outside [0, 0.5] (a usage error of `--refine-margin`). */
export function checkRefineMargin(margin: number): void {
  if (!(margin >= 0 && margin <= 0.5)) throw new RangeError(`the refine margin must lie in [0, 0.5] (a distance of the virus score from 0.5), got ${margin}`);
}

/**
 * Rows whose virus probability (the second value of each row of `width`: the two scores, then the features when
 * they are kept) lies strictly within `margin` of 0.5.
 */
export function rowsNearDecision(probabilities: ArrayLike<number>, rows: number, margin: number, width = 2): number[] {
  const near: number[] = [];
  for (let row = 0; row < rows; row++) if (Math.abs(probabilities[width * row + 1] - 0.5) < margin) near.push(row);
  return near;
}

/**
 * `probabilities` of `frames` (`width` values per frame as the workers gave them: two scores, then the features
 * when they are kept) with the rows near the decision replaced by what the refinement precision gives them — the
 * features too, so saved embeddings are those the final scores came from; the others are the same values.
 * Resolves with the rows and how many were refined.
 */
export async function refineNearDecision(
  frames: readonly FrameItem[],
  probabilities: Float32Array,
  refinement: FrameRefinement,
  width = 2,
): Promise<{ probabilities: Float32Array; refined: number }> {
  const near = rowsNearDecision(probabilities, frames.length, refinement.margin, width);
  if (near.length === 0) return { probabilities, refined: 0 };
  const scores = await refinement.score(near.map((row) => frames[row]));
  if (scores.length !== near.length) throw new Error(`refinement returned ${scores.length} score rows for ${near.length} frames`);
  const out = Float32Array.from(probabilities);
  near.forEach((row, i) => {
    if (scores[i].length < width) throw new Error(`refinement returned ${scores[i].length} values for frame ${frames[row].id}, expected ${width}`);
    out.set(scores[i].subarray(0, width), width * row);
  });
  return { probabilities: out, refined: near.length };
}

/**
 * The refinement a run of `features` takes with `margin` (default DEFAULT_REFINE_MARGIN): none where the workers
 * have no more accurate precision (every precision but fp8) or the margin is 0; frames gathered to a full batch
 * of the plan's token budget.
 */
export function refinementFor(features: Pick<Features, 'refinesTo' | 'refine'> & { plan: { tokenBudget: number } }, margin = DEFAULT_REFINE_MARGIN): (FrameRefinement & { precision: Precision }) | undefined {
  checkRefineMargin(margin);
  const precision = features.refinesTo;
  if (precision === undefined || margin === 0) return undefined;
  return { margin, precision, score: (frames) => features.refine(frames), batchTokens: features.plan.tokenBudget };
}
