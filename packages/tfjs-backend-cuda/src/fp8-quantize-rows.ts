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
  const block = options.inRegisters ? registerRowsBlock(cols / elementsPerWord) : undefined;
  return block ? { kernel: `${base}_regs`, block } : { kernel: `${base}_vec`, block: [THREADS, 1, 1] };
}

/**
 * The launch of `geglu_quantize_rows_regs` (GeGLU and the fp8 rows of its output in one pass) for GeGLU outputs of
 * `f` values per row, or undefined where it does not apply: `f` not a whole number of 16-byte words, or a row too
 * long for the registers (GeGLU then writes T and the fp8 rows come from a quantisation pass).
 */
export function gegluQuantizeLaunch(f: number, elementsPerWord: number): QuantizeRowsLaunch | undefined {
  const block = f % elementsPerWord === 0 ? registerRowsBlock(f / elementsPerWord) : undefined;
  return block && { kernel: 'geglu_quantize_rows_regs', block };
}

/** The block of a `*_regs` kernel for rows of `words` 16-byte words: just enough whole warps; undefined when a row is
 * too long for the registers. */
function registerRowsBlock(words: number): [number, number, number] | undefined {
  return words <= ROW_WORDS_PER_THREAD * MAX_THREADS ? [32 * Math.ceil(words / ROW_WORDS_PER_THREAD / 32), 1, 1] : undefined;
}
