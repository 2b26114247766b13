// What the model benchmarks (bench-esm2, bench-dnabert) share on the GPU: MFU's denominator, the check of
// reduced-precision mean embeddings against an fp32 run's, and the per-kernel profile of one forward pass.
import { readFileSync, writeFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import { batchesInFlight } from '@virnucpro/compute';
import { packArray } from '@virnucpro/packer';
import type { GemmAlgoChoice } from '@virnucpro/tfjs-backend-cuda';

/** Dense fp16/bf16 tensor-core peak of the GPU, for MFU (H100/H200 SXM: 989.4 TFLOP/s). */
export const PEAK_TENSOR_TFLOPS = 989.4;

type MeanEmbedder = { meanEmbeddings(batch: Int32Array[]): Promise<Float32Array[]> };

/**
 * Mean embeddings of `probe` written as raw float32 (`outPath`) and/or compared by cosine with such a file
 * (`refPath`, e.g. from an fp32 run of the same weights): the smallest cosine over the probe.
 */
export async function checkMeans(model: MeanEmbedder, probe: Int32Array[], outPath?: string, refPath?: string): Promise<{ minCosine: number; sequences: number } | undefined> {
  if (!outPath && !refPath) return undefined;
  const means = await model.meanEmbeddings(probe);
  const dim = means[0].length;
  const flat = new Float32Array(means.length * dim);
  means.forEach((m, i) => flat.set(m, i * dim));
  if (outPath) writeFileSync(outPath, Buffer.from(flat.buffer));
  if (!refPath) return undefined;
  const ref = new Float32Array(new Uint8Array(readFileSync(refPath)).buffer);
  let minCosine = 1;
  means.forEach((m, i) => {
    let dot = 0, na = 0, nb = 0;
    for (let j = 0; j < m.length; j++) {
      const r = ref[i * dim + j];
      dot += m[j] * r; na += m[j] * m[j]; nb += r * r;
    }
    minCosine = Math.min(minCosine, dot / Math.sqrt(na * nb));
  });
  return { minCosine, sequences: means.length };
}

/** A cuda setting a benchmark A/Bs in one process: how GEMM algorithms are chosen, where fc1's GELU runs and (fp8)
 * whether rows are quantised in registers (read once) or re-read; `rowsInRegisters` undefined leaves the default. */
export interface CudaVariant { name: string; algo: GemmAlgoChoice; geluEpilogue: boolean; rowsInRegisters?: boolean }

/** `--variants tuned+epilogue,pinned+epilogue,per-rows+erf,pinned+epilogue+regs,…` (GEMM algorithm: tuned (the
 * default: measured configurations) | pinned (the heuristic's first) | per-rows; GELU: epilogue | erf; optional fp8
 * row quantisation: regs | reread). */
export function parseCudaVariants(spec: string): CudaVariant[] {
  return spec.split(',').map((name) => {
    const [algo, gelu, rows, ...rest] = name.split('+');
    if ((algo !== 'tuned' && algo !== 'pinned' && algo !== 'per-rows') || (gelu !== 'epilogue' && gelu !== 'erf') || (rows !== undefined && rows !== 'regs' && rows !== 'reread') || rest.length) {
      throw new Error(`--variants: ${name}: expected tuned|pinned|per-rows + epilogue|erf [+ regs|reread], e.g. tuned+epilogue`);
    }
    return { name, algo, geluEpilogue: gelu === 'epilogue', ...(rows ? { rowsInRegisters: rows === 'regs' } : {}) };
  });
}

/** Puts the cuda backend in `variant`'s setting (the fields CudaBackend exposes for tools). */
export function applyCudaVariant(variant: CudaVariant): void {
  const cuda = tf.backend() as unknown as { gemmAlgoChoice?: string; geluEpilogue?: boolean; fp8RowsInRegisters?: boolean };
  if (cuda.gemmAlgoChoice === undefined) throw new Error('--variants needs the cuda backend');
  cuda.gemmAlgoChoice = variant.algo;
  cuda.geluEpilogue = variant.geluEpilogue;
  if (variant.rowsInRegisters !== undefined) cuda.fp8RowsInRegisters = variant.rowsInRegisters;
}

interface Profiling { startProfile(): void; stopProfile(): { kernel: string; launches: number; ms: number; share: number }[] }

/** GPU time per kernel over one forward pass of `batch` (cuda backend), next to the same batch's wall time unprofiled. */
export async function profileForward(model: MeanEmbedder, batch: Int32Array[], backend: string) {
  const active = tf.backend() as unknown as Partial<Profiling>;
  if (!active.startProfile) throw new Error(`--profile needs the cuda backend, not ${backend}`);
  const wallStart = performance.now();
  await model.meanEmbeddings(batch);
  const wallMs = performance.now() - wallStart;
  active.startProfile();
  await model.meanEmbeddings(batch);
  const kernels = active.stopProfile!();
  const gpuMs = kernels.reduce((a, k) => a + k.ms, 0);
  return { sequences: batch.length, tokens: batch.reduce((a, t) => a + t.length, 0), wallMs: +wallMs.toFixed(2), gpuMs: +gpuMs.toFixed(2), kernels };
}

/** FLOP of one forward over a sequence of `tokens`: 2 per matmul parameter per token, plus q·kᵀ and p·v. */
export interface FlopModel { matmulParameters: number; hiddenSize: number; layers: number }

/** Batches in flight at once: `requested` (--in-flight), else as the tools run (@virnucpro/compute batchesInFlight:
 * 2 on cuda, 1 elsewhere). */
export function benchBatchesInFlight(backend: string, requested?: string): number {
  return requested === undefined ? batchesInFlight(backend) : Number(requested);
}

/**
 * Tokens/s and MFU of `model` on `tokenized` packed at `budget` tokens per batch (first-fit decreasing, no
 * padding): `warmup` batches first (kernel compilation, allocator), then every other batch timed. `inFlight`
 * batches are in flight at once, as the tools run them (the runtime's `concurrentBatches`: 2 on cuda, where the next
 * batch's packing and launches overlap the GPU's work on the one before; 1 elsewhere); 1 awaits each batch before
 * the next starts, so the host's work per batch counts in full.
 */
export async function timePackedBatches(model: MeanEmbedder, tokenized: Int32Array[], budget: number, warmup: number, flop: FlopModel, inFlight = 1) {
  const batches = packArray(tokenized.map((t, index) => ({ index, tokens: t.length, value: t })), { tokenBudget: budget }).map((b) =>
    b.items.map((item) => item.value),
  );
  const warm = Math.min(warmup, batches.length - 1);
  for (const b of batches.slice(0, warm)) await model.meanEmbeddings(b);
  const timed = batches.slice(warm);
  const start = performance.now();
  let tokens = 0;
  let sequences = 0;
  let attentionFlop = 0;
  const pending: Promise<unknown>[] = [];
  for (const b of timed) {
    if (pending.length >= inFlight) await pending.shift();
    pending.push(model.meanEmbeddings(b));
    for (const t of b) {
      tokens += t.length;
      attentionFlop += 4 * t.length * t.length * flop.hiddenSize * flop.layers; // q·kᵀ and p·v
    }
    sequences += b.length;
  }
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  const tflops = (2 * flop.matmulParameters * tokens + attentionFlop) / seconds / 1e12;
  return {
    tokenBudget: budget,
    inFlight,
    batches: timed.length,
    sequences,
    tokens,
    seconds: +seconds.toFixed(3),
    tokensPerSecond: Math.round(tokens / seconds),
    tflops: +tflops.toFixed(1),
    mfu: +(tflops / PEAK_TENSOR_TFLOPS).toFixed(3),
  };
}

/** The measured part of a benchmark's JSON: setup time, every run, the best tokens/s, the checks, GPU memory now. */
export function benchmarkFigures(setupSeconds: number, runs: { tokensPerSecond: number }[], meansCheck?: object, profile?: object) {
  const best = runs.reduce((a, b) => (b.tokensPerSecond > a.tokensPerSecond ? b : a), runs[0]);
  return {
    setupSeconds: +setupSeconds.toFixed(2),
    runs,
    tokensPerSecond: best?.tokensPerSecond,
    ...(meansCheck ? { meansCheck } : {}),
    ...(profile ? { profile } : {}),
    memory: tf.memory(),
  };
}
