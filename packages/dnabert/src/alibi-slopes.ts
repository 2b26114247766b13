// ALiBi head slopes exactly as MosaicBERT's `_get_alibi_head_slopes` (bert_layers.py, used by
// DNABERT-2 / DNABERT-S): geometric slopes for a power-of-two head count; otherwise the slopes of
// the largest power of two c below n, followed by every other slope of 2c, first n − c of them.

function powerOfTwoSlopes(n: number): number[] {
  const start = 2 ** -(2 ** -(Math.log2(n) - 3));
  return Array.from({ length: n }, (_, i) => start * start ** i);
}

function slopes(n: number): number[] {
  if (Number.isInteger(Math.log2(n))) return powerOfTwoSlopes(n);
  const c = 2 ** Math.floor(Math.log2(n));
  const extra = slopes(2 * c).filter((_, i) => i % 2 === 0).slice(0, n - c);
  return [...powerOfTwoSlopes(c), ...extra];
}

/** Per-head ALiBi slopes (head order 0..n−1), rounded to float32 as torch.Tensor(...) does. */
export function alibiSlopes(numHeads: number): Float32Array {
  if (!Number.isInteger(numHeads) || numHeads < 1) throw new Error(`alibiSlopes: head count must be a positive integer, got ${numHeads}`);
  return Float32Array.from(slopes(numHeads));
}
