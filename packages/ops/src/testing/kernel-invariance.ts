import * as tf from '@tensorflow/tfjs-core';
import { embedding } from '../embedding.js';
import { geglu } from '../geglu.js';
import { layerNorm } from '../layer-norm.js';
import { linear } from '../linear.js';
import { packedAttention } from '../packed-attention.js';
import { packedLayout, type PackedLayout } from '../packed-layout.js';
import { rotaryQkv } from '../rotary-qkv.js';
import { segmentMean } from '../segment-mean.js';
import { findBatchDependence, randomInt, seededRandom, type BatchDependence } from './batch-invariance.js';

// Every Vnp kernel, on random shapes and random sequences, through findBatchDependence: the rule checked one
// kernel at a time on whichever backend is current, so a backend package (onednn, cuda) tests its own kernels
// with the same cases the composites pass.

/** A transformer's shapes: hidden size d = heads · headSize, feed-forward width `ffn`. */
export interface ModelShape {
  heads: number;
  headSize: number;
  ffn: number;
}

/**
 * Random shapes as the rule demands (1–16 heads, odd ones included; head sizes 8–128, odd ones unless `evenHeadSize`
 * (rotary needs even); so hidden sizes that are mostly not multiples of 8 or 16), with d = heads · headSize ≤ `maxHidden`;
 * `heads` fixes the head count (the edge cases: one head takes other code paths on wasm).
 */
export function randomModelShape(rand: () => number, options: { maxHidden?: number; evenHeadSize?: boolean; heads?: number } = {}): ModelShape {
  const maxHidden = options.maxHidden ?? 256;
  const heads = options.heads ?? randomInt(rand, 1, Math.min(16, Math.floor(maxHidden / 8)));
  let headSize = randomInt(rand, 8, Math.max(8, Math.min(128, Math.floor(maxHidden / heads))));
  if (options.evenHeadSize && headSize % 2) headSize += headSize < 128 && (headSize + 1) * heads <= maxHidden ? 1 : -1;
  const d = heads * headSize;
  return { heads, headSize, ffn: randomInt(rand, Math.max(1, Math.floor(d / 2)), 3 * d) };
}

/**
 * Random sequence lengths in [minLength, maxLength]: both ends, a twin (the 4th repeats the 3rd: sequences of one
 * length share attention groups, so a sequence is also checked beside a neighbour of its own length), then random
 * lengths, a third of them repeats of earlier ones.
 */
export function randomLengths(rand: () => number, count: number, maxLength: number, minLength = 1): number[] {
  const lengths: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i === 0) lengths.push(maxLength);
    else if (i === 1) lengths.push(minLength);
    else if (i === 3 || (i > 3 && rand() < 1 / 3)) lengths.push(lengths[i === 3 ? 2 : randomInt(rand, 0, i - 1)]);
    else lengths.push(randomInt(rand, minLength, maxLength));
  }
  return lengths;
}

/** Rows of one sequence for one kernel input: `width` values per token. */
interface RowInput {
  width: number;
  /** int32 values in [0, vocab) when set, else float32 uniform in [−2, 2). */
  vocab?: number;
}

/** One kernel call, its weights fixed, its per-token inputs packed from the sequences of a batch. */
interface KernelCase {
  name: string;
  rows: Record<string, RowInput>;
  /** Fewest tokens a sequence may have (segmentMean that skips BOS/EOS needs 3). */
  minLength?: number;
  /** [N, w] per token, or [S, w] per segment when `perSegment`. */
  run(inputs: Record<string, tf.Tensor>, layout: PackedLayout): tf.Tensor2D;
  perSegment?: boolean;
}

function uniform(rand: () => number, n: number, scale = 2): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = scale * (2 * rand() - 1);
  return a;
}

/** cos / signed-sin rotary tables [P, hd] (half-split), as ESM-2 builds them. */
function rotaryTables(hd: number, P: number): { cos: tf.Tensor2D; sinSigned: tf.Tensor2D } {
  const half = hd / 2;
  const cos = new Float32Array(P * hd);
  const sinSigned = new Float32Array(P * hd);
  for (let p = 0; p < P; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p / 10000 ** ((2 * i) / hd);
      cos[p * hd + i] = cos[p * hd + i + half] = Math.cos(angle);
      sinSigned[p * hd + i] = -Math.sin(angle);
      sinSigned[p * hd + i + half] = Math.sin(angle);
    }
  }
  return { cos: tf.tensor2d(cos, [P, hd]), sinSigned: tf.tensor2d(sinSigned, [P, hd]) };
}

