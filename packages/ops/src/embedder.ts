import type { FloatAllocator } from './read-floats.js';

/**
 * The one contract of an embedding model: items in, one vector per item out, one packed batch per call.
 * ESM-2 and DNABERT-S implement it over sequence strings; the VirNucPro feature model (cli) over six-frame
 * items; @virnucpro/runtime's worker pool runs any implementation in worker processes.
 */
export interface Embedder<I = string> {
  /** Model name, as output metadata records it (e.g. "esm2_t36_3B_UR50D", "DNABERT-S"). */
  readonly name: string;
  /** Length of every returned vector. */
  readonly dim: number;
  /**
   * Tokens the model spends on this item (specials included): the unit of the packer's budget. Throws on an
   * item the model cannot read (e.g. a residue outside its alphabet).
   */
  tokenCount(item: I): number;
  /** One vector of length `dim` per item, in the order of `items`. */
  embed(items: I[]): Promise<Float32Array[]>;
  /**
   * Optional, for a model whose tokenizer costs: its two halves, so that a caller that counts tokens to pack and then
   * embeds (the CLI's `embed`) tokenizes each item once, carrying its ids to the batch.
   */
  readonly tokenized?: TokenizedEmbedding<I>;
  /**
   * How many embed() calls may run at once (default 1). On a GPU, 2 lets a worker tokenize and launch the next
   * batch while the previous one still computes, so the GPU does not wait between batches; the results of a
   * batch must not depend on what else is in flight.
   */
  readonly concurrentBatches?: number;
  /**
   * What the model runs on (backend, precision, GPU, library versions…), JSON-like (it crosses process
   * boundaries): a worker pool reports it as telemetry `info`.
   */
  describe?(): object;
  /** Counters since the model loaded (e.g. batches recomputed in fp32); a worker pool sums them per worker. */
  counters?(): Record<string, number>;
  dispose(): void;
}

/** An embedder split at its tokenizer: `embed(items)` is `tokenized.embed(items.map(tokenized.encode))`. */
export interface TokenizedEmbedding<I> {
  /** The item's token ids, specials included (`tokenCount(item)` is their length); throws where tokenCount throws. */
  encode(item: I): Int32Array;
  /**
   * One vector per item the ids were encoded from: the vectors `embed` gives those items. With `allocate`, the model
   * may read them into an array it hands out (views of it: a caller that reuses its arrays once their vectors are
   * used spares a fresh one per batch); a model or backend that cannot returns its own.
   */
  embed(ids: Int32Array[], allocate?: FloatAllocator): Promise<Float32Array[]>;
  /** Optional: the same encoding on worker threads. */
  startEncoder?(): Promise<ChunkEncoder<I>>;
}

/**
 * A tokenizer on other threads, for a caller whose main thread bounds it (the CLI's `embed` on a GPU): items sent in
 * chunks, each chunk's ids back in its items' order, the ids `TokenizedEmbedding.encode` makes. The caller closes it.
 */
export interface ChunkEncoder<I> {
  /** The ids of each item; rejects with a ChunkRefusal for the first item the tokenizer refuses. */
  encode(items: I[]): Promise<Int32Array[]>;
  close(): Promise<void>;
}
