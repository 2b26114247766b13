import * as tf from '@tensorflow/tfjs-core';
import { initBackend, type BackendName, type Embedder } from '@virnucpro/ops';
import type { DnabertConfig } from './dnabert-config.js';
import { loadDnabert } from './load-dnabert.js';

export interface DnabertLoadOptions {
  /** Display name; default "DNABERT-S". */
  name?: string;
}

export interface DnabertEmbedderOptions extends DnabertLoadOptions {
  /** Model directory (config.json + weights + tokenizer.json) or a converted artifact directory. */
  model: string;
  /** tfjs backend; default "auto". */
  backend?: BackendName | 'auto';
}

export interface DnabertEmbedder extends Embedder {
  readonly config: DnabertConfig;
  readonly backend: BackendName;
}

/**
 * Loads a DNABERT-S model folder onto the current tfjs backend and returns its Embedder (VirNucPro's
 * nucleotide feature): one hidden_size vector per sequence, the mean of the last hidden state over all
 * tokens including [CLS] and [SEP]. Sequences are tokenized as given (no upper-casing, as VirNucPro
 * passes `str(record.seq)`); each embed call runs its sequences as one packed batch.
 */
export async function loadDnabertEmbedder(path: string, options: DnabertLoadOptions = {}): Promise<DnabertEmbedder> {
  const backend = tf.getBackend() as BackendName;
  const { model, tokenizer, config } = await loadDnabert(path);
  let tokens = 0;
  return {
    name: options.name ?? 'DNABERT-S',
    dim: config.hiddenSize,
    config,
    backend,
    tokenCount: (sequence) => tokenizer.tokenCount(sequence),
    embed: async (sequences) => {
      if (sequences.length === 0) return [];
      const tokenized = sequences.map((s) => tokenizer.encode(s));
      for (const t of tokenized) tokens += t.length;
      return model.meanEmbeddings(tokenized);
    },
    /** Tokens embedded so far (the tokenizer runs once per sequence: callers need not count again). */
    counters: () => ({ tokens }),
    dispose: () => model.dispose(),
  };
}

/**
 * Starts a tfjs backend (`options.backend`, else `context.backend` — what a @virnucpro/runtime worker was
 * asked for — else auto), then loadDnabertEmbedder: the way to use DNABERT-S on its own.
 */
export async function createDnabertEmbedder(
  options: DnabertEmbedderOptions,
  context: { backend?: BackendName | 'auto' } = {},
): Promise<DnabertEmbedder> {
  await initBackend(options.backend ?? context.backend ?? 'auto');
  return loadDnabertEmbedder(options.model, { name: options.name });
}

/** Entry used by worker processes (`@virnucpro/runtime` plugin spec). */
export const embedderFactory = createDnabertEmbedder;
