import * as tf from '@tensorflow/tfjs-core';
import { inFullPrecision, retryNonFiniteInFullPrecision, type BackendName, type Embedder, type Precision } from '@virnucpro/ops';
import type { Esm2Config } from './esm2-config.js';
import { createEsm2Weights, uploadEsm2Weights, type Esm2Weights } from './esm2-weights.js';
import { calibrateEsm2 } from './calibrate-esm2.js';
import { Esm2Model } from './esm2-model.js';
import { loadEsm2Checkpoint, openEsm2Checkpoint } from './load-checkpoint.js';
import { tokenizeProtein, type UnknownPolicy } from './tokenizer.js';

export interface Esm2LoadOptions {
  /** Characters outside the ESM alphabet: 'error' (fair-esm, default) or 'unk' (Hugging Face). */
  unknown?: UnknownPolicy;
  /**
   * The precision the started backend computes in (@virnucpro/compute's startCompute says it; default fp32). In
   * anything less a protein whose mean holds a NaN/Inf is recomputed in fp32 (that protein only).
   */
  precision?: Precision;
}

export interface Esm2EmbedderOptions extends Esm2LoadOptions {
  /** Checkpoint folder or file (see loadEsm2Checkpoint). */
  model: string;
}

export interface Esm2Embedder extends Embedder {
  readonly model: Esm2Model;
  readonly config: Esm2Config;
  readonly backend: BackendName;
  /** Proteins recomputed in fp32 because their fp16/bf16/fp8 mean held a NaN or ±Inf; tokens embedded so far. */
  counters(): { fp32Recomputes: number; tokens: number };
}

/**
 * Loads an ESM-2 checkpoint onto the current tfjs backend and returns its Embedder: per protein, the mean
 * of the last hidden state over residues (BOS/EOS excluded) — VirNucPro's protein feature. Each embed
 * call is one packed forward pass.
 */
export async function loadEsm2Embedder(path: string, options: Esm2LoadOptions = {}): Promise<Esm2Embedder> {
  const { precision } = options;
  const backend = tf.getBackend() as BackendName;
  // Read as it is uploaded (a layer's copies to the device while the next layers are read from the file).
  const checkpoint = await openEsm2Checkpoint(path);
  let weights: Esm2Weights;
  try {
    weights = await uploadEsm2Weights(checkpoint.config, checkpoint);
  } finally {
    await checkpoint.close();
  }
  const model = new Esm2Model(checkpoint.config, weights);
  await calibrateEsm2(model);
  const tokenize = (s: string) => tokenizeProtein(s, { unknown: options.unknown });
  const reduced = precision !== undefined && precision !== 'fp32';
  let fullPrecisionModel: Esm2Model | undefined;
  // fp16 overflow is rare (layer norms bound the activations) but possible: such a protein is recomputed by an
  // fp32 copy of the model, loaded from the checkpoint again on first need (host memory is not held meanwhile).
  const retry = retryNonFiniteInFullPrecision(
    (tokens: Int32Array[]) => model.meanEmbeddings(tokens),
    async () => {
      const again = await loadEsm2Checkpoint(path);
      const full = inFullPrecision(() => new Esm2Model(again.config, createEsm2Weights(again.config, again.tensors, { consume: true })));
      fullPrecisionModel = full;
      return (tokens) => full.meanEmbeddings(tokens);
    },
  );
  const embedTokens = reduced ? retry.embed : (tokens: Int32Array[]) => model.meanEmbeddings(tokens);
  let tokenTotal = 0;
  const embed = (sequences: string[]) => {
    const tokenized = sequences.map(tokenize);
    for (const t of tokenized) tokenTotal += t.length;
    return embedTokens(tokenized);
  };
  return {
    name: checkpoint.config.name,
    dim: checkpoint.config.embedDim,
    model,
    config: checkpoint.config,
    backend,
    tokenCount: (sequence: string) => tokenize(sequence).length,
    embed,
    counters: () => ({ fp32Recomputes: retry.recomputed(), tokens: tokenTotal }),
    dispose: () => {
      model.dispose();
      fullPrecisionModel?.dispose();
    },
  };
}

/**
 * loadEsm2Embedder with its options in one object, on the backend already started (this package starts none:
 * @virnucpro/compute does). `context.compute.precision` — what a @virnucpro/runtime worker started by
 * @virnucpro/compute's onStartedCompute computes in — stands in for `options.precision`.
 */
export async function createEsm2Embedder(options: Esm2EmbedderOptions, context: { compute?: { precision?: Precision } } = {}): Promise<Esm2Embedder> {
  const precision = options.precision ?? context.compute?.precision;
  return loadEsm2Embedder(options.model, { unknown: options.unknown, ...(precision ? { precision } : {}) });
}

/** The entry a runtime worker imports: `(await import('@virnucpro/esm2')).embedderFactory(options, ctx)`. */
export const embedderFactory = createEsm2Embedder;