/** The kernel cases of one model shape: every Vnp kernel in the ways ESM-2 and DNABERT-S call it. */
function kernelCases(shape: ModelShape, maxLength: number, rand: () => number): { cases: KernelCase[]; weights: tf.Tensor[] } {
  const { heads: H, headSize: hd, ffn } = shape;
  const d = H * hd;
  const weights: tf.Tensor[] = [];
  const keep = <T extends tf.Tensor>(t: T): T => (weights.push(t), t);
  const matrix = (rows: number, cols: number) => keep(tf.tensor2d(uniform(rand, rows * cols, 1 / Math.sqrt(rows)), [rows, cols]));
  const vector = (n: number, offset = 0) => keep(tf.tensor1d(uniform(rand, n, 0.1).map((v) => v + offset)));
  const wqkv = matrix(d, 3 * d), bqkv = vector(3 * d), w1 = matrix(d, ffn), b1 = vector(ffn), w2 = matrix(ffn, d), b2 = vector(d);
  const gated = matrix(d, 2 * ffn), gamma = vector(d, 1), beta = vector(d), table = matrix(33, d);
  const slopes = Float32Array.from({ length: H }, (_, h) => 2 ** (-8 * (h + 1) / H));
  const x = (width: number): Record<string, RowInput> => ({ x: { width } });
  const cases: KernelCase[] = [
    { name: `VnpLinear qkv ${d}→${3 * d} +bias`, rows: x(d), run: (i) => linear(i.x as tf.Tensor2D, wqkv, bqkv) },
    { name: `VnpLinear ${d}→${ffn} +bias gelu`, rows: x(d), run: (i) => linear(i.x as tf.Tensor2D, w1, b1, { activation: 'gelu' }) },
    {
      name: `VnpLinear ${ffn}→${d} +bias +residual`, rows: { x: { width: ffn }, residual: { width: d } },
      run: (i) => linear(i.x as tf.Tensor2D, w2, b2, { residual: i.residual as tf.Tensor2D }),
    },
    { name: `VnpLinear ${d}→${2 * ffn} no bias`, rows: x(d), run: (i) => linear(i.x as tf.Tensor2D, gated) },
    { name: `VnpLayerNorm ${d}`, rows: x(d), run: (i) => layerNorm(i.x as tf.Tensor2D, gamma, beta, 1e-5) },
    { name: `VnpGeglu ${2 * ffn}`, rows: x(2 * ffn), run: (i) => geglu(i.x as tf.Tensor2D) },
    {
      name: `VnpPackedAttention ${H}×${hd} ALiBi`, rows: x(3 * d),
      run: (i, layout) => packedAttention(i.x as tf.Tensor2D, layout, { numHeads: H, scale: 1 / Math.sqrt(hd), alibiSlopes: slopes }),
    },
    { name: `VnpSegmentMean ${d}`, rows: x(d), perSegment: true, run: (i, layout) => segmentMean(i.x as tf.Tensor2D, layout) },
    {
      name: `VnpSegmentMean ${d} skip 1+1`, rows: x(d), perSegment: true, minLength: 3,
      run: (i, layout) => segmentMean(i.x as tf.Tensor2D, layout, 1, 1),
    },
    { name: `VnpEmbedding ${d} ×0.88`, rows: { ids: { width: 1, vocab: 33 } }, run: (i) => embedding(i.ids as tf.Tensor1D, table, 0.88) },
    {
      name: `VnpEmbedding ${d} per-row scale`, rows: { ids: { width: 1, vocab: 33 }, scale: { width: 1 } },
      run: (i) => embedding(i.ids as tf.Tensor1D, table, i.scale as tf.Tensor1D),
    },
  ];
  if (hd % 2 === 0) {
    const { cos, sinSigned } = rotaryTables(hd, maxLength);
    keep(cos);
    keep(sinSigned);
    cases.push(
      { name: `VnpRotaryQkv ${H}×${hd}`, rows: x(3 * d), run: (i, layout) => rotaryQkv(i.x as tf.Tensor2D, cos, sinSigned, layout.positionsTensor, H) },
      {
        name: `VnpPackedAttention ${H}×${hd} rotary`, rows: x(3 * d),
        run: (i, layout) => packedAttention(i.x as tf.Tensor2D, layout, { numHeads: H, scale: 1, rotary: { cos, sinSigned } }),
      },
    );
  }
  return { cases, weights };
}

