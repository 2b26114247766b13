/**
 * What runEmbedding needs from a checkpoint (implemented by `@virnucpro/checkpoint`'s session):
 * results restored from an earlier run, and a sink for newly computed ones.
 */
export interface EmbeddingCheckpoint {
  readonly restored: RestoredResults;
  /**
   * Called once per newly embedded item, in completion order (not input order), before the item is delivered;
   * takes the record at once (a later `flush` includes it) and may return the write it started.
   */
  append(record: { index: number; id: string; vector: Float32Array }): void | Promise<void>;
  /** Writes everything appended so far (called when the input is exhausted). */
  flush(): Promise<void>;
}

export interface RestoredResults {
  readonly count: number;
  has(index: number): boolean;
  /** The stored vector, and whether it was stored for the item of id `id` (checked against the input item). */
  get(index: number): Promise<{ vector: Float32Array; matches(id: string): boolean }>;
}
