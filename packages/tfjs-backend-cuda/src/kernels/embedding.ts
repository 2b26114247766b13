import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpEmbedding, type VnpEmbeddingAttrs } from '@virnucpro/ops';
import { blocks, type CudaBackend } from '../backend-cuda.js';
import { embeddingSource } from '../cuda/embedding.js';

export const embeddingConfig: KernelConfig = {
  kernelName: VnpEmbedding,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { ids, table, rowScale } = inputs as { ids: TensorInfo; table: TensorInfo; rowScale?: TensorInfo };
    const rows = ids.shape[0];
    const d = table.shape[1];
    const y = cuda.makeOutput([rows, d]);
    if (rows > 0) {
      cuda.launch(embeddingSource, 'embedding', [], blocks(rows * d), [256, 1, 1], 0, 'ppppiifi',
        cuda.ptr(ids), cuda.ptr(table), rowScale ? cuda.ptr(rowScale) : 0, cuda.ptr(y), rows, d, (attrs as VnpEmbeddingAttrs).scale, rowScale ? 1 : 0);
    }
    return y;
  }) as KernelFunc,
};
