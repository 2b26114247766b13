import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder, FloatAllocator } from '@virnucpro/ops';
import { afterAll, describe, expect, it } from 'vitest';
import { runEmbed } from '../src/commands/embed-run.js';
import { ReusedBatchArrays } from '../src/commands/reused-batch-arrays.js';

describe('ReusedBatchArrays', () => {
  it('hands an array out again only once every vector of it is released', () => {
    const arrays = new ReusedBatchArrays();
    const first = arrays.allocate(12);
    const views = [0, 1, 2].map((i) => first.subarray(i * 4, i * 4 + 4));
    arrays.hold(views);
    arrays.release(views[0]);
    arrays.release(views[2]);
    const second = arrays.allocate(12);
    expect(second.buffer).not.toBe(first.buffer); // views[1] is still unwritten
    arrays.release(views[1]);
    expect(arrays.allocate(12).buffer).toBe(first.buffer);
    expect(arrays.made).toBe(2);
  });

  it('picks the smallest free array that fits, and lets vectors of other arrays be', () => {
    const arrays = new ReusedBatchArrays();
    const small = arrays.allocate(10);
    const large = arrays.allocate(200_000);
    for (const array of [small, large]) {
      arrays.hold([array.subarray(0, 5)]);
      arrays.release(array.subarray(0, 5));
    }
    const foreign = new Float32Array(5);
    arrays.hold([foreign]);
    arrays.release(foreign);
    expect(arrays.allocate(100_000).buffer).toBe(large.buffer);
    expect(arrays.allocate(3).buffer).toBe(small.buffer);
    expect(arrays.allocate(3).buffer).not.toBe(foreign.buffer);
  });
});

// embed reads each batch's vectors into arrays it hands out again once written: the file must be the one fresh arrays
// give, with the packer's reordering holding a batch's vectors while later batches are read.
describe('runEmbed reading batches into reused arrays', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embed-reuses-arrays-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const compute = { backend: 'cpu', precision: 'fp32' } as const;
  const dim = 5;
  const encode = (s: string) => Int32Array.from([1, ...Array.from(s, (c) => c.charCodeAt(0)), 2]);
  const fill = (ids: Int32Array, out: Float32Array) => {
    out.set([ids.length, ids[1], ids[ids.length - 2], ids.reduce((a, b) => a + b, 0), ids[Math.floor(ids.length / 2)]]);
  };

  function model(useAllocate: boolean) {
    const arraysSeen = new Set<ArrayBufferLike>();
    let batches = 0;
    const embedIds = async (ids: Int32Array[], allocate?: FloatAllocator) => {
      batches++;
      await new Promise((resolve) => setTimeout(resolve, batches % 3)); // batches end in their own time
      const all = useAllocate && allocate ? allocate(ids.length * dim) : new Float32Array(ids.length * dim);
      arraysSeen.add(all.buffer);
      ids.forEach((t, i) => fill(t, all.subarray(i * dim, (i + 1) * dim)));
      return ids.map((_, i) => all.subarray(i * dim, (i + 1) * dim));
    };
    const embedder: Embedder = {
      name: 'filling',
      dim,
      tokenCount: (s) => encode(s).length,
      embed: async (sequences) => embedIds(sequences.map(encode)),
      tokenized: { encode, embed: embedIds },
      dispose() {},
    };
    return { embedder, arraysSeen, batches: () => batches };
  }

  it('writes the bytes fresh arrays give, with far fewer arrays than batches', async () => {
    let s = 7;
    const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const records = Array.from({ length: 4_000 }, () => Array.from({ length: 1 + Math.floor(rand() * 60) }, () => 'ACGT'[Math.floor(rand() * 4)]).join(''));
    const input = join(dir, 'dna.fa');
    writeFileSync(input, records.map((r, i) => `>r${i}\n${r}\n`).join(''));
    const fresh = model(false);
    const reused = model(true);
    await runEmbed({ embedder: fresh.embedder, compute, input, output: join(dir, 'fresh.safetensors'), tokenBudget: 512, window: 256, metadata: {} });
    const summary = await runEmbed({ embedder: reused.embedder, compute, input, output: join(dir, 'reused.safetensors'), tokenBudget: 512, window: 256, metadata: {} });
    expect(summary.sequences).toBe(records.length);
    expect(readFileSync(join(dir, 'reused.safetensors')).equals(readFileSync(join(dir, 'fresh.safetensors')))).toBe(true);
    expect(reused.batches()).toBeGreaterThan(100);
    expect(reused.arraysSeen.size).toBeLessThan(reused.batches() / 4);
  });
});
