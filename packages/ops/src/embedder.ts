/**
 * What every embedding model of the pipeline offers (ESM-2, DNABERT-S): text in, one mean vector
 * per sequence out. Implementations pack each batch internally.
 */
export interface Embedder {
  readonly name: string;
  /** Length of every returned vector. */
  readonly dim: number;
  /** Tokens the model spends on this sequence (specials included): the unit of the packer's budget. */
  tokenCount(sequence: string): number;
  /** One mean vector per sequence, in input order. */
  embedBatch(sequences: string[]): Promise<Float32Array[]>;
  dispose(): void;
}
