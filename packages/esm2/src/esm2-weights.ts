import * as tf from '@tensorflow/tfjs-core';
import { halfToFloat, uploadBuffers } from '@virnucpro/ops';
import { toFloat32, type TensorData } from '@virnucpro/weights';
import { canonicalLayout, type Esm2Layout } from './checkpoint-layout.js';
import type { CanonicalName } from './checkpoint-names.js';
import { requiredEsm2Names } from './checkpoint-names.js';
import { headDim, type Esm2Config } from './esm2-config.js';
import { esmInvFreq } from './rotary.js';

/** One transformer layer, laid out for the forward pass (Linear weights pre-transposed to [in, out]). */
export interface Esm2LayerWeights {
  attnNormGamma: tf.Tensor1D;
  attnNormBeta: tf.Tensor1D;
  /** [d, 3d]: q | k | v, with the q columns (and bias) pre-multiplied by head_dim^-0.5. */
  qkvWT: tf.Tensor2D;
  qkvB: tf.Tensor1D;
  outWT: tf.Tensor2D;
  outB: tf.Tensor1D;
  ffnNormGamma: tf.Tensor1D;
  ffnNormBeta: tf.Tensor1D;
  fc1WT: tf.Tensor2D;
  fc1B: tf.Tensor1D;
  fc2WT: tf.Tensor2D;
  fc2B: tf.Tensor1D;
  invFreq: Float32Array;
}

export interface Esm2Weights {
  /** [vocab, d] */
  embedTokens: tf.Tensor2D;
  layers: Esm2LayerWeights[];
  finalNormGamma: tf.Tensor1D;
  finalNormBeta: tf.Tensor1D;
}

/**
 * Checks that a canonical state dict fits the config (names and shapes) before any GPU upload. A missing tensor
 * is named as the checkpoint's own layout names it.
 */
export function checkEsm2StateDict(config: Esm2Config, tensors: ReadonlyMap<CanonicalName, Pick<TensorData, 'shape'>>, source: string, layout: Esm2Layout = canonicalLayout): void {
  const required = requiredEsm2Names(config.numLayers);
  const missing = required.filter((n) => !tensors.has(n));
  if (missing.length) {
    throw new Error(
      `${source}: recognised the ${layout.description} layout of ESM-2, but ${layout.checkpointName(missing[0])} is missing ` +
        `(${missing.length} of the ${required.length} tensors a ${config.numLayers}-layer model needs)`,
    );
  }
  const d = config.embedDim;
  const expectShape = (name: string, shape: number[]) => {
    const got = tensors.get(name)!.shape;
    if (got.length !== shape.length || got.some((v, i) => v !== shape[i])) {
      throw new Error(`${source}: ${name} has shape [${got}], expected [${shape}] for ${JSON.stringify({ layers: config.numLayers, dim: d, ffn: config.ffnDim, vocab: config.vocabSize })}`);
    }
  };
  expectShape('embed_tokens.weight', [config.vocabSize, d]);
  for (let i = 0; i < config.numLayers; i++) {
    for (const p of ['q_proj', 'k_proj', 'v_proj', 'out_proj']) expectShape(`layers.${i}.self_attn.${p}.weight`, [d, d]);
    expectShape(`layers.${i}.fc1.weight`, [config.ffnDim, d]);
    expectShape(`layers.${i}.fc2.weight`, [d, config.ffnDim]);
    const inv = tensors.get(`layers.${i}.self_attn.rot_emb.inv_freq`) ?? tensors.get('rot_emb.inv_freq');
    if (inv && inv.shape[0] !== headDim(config) / 2) {
      throw new Error(`${source}: rotary inv_freq has ${inv.shape[0]} values, so head size ${2 * inv.shape[0]}, but config says ${headDim(config)} (${config.numHeads} heads)`);
    }
  }
}

