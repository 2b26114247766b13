// A batch that runs out of GPU memory is split in halves and retried, down to one sequence, with results in
// order and the splits counted: on the helper and on the features model (the place a batch meets the models,
// in a worker process or the in-process worker thread).
import { describe, expect, it } from 'vitest';
import { featuresModel, type SequenceEmbedder } from '../src/features-model.js';
import type { FrameItem } from '../src/frame-item.js';
import { embedSplittingOnOom, isOutOfMemory, SequenceTooLargeError } from '../src/oom-split.js';

/** Like the cuda backend's error, but another class: only the name may be relied on. */
class FakeOom extends Error {
  override readonly name = 'CudaOutOfMemoryError';
  constructor() {
    super('CUDA out of memory: asked for 2.00 GiB with 78.00 GiB in use');
  }
}

/** A fake model: vector = [code of first char, length, call number]; throws OOM for batches above `limit`. */
function fakeEmbedder(dim: number, limit: number, calls: number[][] = []): SequenceEmbedder {
  return {
    dim,
    tokenCount: (s) => s.length,
    async embed(sequences) {
      calls.push(sequences.map((s) => s.length));
      if (sequences.length > limit) throw new FakeOom();
      return sequences.map((s) => Float32Array.from({ length: dim }, (_, k) => s.charCodeAt(k % s.length) + s.length * 1000));
    },
    dispose: () => undefined,
  };
}

const expectedVector = (s: string, dim: number) => Array.from({ length: dim }, (_, k) => Math.fround(s.charCodeAt(k % s.length) + s.length * 1000));

describe('embedSplittingOnOom', () => {
  const items = Array.from({ length: 13 }, (_, i) => `seq${i}-${'X'.repeat(i)}`);

  it('splits a batch that does not fit into halves until each part fits; order and vectors as one call', async () => {
    const calls: number[][] = [];
    const model = fakeEmbedder(4, 3, calls);
    let splits = 0;
    const vectors = await embedSplittingOnOom(items, (part) => model.embed(part), { onSplit: () => splits++, describe: String });
    expect(vectors.map((v) => Array.from(v))).toEqual(items.map((s) => expectedVector(s, 4)));
    // 13 → 7 + 6 → (4 + 3) + (3 + 3) → (2 + 2) + 3 + 3 + 3: four splits, every item embedded exactly once in the end
    expect(splits).toBe(4);
    const succeeded = calls.filter((c) => c.length <= 3);
    expect(succeeded.flat()).toEqual(items.map((s) => s.length));
  });

  it('does nothing when the batch fits', async () => {
    let splits = 0;
    const vectors = await embedSplittingOnOom(items, (part) => fakeEmbedder(2, 100).embed(part), { onSplit: () => splits++, describe: String });
    expect(vectors).toHaveLength(items.length);
    expect(splits).toBe(0);
  });

  it('a single sequence that does not fit alone fails with a clear message, not a crash loop', async () => {
    const model = fakeEmbedder(2, 0);
    let splits = 0;
    const run = embedSplittingOnOom(['MKV', 'LLA'], (part) => model.embed(part), { onSplit: () => splits++, describe: (s) => `protein ${s}` });
    await expect(run).rejects.toThrow(SequenceTooLargeError);
    await expect(embedSplittingOnOom(['MKV'], (part) => model.embed(part), { onSplit: () => undefined, describe: (s) => `protein ${s}` })).rejects.toThrow(
      /out of GPU memory embedding protein MKV on its own \(CUDA out of memory: asked for 2\.00 GiB.*\); it does not fit on this GPU even alone/,
    );
    expect(splits).toBe(1);
  });

  it('passes other errors through untouched, and recognises the OOM error by name only', async () => {
    const boom = new Error('kernel launch failed');
    await expect(embedSplittingOnOom(['A', 'B'], () => Promise.reject(boom), { onSplit: () => undefined, describe: String })).rejects.toBe(boom);
    expect(isOutOfMemory(new FakeOom())).toBe(true);
    expect(isOutOfMemory(Object.assign(new Error('x'), { name: 'CudaOutOfMemoryError' }))).toBe(true);
    expect(isOutOfMemory(new Error('CUDA out of memory'))).toBe(false);
    expect(isOutOfMemory(undefined)).toBe(false);
  });
});

describe('features model: out of GPU memory', () => {
  const frames: FrameItem[] = Array.from({ length: 21 }, (_, i) => ({ id: `r_chunk_${i}F1`, nucleotide: `ACG${'T'.repeat(i)}`, protein: `M${'K'.repeat(i)}` }));
  const compute = { backend: 'cuda' as const, precision: 'fp16' as const, cuda: { gpu: 'NVIDIA H100', arch: 'sm_90', driverCudaVersion: '13.0', nvrtcVersion: '13.0', cublasLtVersion: 130100 } };

  it('splits per model, keeps the frames in order, and counts every split', async () => {
    // DNABERT-S fits 8 frames at a time, ESM-2 only 5
    const model = featuresModel(fakeEmbedder(3, 8), fakeEmbedder(2, 5), compute);
    const vectors = await model.embed(frames);
    expect(vectors.map((v) => Array.from(v))).toEqual(frames.map((f) => [...expectedVector(f.nucleotide, 3), ...expectedVector(f.protein, 2)]));
    // 21 → 11 + 10 → (6 + 5) + (5 + 5): 3 splits for DNABERT-S; ESM-2 splits further: 6 → 3 + 3 (4 in all)
    expect(model.counters()).toEqual({ oomSplits: 3 + 4, refinedFrames: 0, fp32Recomputes: 0, esmTokens: 0, dnabertTokens: 0, peakGpuBytes: 0, gpuBusySamples: 0, gpuBusyPercentSum: 0 });
    expect(model.describe()).toEqual(compute);
  });

  it("reports the embedders' fp32 recomputes, token counts and the GPU memory peak next to the splits", async () => {
    const esm = { ...fakeEmbedder(2, 100), counters: () => ({ fp32Recomputes: 2, tokens: 40 }) };
    const dnabert = { ...fakeEmbedder(3, 100), counters: () => ({ tokens: 25 }) };
    const gpu = { peakGpuBytes: () => 123_456, gpuUtilization: () => ({ samples: 10, percentSum: 930 }) };
    const model = featuresModel(dnabert, esm, compute, gpu);
    await model.embed(frames.slice(0, 3));
    expect(model.counters()).toEqual({
      oomSplits: 0, refinedFrames: 0, fp32Recomputes: 2, esmTokens: 40, dnabertTokens: 25, peakGpuBytes: 123_456, gpuBusySamples: 10, gpuBusyPercentSum: 930,
    });
  });

  it('lets the worker run two batches at once on cuda, one elsewhere', () => {
    expect(featuresModel(fakeEmbedder(3, 8), fakeEmbedder(2, 5), compute).concurrentBatches).toBe(2);
    expect(featuresModel(fakeEmbedder(3, 8), fakeEmbedder(2, 5), { backend: 'cpu', precision: 'fp32' }).concurrentBatches).toBe(1);
  });

  it('a frame too large for the GPU alone fails the batch with its id', async () => {
    const model = featuresModel(fakeEmbedder(3, 100), fakeEmbedder(2, 0), compute);
    await expect(model.embed(frames.slice(0, 2))).rejects.toThrow(/out of GPU memory embedding frame r_chunk_0F1 \(3 nt, 1 aa\) on its own/);
  });
});
