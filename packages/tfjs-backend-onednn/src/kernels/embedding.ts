import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpEmbedding, type VnpEmbeddingAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/**
 * Embedding lookup, out[n] = table[ids[n]]·s, as row copies into a shared buffer (tfjs' gather, which the
 * composite uses, computes an index per element: ~5 % of DNABERT-S's calling thread). The same bytes as the
 * composite: a copy, then the float32 product with the per-row factor or the scalar (rounded to float32 first, as
 * tfjs does); an id outside the table is an error, as in tfjs' gather.
 */
export const embeddingConfig: KernelConfig = {
  kernelName: VnpEmbedding,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { ids, table, rowScale } = inputs as { ids: TensorInfo; table: TensorInfo; rowScale?: TensorInfo };
    const [V, d] = table.shape;
    const rows = ids.shape[0];
    const index = cpu.ints(ids), values = cpu.floats(table);
    const out = cpu.sharedFloats(rows * d);
    for (let r = 0; r < rows; r++) {
      const id = index[r];
      if (!(id >= 0 && id < V)) throw new Error(`embedding: id ${id} is not in [0, ${V - 1}]`);
      out.set(values.subarray(id * d, (id + 1) * d), r * d);
    }
    const scale = Math.fround((attrs as VnpEmbeddingAttrs).scale);
    const factors = rowScale ? cpu.floats(rowScale) : undefined;
    if (factors || scale !== 1) {
      for (let r = 0; r < rows; r++) {
        const s = factors ? factors[r] : scale;
        for (let i = r * d; i < (r + 1) * d; i++) out[i] *= s;
      }
    }
    return cpu.makeTensorInfo([rows, d], 'float32', out);
  }) as KernelFunc,
};
