/** Scores per segment (all heads) held at once: 2^24 float32 (64 MiB); longer segments take their rows in blocks. */
const SCORE_ELEMENTS_PER_BLOCK = 2 ** 24;

/**
 * Query rows per block of packed attention for segment length L with H heads: all L rows while H·L² scores fit the
 * limit, else as many as fit. A function of L and H alone (never of the batch), so a row's numbers do not depend on
 * its neighbours; every backend that computes attention in blocks takes its block size from here.
 */
export function queryBlockRows(H: number, L: number): number {
  if (H * L * L <= SCORE_ELEMENTS_PER_BLOCK) return L;
  return Math.max(1, Math.floor(SCORE_ELEMENTS_PER_BLOCK / (H * L)));
}
