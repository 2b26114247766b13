// The folder `virnucpro predict --save-embeddings` writes and `virnucpro classify --features` reads: the features
// of every scored frame ([DNABERT-S mean | ESM-2 mean], as the MLP took them) in safetensors shards of a bounded
// number of rows, in input order, each shard also readable alone as a features file (`embeddings` [rows, dim], the
// frame ids in its metadata); `records.tsv`, every record of the run in input order with what sequence_summary.tsv
// needs beyond the frames (length, N bases, skipped); and `index.json`, written last, which lists the shards and
// the run's chunk length and region options. A folder without index.json is not a complete set.
import type { RegionOptions } from '@virnucpro/consensus';

/** The folder under predict's --out-dir. */
export const SAVED_EMBEDDINGS_DIR = 'embeddings';
export const SAVED_EMBEDDINGS_INDEX = 'index.json';
export const SAVED_EMBEDDINGS_RECORDS = 'records.tsv';
export const SAVED_EMBEDDINGS_FORMAT = 'virnucpro-saved-embeddings';
export const SAVED_EMBEDDINGS_VERSION = 1;
export const RECORDS_HEADER = 'Sequence_ID\tlength\tn_bases\tstatus';

/**
 * Rows a shard holds (the last one fewer): 4,096 frames of the released models' 3,328 features are 54 MB in fp32
 * (27 MB in fp16), what the writer holds before a shard goes to disk and what a reader holds of one.
 */
export const DEFAULT_SHARD_ROWS = 4096;

/** How the features are stored: float32 (classify then gives predict's bytes) or float16 (half the disk, approximate scores). */
export type SavedEmbeddingsDtype = 'float32' | 'float16';

export interface SavedEmbeddingsShard {
  file: string;
  rows: number;
}

export interface SavedEmbeddingsIndex {
  format: typeof SAVED_EMBEDDINGS_FORMAT;
  version: number;
  dtype: SavedEmbeddingsDtype;
  /** Features a frame: DNABERT-S's `dnabertDim` first, then ESM-2's. */
  dim: number;
  dnabertDim?: number;
  /** The run's chunk length: each record's chunk layout follows from it and the record's length. */
  chunkLength: number;
  /** The run's viral-region options (sequence_summary.tsv's `regions` and `viral_bases` depend on them). */
  regions?: RegionOptions;
  /** The precision the features were computed in (fp8: frames near 0.5 hold their bf16 refinement's). */
  precision?: string;
  frames: number;
  records: number;
  shards: SavedEmbeddingsShard[];
}

/** `embeddings-000001.safetensors`, …: in input order. */
export function shardFileName(n: number): string {
  return `embeddings-${String(n).padStart(6, '0')}.safetensors`;
}

export const SHARD_FILE = /^embeddings-\d{6,}\.safetensors$/;

/** One record of the run as records.tsv holds it. */
export interface SavedRecord {
  id: string;
  /** Bases. */
  length: number;
  /** N/n bases (sequence_summary.tsv's fraction_n); undefined when not counted. */
  nBases?: number;
  /** Skipped by the run (--min-length): a summary row, no chunks. */
  skipped: boolean;
}

export function formatRecordLine(record: SavedRecord): string {
  return `${record.id}\t${record.length}\t${record.nBases ?? ''}\t${record.skipped ? 'skipped' : 'chunked'}\n`;
}

/** A records.tsv line back, or a reason why it is not one. */
export function parseRecordLine(line: string): SavedRecord | string {
  const fields = line.split('\t');
  if (fields.length !== 4) return `expected 4 tab-separated fields, got ${fields.length}`;
  const [id, length, nBases, status] = fields;
  if (id === '' || !/^\d+$/.test(length) || !/^\d*$/.test(nBases) || (status !== 'chunked' && status !== 'skipped')) return `not a record line: ${JSON.stringify(line.slice(0, 200))}`;
  return { id, length: Number(length), ...(nBases !== '' ? { nBases: Number(nBases) } : {}), skipped: status === 'skipped' };
}
