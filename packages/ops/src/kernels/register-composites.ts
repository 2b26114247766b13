import * as tf from '@tensorflow/tfjs-core';
import type { KernelFunc } from '@tensorflow/tfjs-core';
import { backendNames } from '../backend-name.js';
import {
  VnpEmbedding, VnpGeglu, VnpLayerNorm, VnpLinear, VnpPackedAttention, VnpRotaryQkv, VnpSegmentMean, vnpKernelNames,
} from '../kernel-names.js';
import { embeddingComposite } from './embedding-composite.js';
import { gegluComposite } from './geglu-composite.js';
import { layerNormComposite } from './layer-norm-composite.js';
import { linearComposite } from './linear-composite.js';
import { packedAttentionComposite } from './packed-attention-composite.js';
import { rotaryQkvComposite } from './rotary-qkv-composite.js';
import { segmentMeanComposite } from './segment-mean-composite.js';

type VnpKernelName = (typeof vnpKernelNames)[number];

/** The composite (tfjs-ops) implementation of every kernel in kernel-names.ts. */
const composites: Record<VnpKernelName, KernelFunc> = {
  [VnpLinear]: linearComposite,
  [VnpLayerNorm]: layerNormComposite,
  [VnpGeglu]: gegluComposite,
  [VnpRotaryQkv]: rotaryQkvComposite,
  [VnpPackedAttention]: packedAttentionComposite,
  [VnpSegmentMean]: segmentMeanComposite,
  [VnpEmbedding]: embeddingComposite,
};

/**
 * Registers the composite kernels (built from tfjs ops) for `backendName`, for the given kernel names
 * (default: all). A name that already has a kernel for that backend is left alone, so a backend's own
 * implementation registered first wins, and loading this module twice does not re-register.
 */
export function registerCompositeKernels(backendName: string, names: readonly string[] = vnpKernelNames): void {
  for (const kernelName of names) {
    const kernelFunc = composites[kernelName as VnpKernelName];
    if (!kernelFunc) throw new Error(`registerCompositeKernels: no composite kernel named '${kernelName}'`);
    if (!tf.getKernel(kernelName, backendName)) tf.registerKernel({ kernelName, backendName, kernelFunc });
  }
}

// Side effect of importing @virnucpro/ops: the composites serve every backend by name (@virnucpro/compute starts them).
// Registering for a backend that is not loaded (or never will be) only adds a registry entry.
// `cuda` has fused kernels of its own (@virnucpro/tfjs-backend-cuda), never the composites.
for (const backendName of backendNames) if (backendName !== 'cuda') registerCompositeKernels(backendName);
