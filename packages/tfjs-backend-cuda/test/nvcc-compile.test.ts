import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, it } from 'vitest';
import { attentionMmaSource } from '../src/cuda/attention-mma.js';
import { attentionSimpleSource } from '../src/cuda/attention-simple.js';
import { castSource } from '../src/cuda/cast.js';
import { elementwiseSource } from '../src/cuda/elementwise.js';
import { embeddingSource } from '../src/cuda/embedding.js';
import { fp8Source } from '../src/cuda/fp8.js';
import { fp8BiasCorrectionSource } from '../src/cuda/fp8-bias-correction.js';
import { fp8SequenceCorrectionSource } from '../src/cuda/fp8-sequence-correction.js';
import { layerNormSource } from '../src/cuda/layer-norm.js';
import { prelude } from '../src/cuda/prelude.js';
import { rotarySource } from '../src/cuda/rotary.js';
import { segmentMeanSource } from '../src/cuda/segment-mean.js';
import type { CudaSource } from '../src/kernel-library.js';

/**
 * Every CUDA source of the backend compiles for sm_90 in each storage type, as NVRTC compiles it on the GPU machine
 * (prelude + code, the same defines), and ptxas spills no register: CI has no GPU, so a kernel that would not
 * compile or would spill is caught here, not at the first device call. Needs nvcc on PATH (CUDA 12.9+ for the
 * fp8 conversions); skipped without it.
 */
const run = promisify(execFile);
const nvcc = await run('nvcc', ['--version']).then(() => true, () => false);

const storages = ['-DVNP_F32', '-DVNP_F16', '-DVNP_BF16'];
// The defines the kernels are launched with (kernels/packed-attention.ts): head sizes of ESM-2 / DNABERT-S (64), of
// the random shapes the tests use, with and without rotary.
// maxSpillBytes: attention_mma held to 5 blocks an SM (96 registers, attention-min-blocks.ts) spills a few bytes
// of its tile loads, and was measured faster so on an H100 (with each head's two halves loaded together, 48 bytes
// stored and 68 loaded with rotary, measured faster on an H200); with the softmax in powers of 2 (2026-11-29) bf16
// with rotary spills 60 / 56 bytes (measured +0.3–0.5 % on an H200, bf16 and fp8) and fp16 with rotary 80 / 72 (fp16
// not measured); anything more than that is a regression.
const variants: { source: CudaSource; defines: string[][]; storages?: string[]; maxSpillBytes?: number }[] = [
  { source: castSource, defines: [[]] },
  { source: elementwiseSource, defines: [[]] },
  { source: embeddingSource, defines: [[]] },
  { source: fp8Source, defines: [[]] },
  { source: fp8BiasCorrectionSource, defines: [[]] },
  { source: fp8SequenceCorrectionSource, defines: [[]] },
  { source: layerNormSource, defines: [[], ['-DLN_WORDS=1'], ['-DLN_WORDS=3'], ['-DLN_WORDS=10'], ['-DLN_WORDS=12']] },
  { source: rotarySource, defines: [[]] },
  { source: segmentMeanSource, defines: [[]] },
  { source: attentionSimpleSource, defines: [['-DHD=64'], ['-DHD=18']] },
  { source: attentionMmaSource, defines: [['-DHD=64'], ['-DHD=64', '-DROTARY'], ['-DHD=32', '-DROTARY'], ['-DHD=32', '-DALIBI']], storages: ['-DVNP_F16', '-DVNP_BF16'] },
  { source: attentionMmaSource, defines: [['-DHD=64', '-DALIBI', '-DMIN_BLOCKS=5'], ['-DHD=64', '-DROTARY', '-DMIN_BLOCKS=5']], storages: ['-DVNP_F16', '-DVNP_BF16'], maxSpillBytes: 80 },
  // fp8 (bf16 storage) with static scales: the output written as E4M3 (ESM-2 with rotary, DNABERT-S with ALiBi).
  { source: attentionMmaSource, defines: [['-DHD=64', '-DROTARY', '-DMIN_BLOCKS=5', '-DFP8_OUT'], ['-DHD=64', '-DALIBI', '-DMIN_BLOCKS=5', '-DFP8_OUT'], ['-DHD=128', '-DFP8_OUT']], storages: ['-DVNP_BF16'], maxSpillBytes: 72 },
];

const dir = mkdtempSync(join(tmpdir(), 'vnp-nvcc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The sources compile side by side (the tests run concurrently), two nvcc processes at a time: each uses one core.
const NVCC_AT_ONCE = 2;
// Every test starts at once and waits for a slot, so a test's time includes the compiles queued before its own: ~60
// one-core compiles of ~1 s, 80 s on an idle 2-core machine, over 120 s when other test files share its cores.
const COMPILES_TIMEOUT_MS = 600_000;
let running = 0;
const waiting: (() => void)[] = [];
async function nvccSlot<T>(work: () => Promise<T>): Promise<T> {
  while (running >= NVCC_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

describe.skipIf(!nvcc)('CUDA sources compile with nvcc for sm_90', { concurrent: true }, () => {
  variants.forEach(({ source, defines, storages: only, maxSpillBytes = 0 }, index) => {
    const spillsAllowed = maxSpillBytes ? `≤ ${maxSpillBytes} bytes spilled` : 'no spills';
    const named = defines.some((d) => d.length) ? ` ${defines.map((d) => d.join(' ') || '(none)').join(' | ')}` : '';
    it(`${source.name}${named}: ${(only ?? storages).length * defines.length} variants, ${spillsAllowed}`, async ({ expect }) => {
      // Files of this test alone: a source can be in several tests, which run at the same time.
      const file = join(dir, `${source.name}-${index}.cu`);
      writeFileSync(file, prelude + source.code);
      const compiles = (only ?? storages).flatMap((storage) => defines.map((extra) => [storage, ...extra]));
      await Promise.all(
        compiles.map(async (flags, k) => {
          const args = ['-arch=sm_90', '-std=c++17', '-cubin', '-Xptxas', '-v', ...flags, file, '-o', join(dir, `${source.name}-${index}-${k}.cubin`)];
          const { stderr } = await nvccSlot(() => run('nvcc', args)).catch((err: { stderr?: string; message: string }) => {
            throw new Error(`nvcc ${flags.join(' ')} ${source.name}: ${err.stderr ?? err.message}`);
          });
          const spills = stderr.split('\n').filter((line) => [...line.matchAll(/(\d+) bytes spill (stores|loads)/g)].some((m) => Number(m[1]) > maxSpillBytes));
          expect(spills, `${source.name} ${flags.join(' ')}`).toEqual([]);
        }),
      );
    }, COMPILES_TIMEOUT_MS);
  });
});
