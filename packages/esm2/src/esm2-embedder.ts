import { initBackend, type BackendName, type Embedder } from '@virnucpro/ops';
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
}

export interface Esm2Embedder extends Embedder {
  readonly model: Esm2Model;
  readonly backend: BackendName;
  /** Same as embedBatch: the runtime's WorkerModel name for it. */
  embed(sequences: string[]): Promise<Float32Array[]>;
}

/**
 * Loads an ESM-2 checkpoint onto a tfjs backend and returns an Embedder: per protein, the mean of
 * the last hidden state over residues (BOS/EOS excluded) — VirNucPro's protein feature. Each
 * embedBatch call is one packed forward pass. `context.backend` (runtime worker) is used when
 * options name none.
 */
export async function createEsm2Embedder(options: Esm2EmbedderOptions, context: { backend?: BackendName | 'auto' } = {}): Promise<Esm2Embedder> {
  const backend = await initBackend(options.backend ?? context.backend ?? 'auto');
  const checkpoint = await loadEsm2Checkpoint(options.model);
  const model = new Esm2Model(checkpoint.config, createEsm2Weights(checkpoint.config, checkpoint.tensors));
  const tokenize = (s: string) => tokenizeProtein(s, { unknown: options.unknown });
  const embedBatch = (sequences: string[]) => model.meanEmbeddings(sequences.map(tokenize));
  return {
    name: checkpoint.config.name,
    dim: checkpoint.config.embedDim,
    model,
    backend,
    tokenCount: (sequence: string) => tokenize(sequence).length,
    embedBatch,
    embed: embedBatch,
    dispose: () => model.dispose(),
  };
}

/** The entry a runtime worker imports: `(await import('@virnucpro/esm2')).embedderFactory(options, ctx)`. */
export const embedderFactory = createEsm2Embedder;
