import { packWindowFor } from '@virnucpro/runtime';
import { esmTokenCount, type FrameItem } from './frame-item.js';

/** How predict packs frames into batches: `runEmbedding`'s `pack`. */
export interface FramePacking {
  tokenBudget: number;
  window: number;
  tokenCount: (frame: FrameItem) => number;
}

/**
 * Frames packed on their ESM-2 tokens, first-fit decreasing over a window of `window` frames (default from the
 * budget: packWindowFor(budget, 2000)), with `runEmbedding`'s default carry-over: a window's emptiest batch, if under
 * 90 % full, rejoins the next window instead of going to the GPU. Without it every window ended in one part-filled batch: frames of
 * 150-bp reads (~51 tokens) fill a 2,048-frame window to ~3.2 batches at a 32,768 budget, so a quarter of the batches
 * were ~20 % full (H100, 1 M frames: packingEfficiency 0.802). The window still bounds what is held back.
 */
export function framePacking(tokenBudget: number, window = packWindowFor(tokenBudget, 2000)): FramePacking {
  return { tokenBudget, window, tokenCount: esmTokenCount };
}
