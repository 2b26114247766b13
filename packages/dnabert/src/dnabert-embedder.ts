import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import type { BackendName, Embedder, FloatAllocator, Precision, TokenizedEmbedding } from '@virnucpro/ops';
import type { DnabertConfig } from './dnabert-config.js';
import { calibrateDnabert } from './calibrate-dnabert.js';
import { loadDnabert } from './load-dnabert.js';
import { BpePool } from './bpe-pool.js';

export interface DnabertLoadOptions {
  /** Display name; default "DNABERT-S". */
  name?: string;
  /** The precision the started backend computes in (@virnucpro/compute's startCompute says it; default fp32). */
  precision?: Precision;
}

export interface DnabertEmbedderOptions extends DnabertLoadOptions {
  /** Model directory (config.json + weights + tokenizer.json) or a converted artifact directory. */
  model: string;
}

export interface DnabertEmbedder extends Embedder {
  readonly config: DnabertConfig;
  readonly backend: BackendName;
  /** The precision it was loaded in (as given: the started backend's). */
  readonly precision: Precision;
  /** The BPE and the model apart: a sequence's ids (`BpeTokenizer.encode`), and embedding ids already made. */
  readonly tokenized: TokenizedEmbedding<string>;
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
  await calibrateDnabert(model, tokenizer);
  let tokens = 0;
  const embedIds = async (ids: Int32Array[], allocate?: FloatAllocator): Promise<Float32Array[]> => {
    if (ids.length === 0) return [];
    for (const t of ids) tokens += t.length;
    return model.meanEmbeddings(ids, allocate);
  };
  return {
    name: options.name ?? 'DNABERT-S',
    dim: config.hiddenSize,
    config,
    backend,
    precision: options.precision ?? 'fp32',
    tokenCount: (sequence) => tokenizer.tokenCount(sequence),
    embed: async (sequences) => embedIds(sequences.map((s) => tokenizer.encode(s))),
    // For a caller that counts tokens to pack first: the BPE then runs once per sequence, not twice.
    tokenized: {
      encode: (sequence) => tokenizer.encode(sequence),
      embed: embedIds,
      startEncoder: () => startDnabertEncoder(path),
    },
    /** Tokens embedded so far (callers need not count again). */
    counters: () => ({ tokens }),
    dispose: () => model.dispose(),
  };
}

/** The BPE of the model at `path` on worker threads: the same tokenizer.json in each thread, so the same ids as encode. */
export function startDnabertEncoder(path: string): Promise<BpePool> {
  return BpePool.start({ tokenizerPath: join(path, 'tokenizer.json') });
}

/**
 * loadDnabertEmbedder with its options in one object, on the backend already started (this package starts none:
 * @virnucpro/compute does). `context.compute.precision` — what a @virnucpro/runtime worker started by
 * @virnucpro/compute's onStartedCompute computes in — stands in for `options.precision`.
 */
export async function createDnabertEmbedder(options: DnabertEmbedderOptions, context: { compute?: { precision?: Precision } } = {}): Promise<DnabertEmbedder> {
  const precision = options.precision ?? context.compute?.precision;
  return loadDnabertEmbedder(options.model, { ...(options.name ? { name: options.name } : {}), ...(precision ? { precision } : {}) });
}

/** Entry used by worker processes (`@virnucpro/runtime` plugin spec). */
export const embedderFactory = createDnabertEmbedder;
