import * as tf from '@tensorflow/tfjs-core';

/** A backend that may compute a model's blocks at different precisions by their depth (`cuda` in fp8 does). */
interface BlockAwareBackend {
  withModelBlock<T>(block: number, blocks: number, fn: () => T): T;
}

/**
 * Runs `fn`, the forward pass of block `block` (0-based) of a model's `blocks` stacked blocks. The result is the
 * same on every backend and precision that computes all blocks alike; one that rounds its operands may keep the
 * first blocks at a higher precision, since rounding error that enters early passes through every later block (on
 * `cuda` in fp8 the first ⌈blocks/9⌉ run in bf16: ESM-2 3B's 1 − cosine to fp32 falls 4× for 6–8 % of its fp8
 * speed, docs/benchmarks/cuda.md). Covers what `fn` does synchronously, as a forward pass queues its kernels.
 */
export function inModelBlock<T>(block: number, blocks: number, fn: () => T): T {
  if (!Number.isInteger(block) || !Number.isInteger(blocks) || block < 0 || block >= blocks) {
    throw new Error(`inModelBlock: block ${block} of ${blocks} (expected integers, 0 ≤ block < blocks)`);
  }
  const backend = tf.backend() as Partial<BlockAwareBackend>;
  return typeof backend.withModelBlock === 'function' ? backend.withModelBlock(block, blocks, fn) : fn();
}
