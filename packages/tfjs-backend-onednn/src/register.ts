// Registers the 'onednn' backend and its kernels with tfjs (importing the package does this).
import { getKernelsForBackend, registerBackend, registerKernel, unregisterKernel, getKernel } from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { OnednnBackend, type OnednnBackendOptions } from './backend-onednn.js';
import { embeddingConfig } from './kernels/embedding.js';
import { gegluConfig } from './kernels/geglu.js';
import { layerNormConfig } from './kernels/layer-norm.js';
import { linearConfig } from './kernels/linear.js';
import { packedAttentionConfig } from './kernels/packed-attention.js';
import { rotaryQkvConfig } from './kernels/rotary-qkv.js';
import { segmentMeanConfig } from './kernels/segment-mean.js';
import { transposeConfig } from './kernels/transpose.js';

export const ONEDNN_BACKEND = 'onednn';

let options: OnednnBackendOptions = {};

/** Options for the backend instance tfjs creates on `tf.setBackend('onednn')`; set them before that call. */
export function setOnednnBackendOptions(next: OnednnBackendOptions): void {
  options = { ...next };
}

// Every kernel of tfjs' cpu backend serves this one too (the backend is a cpu backend with faster hot kernels).
for (const config of getKernelsForBackend('cpu')) {
  if (!getKernel(config.kernelName, ONEDNN_BACKEND)) registerKernel({ ...config, backendName: ONEDNN_BACKEND });
}
// Ours replace whatever was registered under the name before (the composites of @virnucpro/ops).
for (const config of [linearConfig, layerNormConfig, gegluConfig, rotaryQkvConfig, packedAttentionConfig, embeddingConfig, segmentMeanConfig, transposeConfig]) {
  if (getKernel(config.kernelName, ONEDNN_BACKEND)) unregisterKernel(config.kernelName, ONEDNN_BACKEND);
  registerKernel(config);
}

// Priority 2, as wasm's: a program that imports this package and sets no backend gets a GPU backend first.
registerBackend(ONEDNN_BACKEND, () => new OnednnBackend(options), 2);