export interface CreateEsm2WeightsOptions {
  /**
   * Remove each entry from `tensors` (then a Map) once it is uploaded, so that host memory holds a tensor once,
   * not the checkpoint and the transposed copies together: ESM-2 3B in fp32 peaked at 22.2 GB without, on a CPU
   * backend (11.4 GB of weights).
   */
  consume?: boolean;
}

/** Uploads a canonical state dict as resident tfjs tensors, transposing Linear weights once. */
export function createEsm2Weights(config: Esm2Config, tensors: ReadonlyMap<CanonicalName, TensorData>, options: CreateEsm2WeightsOptions = {}): Esm2Weights {
  const take = (name: CanonicalName): TensorData => {
    const t = tensors.get(name)!;
    if (options.consume) (tensors as Map<CanonicalName, TensorData>).delete(name);
    return t;
  };
  const layers: Esm2LayerWeights[] = [];
  for (let i = 0; i < config.numLayers; i++) {
    const inv = tensors.get(`layers.${i}.self_attn.rot_emb.inv_freq`) ?? tensors.get('rot_emb.inv_freq');
    layers.push(createLayerWeights(config, i, take, inv));
  }
  return { ...createOuterWeights(take), layers };
}

/** Canonical tensors read from a checkpoint on demand (openEsm2Checkpoint). */
export interface Esm2TensorReader {
  has(name: CanonicalName): boolean;
  /**
   * The named tensors' data, read now (each read once: its host memory is the caller's to drop), into
   * `allocate`'s buffers where the reader reads from a file (@virnucpro/ops uploadBuffers).
   */
  read(names: readonly CanonicalName[], allocate?: (byteLength: number) => Uint8Array): Promise<Map<CanonicalName, TensorData>>;
}

/**
 * createEsm2Weights from a checkpoint read as the upload goes: layer i is uploaded while layers i+1..i+`ahead` are
 * read, so that the file's reads (libuv's threads) and the copies to the device (this thread) overlap instead of
 * following each other, and host memory holds a few layers rather than the whole checkpoint (ESM-2 3B: ~1 GB
 * instead of 11.4 GB in each GPU's worker). The same tensors as createEsm2Weights, made in the same order.
 */
export async function uploadEsm2Weights(config: Esm2Config, reader: Esm2TensorReader, ahead = 2): Promise<Esm2Weights> {
  const shared = reader.has('rot_emb.inv_freq') ? (await reader.read(['rot_emb.inv_freq'])).get('rot_emb.inv_freq') : undefined;
  const reads = new Map<number, Promise<Map<CanonicalName, TensorData>>>();
  // The layers' tensors are read into the backend's upload buffers (cuda: page-locked, each tensor's upload a DMA)
  // and given back once the layer's tensors are made.
  const buffers = uploadBuffers();
  const startReading = (i: number) => {
    if (i >= config.numLayers || reads.has(i)) return;
    const names = layerTensorNames(i).filter((n) => reader.has(n));
    const read = reader.read(names, buffers.allocate);
    read.catch(() => undefined); // awaited in its turn; a failure then is the one reported
    reads.set(i, read);
  };
  const layers: Esm2LayerWeights[] = [];
  try {
    for (let i = 0; i < config.numLayers; i++) {
      for (let next = i; next <= i + ahead; next++) startReading(next);
      const tensors = await reads.get(i)!;
      reads.delete(i);
      layers.push(createLayerWeights(config, i, (name) => tensors.get(name)!, tensors.get(`layers.${i}.self_attn.rot_emb.inv_freq`) ?? shared));
      for (const t of tensors.values()) buffers.release(t.data);
    }
    const outer = await reader.read(['embed_tokens.weight', 'emb_layer_norm_after.weight', 'emb_layer_norm_after.bias']);
    return { ...createOuterWeights((name) => outer.get(name)!), layers };
  } catch (error) {
    for (const layer of layers) tf.dispose(Object.values(layer).filter((v): v is tf.Tensor => v instanceof tf.Tensor));
    throw error;
  } finally {
    buffers.close();
  }
}

