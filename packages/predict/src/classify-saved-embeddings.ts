import { PredictionWriter, consensusKey, originalSequenceId, type ClassifyOptions, type PredictionFiles } from '@virnucpro/consensus';
import { type MlpClassifier } from '@virnucpro/mlp';
import { chunkLayout } from '@virnucpro/sixframe';
import { SavedEmbeddingsError, type SavedEmbeddings } from './saved-embeddings-reader.js';
import type { SavedRecord } from './saved-embeddings-format.js';

/** Rows per MLP call: the original's batch size (the MLP scores each row on its own, so it changes no byte). */
const BATCH_ROWS = 256;

/**
 * `virnucpro classify` on a saved-embeddings folder: the MLP over every saved frame, in order, into a
 * `PredictionWriter` told each record as predict told it (its chunk layout from its length and the run's chunk
 * length, its N bases, skipped or not) and the run's region options. With float32 features the files are
 * predict's byte for byte: the MLP's arithmetic is the workers' (row by row, double sums), the rows and records
 * arrive in the same order. Streams: one shard and the records of one batch in memory.
 */
export async function classifySavedEmbeddings(
  mlp: Pick<MlpClassifier, 'inputDim' | 'predict'>,
  saved: SavedEmbeddings,
  outDir: string,
  options: ClassifyOptions = {},
): Promise<PredictionFiles> {
  const { index } = saved;
  if (mlp.inputDim !== index.dim) throw new SavedEmbeddingsError(`${saved.dir}: frames have ${index.dim} features but the MLP expects ${mlp.inputDim}`);
  const rowsPerCall = options.batchSize ?? BATCH_ROWS;
  const writer = await PredictionWriter.create(outDir, { ...options, ...(index.regions ? { regions: index.regions } : {}) });
  const records = saved.records();
  try {
    // Records are declared in input order up to the one a frame belongs to (each before its frames, as predict does).
    let current: string | undefined;
    const declare = (record: SavedRecord) => {
      if (record.skipped) writer.declareSkippedRecord(record.id, record.length, nFacts(record));
      else writer.declareRecord(record.id, chunkLayout(record.length, index.chunkLength), nFacts(record));
    };
    const declareThrough = async (frameId: string) => {
      const recordId = originalSequenceId(consensusKey(frameId, options.keyRule));
      if (recordId === current) return;
      for (;;) {
        const next = await records.next();
        if (next.done) throw new SavedEmbeddingsError(`${saved.dir}: frame '${frameId}' belongs to no record listed after '${current ?? '(none)'}' in records.tsv`);
        declare(next.value);
        if (!next.value.skipped && next.value.id === recordId) break;
      }
      current = recordId;
    };
    let done = 0;
    for await (const shard of saved.shards()) {
      for (let start = 0; start < shard.ids.length; start += rowsPerCall) {
        options.signal?.throwIfAborted();
        const end = Math.min(shard.ids.length, start + rowsPerCall);
        const ids = shard.ids.slice(start, end);
        for (const id of ids) await declareThrough(id);
        const probabilities = await mlp.predict(shard.features.subarray(start * shard.dim, end * shard.dim), end - start);
        await writer.writeBatch(ids, probabilities);
        done += ids.length;
        options.onProgress?.(done, index.frames);
      }
    }
    for (let next = await records.next(); !next.done; next = await records.next()) declare(next.value);
    return await writer.commit();
  } catch (error) {
    await writer.discard();
    throw error;
  } finally {
    await records.return(undefined);
  }
}

function nFacts(record: SavedRecord): { nBases?: number } {
  return record.nBases !== undefined ? { nBases: record.nBases } : {};
}
