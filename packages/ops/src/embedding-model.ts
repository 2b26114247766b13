import type { Precision } from './backend-name.js';
import type { ChunkEncoder, Embedder } from './embedder.js';

/** An embedder of sequence strings as a model package loads it, with the architecture it read. */
export interface LoadedEmbedder extends Embedder<string> {
  /** The model's configuration (JSON-able; written into output metadata). */
  readonly config: { readonly numLayers: number };
}

export interface EmbedderLoadOptions {
  /** Precision of the current backend (cuda: fp16 unless told; every other backend computes in fp32). */
  precision?: Precision;
  /** The model's own settings, by the names its descriptor declares in `settings`. */
  settings?: Record<string, string>;
}

/** A model-specific setting, offered by a tool as an option (e.g. ESM-2's `--unknown`). */
export interface EmbedderSetting {
  choices: readonly string[];
  default: string;
  describe: string;
}

/** What a conversion into a fast-loading tfjs artifact wrote. */
export interface ConvertedModel {
  dest: string;
  /** The weight file or folder that was read. */
  source: string;
  tensors: number;
  parameters: number;
}

/**
 * Everything a tool needs to offer an embedding model without knowing it (the CLI's `embed <name>` and
 * `convert <name>`): a model package exports one, and adding a model means its package plus one line in
 * the tool's registry. `load` puts the model on the current tfjs backend (initialised once, by the caller).
 */
export interface EmbeddingModelDescriptor {
  /** Command name: `virnucpro embed <name>`, `virnucpro convert <name>`. */
  readonly name: string;
  /** The model in messages, e.g. "ESM-2". */
  readonly label: string;
  /** What its sequences are made of. */
  readonly reads: 'protein' | 'nucleotide';
  readonly settings?: Readonly<Record<string, EmbedderSetting>>;
  /** Why `path` cannot hold this model (checked before anything is read; `role` names the argument), else undefined. */
  checkPath(path: string, role: string): string | undefined;
  load(path: string, options?: EmbedderLoadOptions): Promise<LoadedEmbedder>;
  /**
   * Optional: the loaded embedder's `tokenized.startEncoder()`, started from the model's path alone, so that a tool
   * starts the encoder's threads while `load` runs instead of after it (the caller closes it).
   */
  startEncoder?(path: string): Promise<ChunkEncoder<string>>;
  /** How log lines name a loaded model, e.g. "ESM-2 esm2_t36_3B_UR50D". */
  title(embedder: LoadedEmbedder): string;
  /** Writes a tfjs artifact of `src` at `dest` (which must not exist), atomically. */
  convert(src: string, dest: string): Promise<ConvertedModel>;
}