/** One sequence of a kernel case: its length and its rows of every input. */
interface Sequence {
  length: number;
  rows: Record<string, Float32Array | Int32Array>;
}

function makeSequence(kernelCase: KernelCase, length: number, rand: () => number): Sequence {
  const rows: Record<string, Float32Array | Int32Array> = {};
  for (const [name, { width, vocab }] of Object.entries(kernelCase.rows)) {
    rows[name] = vocab ? Int32Array.from({ length: length * width }, () => randomInt(rand, 0, vocab - 1)) : uniform(rand, length * width);
  }
  return { length, rows };
}

/** Runs a kernel case on a batch of sequences packed back to back; one Float32Array per sequence. */
async function runPacked(kernelCase: KernelCase, batch: Sequence[]): Promise<Float32Array[]> {
  const layout = packedLayout(batch.map((s) => s.length));
  try {
    const out = tf.tidy(() => {
      const inputs: Record<string, tf.Tensor> = {};
      for (const [name, { width, vocab }] of Object.entries(kernelCase.rows)) {
        const data = vocab ? new Int32Array(layout.totalTokens * width) : new Float32Array(layout.totalTokens * width);
        batch.forEach((s, k) => data.set(s.rows[name], layout.offsets[k] * width));
        inputs[name] = width === 1 ? tf.tensor1d(data, vocab ? 'int32' : 'float32') : tf.tensor2d(data, [layout.totalTokens, width]);
      }
      return kernelCase.run(inputs, layout);
    });
    const width = out.shape[1];
    const all = (await out.data()) as Float32Array;
    out.dispose();
    return batch.map((_, k) => kernelCase.perSegment
      ? all.slice(k * width, (k + 1) * width)
      : all.slice(layout.offsets[k] * width, layout.offsets[k + 1] * width));
  } finally {
    layout.dispose();
  }
}

export interface KernelInvarianceOptions {
  /** Seed of shapes, weights and sequences (one seed, one reproducible set of cases). */
  seed?: number;
  /** Model shapes to draw (default 3). */
  shapes?: number;
  /** Largest hidden size drawn (default 256). */
  maxHidden?: number;
  /** Longest sequence, in tokens (default 130: past a 128-row tile). */
  maxLength?: number;
  /** Sequences per case (default 6). */
  sequences?: number;
}

export interface KernelInvarianceResult {
  kernel: string;
  shape: ModelShape;
  lengths: number[];
  found: BatchDependence[];
}

/**
 * Checks every Vnp kernel of the CURRENT tfjs backend (tf.setBackend first) against the batch-invariance rule:
 * random model shapes, random sequences from 1 token to `maxLength`, each run alone and in every arrangement of
 * `batchArrangements`. Returns one result per kernel case; the rule holds when every `found` is empty.
 */
export async function checkKernelInvariance(options: KernelInvarianceOptions = {}): Promise<KernelInvarianceResult[]> {
  const rand = seededRandom(options.seed ?? 1);
  const maxLength = options.maxLength ?? 130;
  const results: KernelInvarianceResult[] = [];
  for (let s = 0; s < (options.shapes ?? 3); s++) {
    // The first shape has one head: a batch of one (segment × head) product took another path on wasm.
    const shape = randomModelShape(rand, { maxHidden: options.maxHidden, ...(s === 0 ? { heads: 1 } : {}) });
    const { cases, weights } = kernelCases(shape, maxLength, rand);
    try {
      for (const kernelCase of cases) {
        const lengths = randomLengths(rand, options.sequences ?? 6, maxLength, kernelCase.minLength ?? 1);
        const sequences = lengths.map((n) => makeSequence(kernelCase, n, rand));
        const found = await findBatchDependence(sequences, lengths, (batch) => runPacked(kernelCase, batch), rand);
        results.push({ kernel: kernelCase.name, shape, lengths, found });
      }
    } finally {
      tf.dispose(weights);
    }
  }
  return results;
}
