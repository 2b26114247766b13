import { initBackend, type BackendName, type Embedder } from '@virnucpro/ops';
import { loadDnabert } from './load-dnabert.js';

export interface DnabertEmbedderOptions {
  /** Model directory (config.json + weights + tokenizer.json) or a converted artifact directory. */
  model: string;
  /** tfjs backend; default "auto". */
  backend?: BackendName | 'auto';
  /** Display name; default "DNABERT-S". */
  name?: string;
}

/**
 * The DNABERT-S nucleotide embedder of VirNucPro: one 768-d (hidden_size) vector per sequence,
 * the mean of the last hidden state over all tokens including [CLS] and [SEP]. Sequences are
 * tokenized as given (no upper-casing, as VirNucPro passes `str(record.seq)`); each embedBatch
 * call runs its sequences as one packed batch.
 */
export async function createDnabertEmbedder(
  options: DnabertEmbedderOptions,
  context: { backend?: BackendName | 'auto' } = {},
): Promise<Embedder & { readonly backend: BackendName; embed(sequences: string[]): Promise<Float32Array[]> }> {
  // `context.backend` is what a @virnucpro/runtime worker was asked to run on.
  const backend = await initBackend(options.backend ?? context.backend ?? 'auto');
  const { model, tokenizer, config } = await loadDnabert(options.model);
  const embedBatch = async (sequences: string[]) => {
    if (sequences.length === 0) return [];
    return model.meanEmbeddings(sequences.map((s) => tokenizer.encode(s)));
  };
  return {
    name: options.name ?? 'DNABERT-S',
    dim: config.hiddenSize,
    backend,
    tokenCount: (sequence) => tokenizer.tokenCount(sequence),
    embedBatch,
    // the @virnucpro/runtime worker-model name for the same call
    embed: embedBatch,
    dispose: () => model.dispose(),
  };
}

/** Entry used by worker processes (`@virnucpro/runtime` plugin spec). */
export const embedderFactory = createDnabertEmbedder;
