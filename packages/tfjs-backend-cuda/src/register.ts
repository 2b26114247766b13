// Registers the 'cuda' backend and its kernels with tfjs (importing the package does this).
import { registerBackend, registerKernel } from '@tensorflow/tfjs-core';
import { CudaBackend, type CudaBackendOptions } from './backend-cuda.js';
import { registerCpuFallbacks } from './cpu-fallback.js';
import { binaryConfigs } from './kernels/binary.js';
import { castConfig } from './kernels/cast.js';
import { concatConfig } from './kernels/concat.js';
import { embeddingConfig } from './kernels/embedding.js';
import { gegluConfig } from './kernels/geglu.js';
import { halfToFloatConfig } from './kernels/half-to-float.js';
import { layerNormConfig } from './kernels/layer-norm.js';
import { linearConfig } from './kernels/linear.js';
import { packedAttentionConfig } from './kernels/packed-attention.js';
import { identityConfig, reshapeConfig } from './kernels/reshape.js';
import { rotaryQkvConfig } from './kernels/rotary-qkv.js';
import { segmentMeanConfig } from './kernels/segment-mean.js';
import { transposeConfig } from './kernels/transpose.js';

let options: CudaBackendOptions = {};

/** Options for the backend instance tfjs creates on `tf.setBackend('cuda')`; set them before that call. */
export function setCudaBackendOptions(next: CudaBackendOptions): void {
  options = { ...next };
}

for (const config of [
  reshapeConfig, identityConfig, castConfig, transposeConfig, concatConfig, ...binaryConfigs,
  linearConfig, layerNormConfig, gegluConfig, rotaryQkvConfig, packedAttentionConfig, segmentMeanConfig, embeddingConfig, halfToFloatConfig,
]) registerKernel(config);

// Priority 4: above webgpu/tensorflow (3), so a program that imports this package and sets no backend gets it.
registerBackend('cuda', () => {
  registerCpuFallbacks();
  return new CudaBackend(options);
}, 4);
