import { inFullPrecision, initBackend, retryNonFiniteInFullPrecision, type BackendName, type Embedder, type Precision } from '@virnucpro/ops';
import { createEsm2Weights } from './esm2-weights.js';
import { Esm2Model } from './esm2-model.js';
import { loadEsm2Checkpoint } from './load-checkpoint.js';
import { tokenizeProtein, type UnknownPolicy } from './tokenizer.js';

export interface Esm2EmbedderOptions {
  /** Checkpoint folder or file (see loadEsm2Checkpoint). */
  model: string;
  backend?: BackendName | 'auto';
  /** Characters outside the ESM alphabet: 'error' (fair-esm, default) or 'unk' (Hugging Face). */
  unknown?: UnknownPolicy;
  /** Precision on cuda (default fp16). In fp16/bf16 a batch with a NaN/Inf mean is recomputed in fp32. */
  precision?: Precision;
}

export interface Esm2Embedder extends Embedder {
  readonly model: Esm2Model;
  readonly backend: BackendName;
  /** Same as embedBatch: the runtime's WorkerModel name for it. */
  embed(sequences: string[]): Promise<Float32Array[]>;
  /** Batches recomputed in fp32 because their fp16/bf16 means held a NaN or ±Inf. */
  counters(): { fp32Recomputes: number };
}

/**
 * Loads an ESM-2 checkpoint onto a tfjs backend and returns an Embedder: per protein, the mean of
 * the last hidden state over residues (BOS/EOS excluded) — VirNucPro's protein feature. Each
 * embedBatch call is one packed forward pass. `context.backend` (runtime worker) is used when
 * options name none.
 */
export async function createEsm2Embedder(
  options: Esm2EmbedderOptions,
  context: { backend?: BackendName | 'auto'; precision?: Precision } = {},
): Promise<Esm2Embedder> {
  const precision = options.precision ?? context.precision;
  const backend = await initBackend(options.backend ?? context.backend ?? 'auto', precision ? { precision } : {});
  const checkpoint = await loadEsm2Checkpoint(options.model);
  const model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors));
  const tokenize = (s: string) => tokenizeProtein(s, { unknown: options.unknown });
  const reduced = backend === 'cuda' && precision !== 'fp32';
  let fullPrecisionModel: Esm2Model | undefined;
  // fp16 overflow is rare (layer norms bound the activations) but possible: such a batch is recomputed by an
  // fp32 copy of the model, loaded from the checkpoint again on first need (host memory is not held meanwhile).
  const retry = retryNonFiniteInFullPrecision(
    (tokens: Int32Array[]) => model.meanEmbeddings(tokens),
    async () => {
      const again = await loadEsm2Checkpoint(options.model);
      const full = inFullPrecision(() => new Esm2Model(again.config, createEsm2Weights(again.config, again.tensors)));
      fullPrecisionModel = full;
      return (tokens) => full.meanEmbeddings(tokens);
    },
  );
  const embedTokens = reduced ? retry.embed : (tokens: Int32Array[]) => model.meanEmbeddings(tokens);
  const embedBatch = (sequences: string[]) => embedTokens(sequences.map(tokenize));
  return {
    name: checkpoint.config.name,
    dim: checkpoint.config.embedDim,
    model,
    backend,
    tokenCount: (sequence: string) => tokenize(sequence).length,
    embedBatch,
    embed: embedBatch,
    counters: () => ({ fp32Recomputes: retry.recomputed() }),
    dispose: () => {
      model.dispose();
      fullPrecisionModel?.dispose();
    },
  };
}

/** The entry a runtime worker imports: `(await import('@virnucpro/esm2')).embedderFactory(options, ctx)`. */
export const embedderFactory = createEsm2Embedder;
