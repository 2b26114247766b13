export { type BackendName, backendNames, isBackendName, type Precision } from './backend-name.js';
// The kernel seam: every hot op runs ENGINE.runKernel(name, inputs, attrs) on one of these names.
export {
  VnpLinear,
  type VnpLinearInputs,
  type VnpLinearAttrs,
  VnpLayerNorm,
  type VnpLayerNormInputs,
  type VnpLayerNormAttrs,
  VnpGeglu,
  type VnpGegluInputs,
  VnpRotaryQkv,
  type VnpRotaryQkvInputs,
  type VnpRotaryQkvAttrs,
  VnpPackedAttention,
  type VnpPackedAttentionInputs,
  type VnpPackedAttentionAttrs,
  VnpSegmentMean,
  type VnpSegmentMeanInputs,
  type VnpSegmentMeanAttrs,
  VnpEmbedding,
  type VnpEmbeddingInputs,
  type VnpEmbeddingAttrs,
  vnpKernelNames,
  VnpHalfToFloat,
  type VnpHalfToFloatInputs,
  type VnpHalfToFloatAttrs,
} from './kernel-names.js';
// Imported for its side effect: the composite kernels for cpu, wasm, webgpu and tensorflow.
export { registerCompositeKernels } from './kernels/register-composites.js';
export { queryBlockRows } from './query-block-rows.js';
export { traceKernels } from './trace-kernels.js';
export { inFullPrecision } from './full-precision.js';
export { calibrateQuantisation } from './quantisation-calibration.js';
export { uploadBuffers, type UploadBuffers } from './upload-buffers.js';
export { readFloats, type FloatAllocator } from './read-floats.js';
export { inModelBlock } from './model-block.js';
export { inRefinementPrecision } from './refinement-precision.js';
export { retryNonFiniteInFullPrecision, type BatchEmbed, type NonFiniteRetry } from './non-finite-retry.js';
export { linear, type LinearOptions } from './linear.js';
export { layerNorm, type LayerNormOptions } from './layer-norm.js';
export { geglu } from './geglu.js';
export { halfToFloat } from './half-to-float.js';
export { rotaryQkv } from './rotary-qkv.js';
export { embedding } from './embedding.js';
export { gelu } from './gelu.js';
export { PackedLayout, packedLayout, type AttentionGroup } from './packed-layout.js';
export { packedAttention, type PackedAttentionOptions } from './packed-attention.js';
export { segmentMean } from './segment-mean.js';
export type { Embedder, TokenizedEmbedding, ChunkEncoder } from './embedder.js';
export { ChunkRefusal } from './chunk-refusal.js';
export type {
  ConvertedModel,
  EmbedderLoadOptions,
  EmbedderSetting,
  EmbeddingModelDescriptor,
  LoadedEmbedder,
} from './embedding-model.js';
