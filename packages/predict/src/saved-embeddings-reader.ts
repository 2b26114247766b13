import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { openSafetensors, toFloat32 } from '@virnucpro/weights';
import {
  RECORDS_HEADER, SAVED_EMBEDDINGS_FORMAT, SAVED_EMBEDDINGS_INDEX, SAVED_EMBEDDINGS_RECORDS, SAVED_EMBEDDINGS_VERSION,
  parseRecordLine, type SavedEmbeddingsIndex, type SavedRecord,
} from './saved-embeddings-format.js';

/** A saved-embeddings folder that cannot be read as one (`code: 'BAD_INPUT'`: the CLI exits 2). */
export class SavedEmbeddingsError extends Error {
  override readonly name = 'SavedEmbeddingsError';
  readonly code = 'BAD_INPUT';
}

/** One shard's frames, as float32 whatever the stored dtype. */
export interface SavedEmbeddingsBatch {
  ids: string[];
  /** Row-major [ids.length, dim]. */
  features: Float32Array;
  dim: number;
}

/** A saved-embeddings folder, opened: its index checked; records and shards read when iterated, one shard at a time. */
export interface SavedEmbeddings {
  readonly dir: string;
  readonly index: SavedEmbeddingsIndex;
  /** Every record of the run, in input order (records.tsv, streamed). */
  records(): AsyncGenerator<SavedRecord>;
  /** The shards' frames in input order, one shard in memory at a time. */
  shards(): AsyncGenerator<SavedEmbeddingsBatch>;
}

/** True when `path` is a saved-embeddings folder or its index.json (else a single features file). */
export async function isSavedEmbeddings(path: string): Promise<boolean> {
  if (basename(path) === SAVED_EMBEDDINGS_INDEX) return true;
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/**
 * Opens the folder `predict --save-embeddings` wrote (or its index.json): the index is read and checked, and every
 * shard it lists must be there with the row count and shape it says, before anything is classified.
 */
export async function openSavedEmbeddings(path: string): Promise<SavedEmbeddings> {
  const dir = basename(path) === SAVED_EMBEDDINGS_INDEX ? dirname(path) : path;
  const indexPath = join(dir, SAVED_EMBEDDINGS_INDEX);
  let text: string;
  try {
    text = await readFile(indexPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SavedEmbeddingsError(`${dir}: no ${SAVED_EMBEDDINGS_INDEX} (not a folder of saved embeddings, or one of a run that did not finish)`);
    throw new SavedEmbeddingsError(`${indexPath}: ${(error as Error).message}`);
  }
  const index = checkIndex(indexPath, text);
  let frames = 0;
  for (const shard of index.shards) {
    const file = join(dir, shard.file);
    const st = await openSafetensors(file).catch((error: unknown) => {
      throw new SavedEmbeddingsError(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : (error as Error).message}`);
    });
    try {
      const entry = st.entries.get('embeddings');
      if (!entry || entry.dtype !== index.dtype || entry.shape.length !== 2 || entry.shape[0] !== shard.rows || entry.shape[1] !== index.dim) {
        throw new SavedEmbeddingsError(`${file}: expected an "embeddings" ${index.dtype} [${shard.rows}, ${index.dim}] tensor as ${SAVED_EMBEDDINGS_INDEX} lists it, found ${entry ? `${entry.dtype} [${entry.shape}]` : 'none'}`);
      }
    } finally {
      await st.close();
    }
    frames += shard.rows;
  }
  if (frames !== index.frames) throw new SavedEmbeddingsError(`${indexPath}: its shards hold ${frames} frames, it says ${index.frames}`);
  return { dir, index, records: () => readRecords(join(dir, SAVED_EMBEDDINGS_RECORDS), index.records), shards: () => readShards(dir, index) };
}

function checkIndex(path: string, text: string): SavedEmbeddingsIndex {
  let index: SavedEmbeddingsIndex;
  try {
    index = JSON.parse(text) as SavedEmbeddingsIndex;
  } catch (error) {
    throw new SavedEmbeddingsError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  if (index?.format !== SAVED_EMBEDDINGS_FORMAT) throw new SavedEmbeddingsError(`${path}: not an index of saved embeddings (format ${JSON.stringify(index?.format)})`);
  if (index.version !== SAVED_EMBEDDINGS_VERSION) throw new SavedEmbeddingsError(`${path}: version ${index.version} of saved embeddings is not supported (this build reads ${SAVED_EMBEDDINGS_VERSION})`);
  const whole = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  if (index.dtype !== 'float32' && index.dtype !== 'float16') throw new SavedEmbeddingsError(`${path}: dtype ${JSON.stringify(index.dtype)}, expected float32 or float16`);
  if (!whole(index.dim) || !whole(index.frames) || !whole(index.records) || !whole(index.chunkLength) || index.chunkLength === 0) {
    throw new SavedEmbeddingsError(`${path}: dim, frames, records and chunkLength must be whole numbers`);
  }
  if (!Array.isArray(index.shards) || !index.shards.every((s) => typeof s?.file === 'string' && basename(s.file) === s.file && whole(s.rows))) {
    throw new SavedEmbeddingsError(`${path}: "shards" must list { file, rows } of files beside it`);
  }
  return index;
}

async function* readRecords(path: string, expected: number): AsyncGenerator<SavedRecord> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      if (n++ === 0) {
        if (line !== RECORDS_HEADER) throw new SavedEmbeddingsError(`${path}: line 1 is not the header ${JSON.stringify(RECORDS_HEADER)}`);
        continue;
      }
      const record = parseRecordLine(line);
      if (typeof record === 'string') throw new SavedEmbeddingsError(`${path}: line ${n}: ${record}`);
      yield record;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SavedEmbeddingsError(`${path}: missing`);
    throw error;
  } finally {
    lines.close();
  }
  if (n - 1 !== expected) throw new SavedEmbeddingsError(`${path}: ${Math.max(0, n - 1)} records, ${SAVED_EMBEDDINGS_INDEX} says ${expected}`);
}

async function* readShards(dir: string, index: SavedEmbeddingsIndex): AsyncGenerator<SavedEmbeddingsBatch> {
  for (const shard of index.shards) {
    const path = join(dir, shard.file);
    const file = await openSafetensors(path);
    let batch: SavedEmbeddingsBatch;
    try {
      let ids: unknown;
      try {
        ids = JSON.parse(file.metadata.ids ?? 'null');
      } catch {
        ids = null;
      }
      if (!Array.isArray(ids) || ids.length !== shard.rows || !ids.every((id) => typeof id === 'string')) {
        throw new SavedEmbeddingsError(`${path}: its metadata "ids" must list the ${shard.rows} frame ids of its rows`);
      }
      batch = { ids: ids as string[], features: toFloat32(await file.readTensor('embeddings')), dim: index.dim };
    } finally {
      await file.close();
    }
    yield batch;
  }
}
