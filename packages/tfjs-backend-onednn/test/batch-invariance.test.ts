import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { checkKernelInvariance, describeBatchDependence, invarianceSeeds } from '@virnucpro/ops/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { ONEDNN_BACKEND, probeOnednn } from '../src/index.js';

// The batch-invariance rule (docs/architecture.md) on this backend's own kernels, with the same random cases the
// composites pass on cpu and wasm (@virnucpro/ops/testing): random shapes (odd head counts and sizes), sequences of
// 1 to 300 tokens (past two 128-row GEMM tiles), each alone vs in full batches, reversed, rotated, small batches.
// VIRNUCPRO_INVARIANCE_SEEDS=N adds N more seeds (a soak run).
const probe = probeOnednn();

describe.skipIf(!probe.ok)('every Vnp kernel is batch-invariant on onednn', () => {
  afterAll(async () => { await tf.setBackend('cpu'); });

  it.each(invarianceSeeds([1, 2]))('random shapes and sequences, seed %i', async (seed) => {
    tf.env().set('PROD', true);
    expect(await tf.setBackend(ONEDNN_BACKEND)).toBe(true);
    const results = await checkKernelInvariance({ seed, shapes: 2, maxLength: 300 });
    const failures = results.filter((r) => r.found.length)
      .map((r) => `${r.kernel} (${r.shape.heads} heads × ${r.shape.headSize}, ffn ${r.shape.ffn}):\n${describeBatchDependence(r.found, r.lengths)}`);
    expect(failures.join('\n')).toBe('');
  });
});
