import type { PackedBatch } from './pack-types.js';

/**
 * Real tokens / budget spent = Σ batch tokens / Σ max(budget, batch tokens) — i.e. real tokens over
 * batches × budget, where a lone oversize batch counts its own size. 1 = no padding; 0 for no batches.
 */
export function packingEfficiency(batches: readonly PackedBatch<unknown>[]): number {
  let used = 0;
  let spent = 0;
  for (const batch of batches) {
    used += batch.tokens;
    spent += Math.max(batch.tokenBudget, batch.tokens);
  }
  return spent === 0 ? 0 : used / spent;
}
