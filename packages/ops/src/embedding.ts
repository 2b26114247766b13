import * as tf from '@tensorflow/tfjs-core';
import { VnpEmbedding, type VnpEmbeddingAttrs, type VnpEmbeddingInputs } from './kernel-names.js';
import { expectDtype, expectRank, expectShape, runVnpKernel } from './op-checks.js';

/**
 * Embedding lookup with a row scale, kernel `VnpEmbedding`: out[n] = table[ids[n]] · s, where s is
 * `scale` when it is a number, or `scale[n]` when it is a float32 [N] tensor of per-row factors
 * (ESM-2's token-dropout rescale). ids int32 [N] (each in [0, V)), table [V, d] → [N, d].
 */
export function embedding(ids: tf.Tensor1D, table: tf.Tensor2D, scale: number | tf.Tensor1D = 1): tf.Tensor2D {
  expectRank('embedding', 'ids', ids, 1);
  expectDtype('embedding', 'ids', ids, 'int32');
  expectRank('embedding', 'table', table, 2);
  const inputs: VnpEmbeddingInputs = { ids, table };
  const attrs: VnpEmbeddingAttrs = { scale: 1 };
  if (typeof scale === 'number') {
    if (!Number.isFinite(scale)) throw new Error(`embedding: scale must be a finite number, got ${scale}`);
    attrs.scale = scale;
  } else {
    expectShape('embedding', 'rowScale', scale, [ids.shape[0]]);
    expectDtype('embedding', 'rowScale', scale, 'float32');
    inputs.rowScale = scale;
  }
  return runVnpKernel(VnpEmbedding, inputs, attrs);
}
