/**
 * fp8: how many of a model's first blocks run in bf16. Rounding error that enters early passes through every later
 * block, so the first blocks buy the most accuracy per bf16 FLOP (docs/benchmarks/cuda.md, the depth sweep).
 */

/** The default: ⌈blocks/9⌉ (ESM-2 3B: 4 of 36, DNABERT-S: 2 of 12). */
export function defaultFp8Bf16Blocks(blocks: number): number {
  return Math.ceil(blocks / 9);
}

/**
 * A choice of bf16 blocks: `every` for every model, else `byDepth` for a model of that many blocks, else the default
 * rule. Keyed by depth because that is what a model tells the backend (inModelBlock), and ESM-2 3B (36) and
 * DNABERT-S (12) differ in it.
 */
export interface Fp8Bf16Blocks {
  every?: number;
  byDepth: ReadonlyMap<number, number>;
}

/** How many of the first of a model's `blocks` blocks run in bf16 under `choice` (never more than it has). */
export function fp8Bf16BlockCount(choice: Fp8Bf16Blocks, blocks: number): number {
  return Math.min(blocks, choice.every ?? choice.byDepth.get(blocks) ?? defaultFp8Bf16Blocks(blocks));
}

/**
 * $VIRNUCPRO_FP8_BF16_BLOCKS: `N` (the first N blocks of every model; 0: all in fp8), `DEPTH:N[,DEPTH:N…]` (the
 * first N of a model with DEPTH blocks, e.g. `36:4,12:12`; other models the default), or unset / empty: the default.
 */
export function parseFp8Bf16Blocks(value: string | undefined): Fp8Bf16Blocks {
  const byDepth = new Map<number, number>();
  if (value === undefined || value.trim() === '') return { byDepth };
  if (/^\s*\d+\s*$/.test(value)) return { every: Number(value), byDepth };
  for (const entry of value.split(',')) {
    const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(entry);
    if (!m || Number(m[1]) === 0) {
      throw new Error(`VIRNUCPRO_FP8_BF16_BLOCKS: '${value}' is neither a count of blocks (an integer ≥ 0) nor a list DEPTH:COUNT,… (e.g. 36:4,12:12)`);
    }
    byDepth.set(Number(m[1]), Number(m[2]));
  }
  return { byDepth };
}

/** For describe(): the choice in words (`ceil(blocks/9)` when it is the default). */
export function describeFp8Bf16Blocks(choice: Fp8Bf16Blocks): number | string {
  if (choice.every !== undefined) return choice.every;
  if (choice.byDepth.size === 0) return 'ceil(blocks/9)';
  return [...choice.byDepth].map(([depth, n]) => `${depth}:${n}`).join(',') + ', else ceil(blocks/9)';
}
