import type { OnednnLibrary } from './onednn-library.js';
import type { WasmKernels } from './wasm-kernels.js';

/**
 * Rows per oneDNN call. oneDNN picks its blocking, its K split and its kernel by the shape, M included (measured:
 * for K = 2560 the rows of an M ≤ 40 call differ in the last bits from the same rows in a larger call), so every
 * call gets the same M: a row's bytes then depend only on the row and the weights, never on how many rows share
 * the batch or where it sits among them (and not on the thread count: measured identical with 1 and 2 threads).
 * 128 rows keep the calls near full speed (330–370 GFLOP/s on 2 cores against 230–400 for one large call).
 */
export const GEMM_ROWS = 128;

/**
 * y[rows×n] = x[rows×k]·w[k×n] into the arena region `y` (byte offset, at least ceil(rows/128)·128 rows), in calls
 * of exactly GEMM_ROWS rows; the last, partial block is copied into the zero-padded arena region `pad` (GEMM_ROWS·k
 * floats) first. `x` and `w` are process addresses.
 */
export function rowTiledGemm(
  onednn: OnednnLibrary, wasm: WasmKernels, x: Float32Array, xAddress: number, rows: number, k: number, wAddress: number, n: number, y: number, pad: number,
): void {
  const full = Math.floor(rows / GEMM_ROWS) * GEMM_ROWS;
  for (let r = 0; r < full; r += GEMM_ROWS) {
    onednn.sgemm(false, GEMM_ROWS, n, k, 1, xAddress + r * k * 4, k, wAddress, n, 0, wasm.address(y + r * n * 4), n);
  }
  if (full < rows) gemmPartialBlock(onednn, wasm, x, rows, k, wAddress, n, full, pad, y + full * n * 4);
}

/**
 * The same calls as rowTiledGemm, but the full blocks write straight into `out` (rows×n, a process-owned array):
 * no arena region for the result and no copy out of it, and the output's fresh pages are first touched by oneDNN's
 * threads rather than by a copy on the main thread. Only the last, partial block goes through the arena (`pad`,
 * GEMM_ROWS·k floats, then `tail`, GEMM_ROWS·n floats) and its rows are copied into `out`.
 */
export function rowTiledGemmInto(
  onednn: OnednnLibrary, wasm: WasmKernels, x: Float32Array, xAddress: number, rows: number, k: number, wAddress: number, n: number,
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
function gemmPartialBlock(onednn: OnednnLibrary, wasm: WasmKernels, x: Float32Array, rows: number, k: number, wAddress: number, n: number, full: number, pad: number, y: number): void {
  const padded = wasm.f32(pad, GEMM_ROWS * k);
  padded.set(x.subarray(full * k, rows * k));
  padded.fill(0, (rows - full) * k);
  onednn.sgemm(false, GEMM_ROWS, n, k, 1, wasm.address(pad), k, wAddress, n, 0, wasm.address(y), n);
}
