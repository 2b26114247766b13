import { ROW_WORDS_PER_THREAD } from './cuda/fp8.js';

/** The kernel of cuda/fp8.ts that writes a matrix's fp8 rows (one block per row), and its block size. */
export interface QuantizeRowsLaunch {
  kernel: string;
  block: [number, number, number];
}

const THREADS = 256;
const MAX_THREADS = 1024;

/**
 * Chooses the row-quantisation kernel for rows of `cols` values: through the erf GELU (fc1's output) or not; in
 * registers (`*_regs`: the row read and finished once; rows up to ROW_WORDS_PER_THREAD × 1,024 16-byte words,
 * with just enough threads) when `inRegisters`, else the kernels that read each row twice (`*_vec` on 16-byte
 * words, the scalar one when no word divides the row). Every choice writes the same bytes.
 */
export function quantizeRowsLaunch(cols: number, elementsPerWord: number, options: { gelu: boolean; inRegisters: boolean }): QuantizeRowsLaunch {
  const base = options.gelu ? 'gelu_quantize_rows' : 'quantize_rows';
  if (cols % elementsPerWord !== 0) return { kernel: base, block: [THREADS, 1, 1] };
  const words = cols / elementsPerWord;
  if (options.inRegisters && words <= ROW_WORDS_PER_THREAD * MAX_THREADS) {
    return { kernel: `${base}_regs`, block: [32 * Math.ceil(words / ROW_WORDS_PER_THREAD / 32), 1, 1] };
  }
  return { kernel: `${base}_vec`, block: [THREADS, 1, 1] };
}

/**
 * The launch of `geglu_quantize_rows_regs` (GeGLU and the fp8 rows of its output in one pass) for GeGLU outputs of
 * `f` values per row, or undefined where it does not apply: `f` not a whole number of 16-byte words, or a row too
 * long for the registers (GeGLU then writes T and the fp8 rows come from a quantisation pass).
 */
export function gegluQuantizeLaunch(f: number, elementsPerWord: number): QuantizeRowsLaunch | undefined {
  if (f % elementsPerWord !== 0) return undefined;
  const words = f / elementsPerWord;
  if (words > ROW_WORDS_PER_THREAD * MAX_THREADS) return undefined;
  return { kernel: 'geglu_quantize_rows_regs', block: [32 * Math.ceil(words / ROW_WORDS_PER_THREAD / 32), 1, 1] };
}