/** Layer `i`'s canonical tensor names (its own rotary inv_freq, which a checkpoint may not have, last). */
function layerTensorNames(i: number): CanonicalName[] {
  const p = `layers.${i}.`;
  const parts = ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj', 'self_attn.out_proj', 'self_attn_layer_norm', 'fc1', 'fc2', 'final_layer_norm'];
  return [...parts.flatMap((part) => [`${p}${part}.weight`, `${p}${part}.bias`]), `${p}self_attn.rot_emb.inv_freq`];
}

/** A tensor of the checkpoint on the backend: fp16/bf16 ones as their own bits (halfToFloat: widened on the GPU where it can). */
function uploaded(t: TensorData): tf.Tensor {
  if (t.dtype === 'float16' || t.dtype === 'bfloat16') return halfToFloat(t.data as Uint16Array, t.shape, t.dtype);
  return tf.tensor(toFloat32(t), t.shape, 'float32');
}

/** Layer `i` laid out for the forward pass, from its tensors (`take` hands each over once). */
function createLayerWeights(config: Esm2Config, i: number, take: (name: CanonicalName) => TensorData, inv: TensorData | undefined): Esm2LayerWeights {
  const vector = (name: string) => uploaded(take(name)) as tf.Tensor1D;
  const transposed = (name: string): tf.Tensor2D => tf.tidy(() => tf.transpose(uploaded(take(name)) as tf.Tensor2D));
  const h = headDim(config);
  const qScale = h ** -0.5;
  const p = `layers.${i}.`;
  const qkvWT = tf.tidy(() => tf.concat([
    tf.mul(transposed(`${p}self_attn.q_proj.weight`), qScale),
    transposed(`${p}self_attn.k_proj.weight`),
    transposed(`${p}self_attn.v_proj.weight`),
  ], 1)) as tf.Tensor2D;
  const qkvB = tf.tidy(() => tf.concat([
    tf.mul(vector(`${p}self_attn.q_proj.bias`), qScale),
    vector(`${p}self_attn.k_proj.bias`),
    vector(`${p}self_attn.v_proj.bias`),
  ])) as tf.Tensor1D;
  return {
    attnNormGamma: vector(`${p}self_attn_layer_norm.weight`),
    attnNormBeta: vector(`${p}self_attn_layer_norm.bias`),
    qkvWT,
    qkvB,
    outWT: transposed(`${p}self_attn.out_proj.weight`),
    outB: vector(`${p}self_attn.out_proj.bias`),
    ffnNormGamma: vector(`${p}final_layer_norm.weight`),
    ffnNormBeta: vector(`${p}final_layer_norm.bias`),
    fc1WT: transposed(`${p}fc1.weight`),
    fc1B: vector(`${p}fc1.bias`),
    fc2WT: transposed(`${p}fc2.weight`),
    fc2B: vector(`${p}fc2.bias`),
    invFreq: inv ? Float32Array.from(toFloat32(inv)) : esmInvFreq(h),
  };
}

/** The token embedding and the final layer norm (made after the layers, as before the upload was streamed). */
function createOuterWeights(take: (name: CanonicalName) => TensorData): Omit<Esm2Weights, 'layers'> {
  return {
    embedTokens: uploaded(take('embed_tokens.weight')) as tf.Tensor2D,
    finalNormGamma: uploaded(take('emb_layer_norm_after.weight')) as tf.Tensor1D,
    finalNormBeta: uploaded(take('emb_layer_norm_after.bias')) as tf.Tensor1D,
  };
}

export function disposeEsm2Weights(weights: Esm2Weights): void {
  tf.dispose([weights.embedTokens, weights.finalNormGamma, weights.finalNormBeta]);
  for (const layer of weights.layers) {
    tf.dispose(Object.values(layer).filter((v): v is tf.Tensor => v instanceof tf.Tensor));
  }
}
