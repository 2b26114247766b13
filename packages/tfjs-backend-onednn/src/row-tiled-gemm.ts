import type { OnednnLibrary } from './onednn-library.js';
import type { Lane } from './row-jobs.js';

/**
 * Rows per oneDNN call. oneDNN picks its blocking, its K split and its kernel by the shape, M included (measured:
 * for K = 2560 the rows of an M ≤ 40 call differ in the last bits from the same rows in a larger call), so every
 * call gets the same M: a row's bytes then depend only on the row and the weights, never on how many rows share
 * the batch or where it sits among them (and not on the thread count: measured identical with 1 and 2 threads).
 * 128 rows keep the calls near full speed (330–370 GFLOP/s on 2 cores against 230–400 for one large call).
 */
export const GEMM_ROWS = 128;

/**
 * out[rows×n] = x[rows×k]·w[k×n] in calls of exactly GEMM_ROWS rows, the full blocks written straight into `out`
 * (a process-owned array, at `outAddress`). The last, partial block goes through the arena: its rows are copied
 * into the zero-padded region `pad` (GEMM_ROWS·k floats), multiplied into `tail` (GEMM_ROWS·n floats) and copied
 * into `out`. `x` and `w` are process addresses.
 */
export function rowTiledGemmInto(
  onednn: OnednnLibrary, wasm: Lane, x: Float32Array, xAddress: number, rows: number, k: number, wAddress: number, n: number,
  out: Float32Array, outAddress: number, pad: number, tail: number,
): void {
  const full = Math.floor(rows / GEMM_ROWS) * GEMM_ROWS;
  for (let r = 0; r < full; r += GEMM_ROWS) {
    onednn.sgemm(false, GEMM_ROWS, n, k, 1, xAddress + r * k * 4, k, wAddress, n, 0, outAddress + r * n * 4, n);
  }
  if (full < rows) {
    gemmPartialBlock(onednn, wasm, x, rows, k, wAddress, n, full, pad, tail);
    out.set(wasm.f32(tail, (rows - full) * n), full * n);
  }
}

/** Rows [full, rows) of x·w as one GEMM_ROWS-row call on a zero-padded copy in `pad`, into the arena offset `y`. */
function gemmPartialBlock(onednn: OnednnLibrary, wasm: Lane, x: Float32Array, rows: number, k: number, wAddress: number, n: number, full: number, pad: number, y: number): void {
  const padded = wasm.f32(pad, GEMM_ROWS * k);
  padded.set(x.subarray(full * k, rows * k));
  padded.fill(0, (rows - full) * k);
  onednn.sgemm(false, GEMM_ROWS, n, k, 1, wasm.address(pad), k, wAddress, n, 0, wasm.address(y), n);
}
