import * as tf from '@tensorflow/tfjs-core';
import { inFullPrecision, initBackend, retryNonFiniteInFullPrecision, type BackendName, type Embedder, type Precision } from '@virnucpro/ops';
import type { Esm2Config } from './esm2-config.js';
import { createEsm2Weights } from './esm2-weights.js';
import { Esm2Model } from './esm2-model.js';
import { loadEsm2Checkpoint } from './load-checkpoint.js';
import { tokenizeProtein, type UnknownPolicy } from './tokenizer.js';

export interface Esm2LoadOptions {
  /** Characters outside the ESM alphabet: 'error' (fair-esm, default) or 'unk' (Hugging Face). */
  unknown?: UnknownPolicy;
  /** Precision on cuda (default fp16). In fp16/bf16 a batch with a NaN/Inf mean is recomputed in fp32. */
  precision?: Precision;
}

export interface Esm2EmbedderOptions extends Esm2LoadOptions {
  /** Checkpoint folder or file (see loadEsm2Checkpoint). */
  model: string;
  backend?: BackendName | 'auto';
}

export interface Esm2Embedder extends Embedder {
  readonly model: Esm2Model;
  readonly config: Esm2Config;
  readonly backend: BackendName;
  /** Batches recomputed in fp32 because their fp16/bf16 means held a NaN or ±Inf; tokens embedded so far. */
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
  const checkpoint = await loadEsm2Checkpoint(path);
  const model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors, { consume: true }));
  const tokenize = (s: string) => tokenizeProtein(s, { unknown: options.unknown });
  const reduced = backend === 'cuda' && precision !== 'fp32';
  let fullPrecisionModel: Esm2Model | undefined;
  // fp16 overflow is rare (layer norms bound the activations) but possible: such a batch is recomputed by an
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
 * Starts a tfjs backend (`options.backend`, else `context.backend` — what a @virnucpro/runtime worker was
 * asked for — else auto), then loadEsm2Embedder: the way to use ESM-2 on its own.
 */
export async function createEsm2Embedder(
  options: Esm2EmbedderOptions,
  context: { backend?: BackendName | 'auto'; precision?: Precision } = {},
): Promise<Esm2Embedder> {
  const precision = options.precision ?? context.precision;
  await initBackend(options.backend ?? context.backend ?? 'auto', precision ? { precision } : {});
  return loadEsm2Embedder(options.model, { unknown: options.unknown, precision });
}

/** The entry a runtime worker imports: `(await import('@virnucpro/esm2')).embedderFactory(options, ctx)`. */
export const embedderFactory = createEsm2Embedder;
