import { packArray } from '@virnucpro/packer';
import type { BatchEmbedder } from '@virnucpro/runtime';
import { esmTokenCount, type FrameItem } from './frame-item.js';

/**
 * Embeds `frames` on `pool` at its refinement precision: packed into batches of at most `tokenBudget` ESM-2 tokens
 * that hold only frames to refine (the feature model runs such a batch at that precision), the vectors back in
 * the order of `frames`.
 */
export async function embedForRefinement(pool: BatchEmbedder<FrameItem>, frames: readonly FrameItem[], tokenBudget: number): Promise<Float32Array[]> {
  const items = frames.map((frame, index) => ({ index, tokens: esmTokenCount(frame), value: { ...frame, refine: true as const } }));
  const vectors: Float32Array[] = new Array(frames.length);
  await Promise.all(
    packArray(items, { tokenBudget }).map(async (batch) => {
      const embedded = await pool.submit(batch);
      embedded.items.forEach((item, i) => (vectors[item.index] = embedded.vectors[i]));
    }),
  );
  return vectors;
}
