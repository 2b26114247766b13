import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { type BackendName } from '../src/index.js';
import {
  batchArrangements, checkKernelInvariance, compareBytes, describeBatchDependence, findBatchDependence, invarianceSeeds, seededRandom,
} from '../src/testing/index.js';
import { startBackend } from './start-backend.js';

// The batch-invariance rule (docs/architecture.md), kernel by kernel: random shapes (odd head counts and sizes,
// hidden sizes off multiples of 8), random sequences of 1 to 130 tokens, alone vs in every arrangement: same bytes.
// On main at b76712f (attention padded to its group's longest segment), VnpPackedAttention failed this on wasm in every
// shape drawn (up to 6e-7).
describe.each(['cpu', 'wasm'] as BackendName[])('every Vnp kernel is batch-invariant on %s', (backend) => {
  it.each(invarianceSeeds([1, 2]))('random shapes and sequences, seed %i', async (seed) => {
    expect(await startBackend(backend as 'cpu' | 'wasm')).toBe(backend);
    const before = tf.memory().numTensors;
    const results = await checkKernelInvariance({ seed, shapes: backend === 'cpu' ? 1 : 3, maxHidden: backend === 'cpu' ? 160 : 256 });
    expect(results.length).toBeGreaterThanOrEqual(11);
    const failures = results.filter((r) => r.found.length)
      .map((r) => `${r.kernel} (${r.shape.heads} heads × ${r.shape.headSize}, ffn ${r.shape.ffn}):\n${describeBatchDependence(r.found, r.lengths)}`);
    expect(failures.join('\n')).toBe('');
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('the batch-invariance check itself', () => {
  it('arranges every item alone-vs-batched: full, reversed, shuffled, rotated, small batches, after the longest', () => {
    const lengths = [5, 1, 9, 3, 7];
    const arrangements = batchArrangements(lengths, seededRandom(3));
    for (const { name, batches } of arrangements) {
      const covered = batches.flat();
      if (name === 'after the longest') {
        expect(batches.every((b) => b.length === 2 && b[0] === 2)).toBe(true);
        expect([...new Set(covered)].sort()).toEqual([0, 1, 2, 3, 4]);
      } else {
        expect([...covered].sort(), name).toEqual([0, 1, 2, 3, 4]);
      }
    }
    expect(arrangements.find((a) => a.name === 'full batch reversed')?.batches).toEqual([[4, 3, 2, 1, 0]]);
    expect(arrangements.some((a) => a.name.startsWith('full batch rotated'))).toBe(true);
  });

  it('compares bit patterns: −0 ≠ +0, NaN = the same NaN', () => {
    expect(compareBytes(Float32Array.of(0, NaN, 1), Float32Array.of(-0, NaN, 1))).toEqual({ differing: 1, maxAbsDiff: 0 });
    expect(compareBytes(Float32Array.of(1, 2), Float32Array.of(1, 2.0000002)).differing).toBe(1);
  });

  it('catches an embedding whose numbers depend on the batch (a sum blocked by the row offset)', async () => {
    // Each item is a vector; the "embedding" sums it in blocks of 4 counted from the batch start, as a
    // kernel that follows the offset would.
    const rand = seededRandom(9);
    const items = Array.from({ length: 6 }, (_, i) => Float32Array.from({ length: 3 + 2 * i }, () => rand() * 1e3));
    const offsetBlocked = (batch: Float32Array[]) => {
      let offset = 0;
      return batch.map((x) => {
        let total = 0;
        let block = 0;
        x.forEach((v, j) => {
          block = Math.fround(block + v);
          if ((offset + j) % 4 === 3) (total = Math.fround(total + block)), (block = 0);
        });
        offset += x.length;
        return Float32Array.of(Math.fround(total + block));
      });
    };
    const found = await findBatchDependence(items, items.map((x) => x.length), offsetBlocked, rand);
    expect(found.length).toBeGreaterThan(0);
    const ownOrder = (batch: Float32Array[]) => batch.map((x) => Float32Array.of(x.reduce((a, v) => Math.fround(a + v), 0)));
    expect(await findBatchDependence(items, items.map((x) => x.length), ownOrder, rand)).toEqual([]);
  });
});
