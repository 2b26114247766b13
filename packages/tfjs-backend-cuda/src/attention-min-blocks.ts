// How many blocks of the tensor-core attention kernel an SM should hold (`__launch_bounds__(128, n)`). Left to
// the compiler, a thread takes 128 registers: 4 blocks of 4 warps, 16 warps an SM, and short segments (a 52-token
// protein, a 150-bp window) then wait on their loads with nothing else to run (Nsight Compute on an H100: 25 %
// occupancy, 0.85 eligible warps a scheduler, half the issue slots empty).
//
// Provenance: tools/device/run-attention-occupancy-ab.sh on an H100 80GB HBM3 (sm_90), 2026-11-26, 4 / 5 / 6 blocks
// alternated over two rounds: 5 (96 registers, ≤ 44 bytes spilled) gave ESM-2 3B bf16 1.008–1.016× and DNABERT-S
// fp8 1.03–1.05× on 150-bp windows; 6 (80 registers, 216 bytes spilled) was slower. Only sm_90 was measured: other
// GPUs keep the compiler's choice.

/** Blocks per SM measured best, by GPU architecture. */
const MEASURED: Readonly<Record<string, number>> = { sm_90: 5 };

/**
 * Blocks per SM to compile attention_mma for on `arch` (0: the compiler's choice). $VIRNUCPRO_ATTENTION_MIN_BLOCKS
 * overrides it (0 to 8; the A/B); anything else is refused.
 */
export function attentionMinBlocks(arch: string, env: NodeJS.ProcessEnv = process.env): number {
  const value = env.VIRNUCPRO_ATTENTION_MIN_BLOCKS;
  if (value === undefined || value === '') return MEASURED[arch] ?? 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 8) throw new Error(`VIRNUCPRO_ATTENTION_MIN_BLOCKS: '${value}' is not a whole number from 0 to 8`);
  return n;
}
