/** Half-open interval `[start, end)` of one chunk inside its record. */
export interface ChunkSpan {
  start: number;
  end: number;
}

/**
 * The chunk boundaries VirNucPro's `split_fasta_chunk` produces for a record of `length` bases.
 *
 * Reproduces the original arithmetic exactly, quirks included:
 * - the overlap total `R = n·C − L` is divided by `n` (not by the `n − 1` gaps), so usually every gap overlaps by
 *   `q + 1` and the LAST chunk comes out shorter than `C` (it is never padded);
 * - `b = [q+1]·u + [q]·(n−1−u) + [0]` where a negative repeat count is an empty list;
 * - chunk `k` starts at `k·C − Σ b[0..k)`, except that a nominal start `≤ 1` is used as is;
 * - the slice is clipped at `length` like a Python slice.
 *
 * A record of length 0 is an error in the original (ZeroDivisionError); here it throws a RangeError.
 */
export function chunkLayout(length: number, chunkSize: number): ChunkSpan[] {
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunk size must be a positive integer, got ${chunkSize}`);
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`length must be a non-negative integer, got ${length}`);
  if (length === 0) throw new RangeError('cannot chunk a zero-length sequence (the original tool divides by zero here)');

  const n = Math.ceil(length / chunkSize);
  const repeat = n * chunkSize - length;
  // Python: int(repeat / n) — the same correctly rounded double division, truncated toward zero.
  const q = Math.trunc(repeat / n);
  const u = repeat - q * (n - 1); // "need_to_add_up_nums"
  const lowerCount = Math.max(0, n - 1 - u);

  const spans: ChunkSpan[] = new Array(n);
  let move = 0;
  for (let k = 0; k < n; k++) {
    const nominal = k * chunkSize;
    const start = nominal <= 1 ? nominal : nominal - move;
    spans[k] = { start, end: Math.min(start + chunkSize, length) };
    move += k < u ? q + 1 : k < u + lowerCount ? q : 0;
  }
  return spans;
}
