import { readdir, rm, rmdir } from 'node:fs/promises';
import { endianness } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { AtomicFile, BufferedAtomicFile, makeDirectory, type StagedOutput } from '@virnucpro/atomic-file';
import type { ChunkSpan } from '@virnucpro/sixframe';
import { encodeSafetensorsHeader, float32ToFloat16Bits } from '@virnucpro/weights';
import {
  DEFAULT_SHARD_ROWS, RECORDS_HEADER, SAVED_EMBEDDINGS_FORMAT, SAVED_EMBEDDINGS_INDEX, SAVED_EMBEDDINGS_RECORDS, SAVED_EMBEDDINGS_VERSION, SHARD_FILE,
  formatRecordLine, shardFileName, type SavedEmbeddingsDtype, type SavedEmbeddingsIndex, type SavedEmbeddingsShard,
} from './saved-embeddings-format.js';
import type { FeatureSink } from './write-predictions.js';
import type { RegionOptions } from '@virnucpro/consensus';

export interface SavedEmbeddingsOptions {
  /** The run's chunk length (300 or 500): classify rebuilds each record's chunk layout from it. */
  chunkLength: number;
  /** float32 (default; classify gives predict's bytes) or float16 (half the size, approximate scores). */
  dtype?: SavedEmbeddingsDtype;
  /** The run's viral-region options, for classify's sequence_summary.tsv (default: the writer's defaults). */
  regions?: RegionOptions;
  /** DNABERT-S's part of a feature, recorded for readers who split the two embeddings. */
  dnabertDim?: number;
  /** The precision the features were computed in, recorded. */
  precision?: string;
  /** Rows a shard (default DEFAULT_SHARD_ROWS). */
  shardRows?: number;
}

/**
 * Writes the saved-embeddings folder (saved-embeddings-format.ts) as a run goes, a StagedOutput: records as they are
 * declared (records.tsv, streamed), features as they are written, each shard written and fsynced under a temporary
 * name once it holds `shardRows` rows (memory: one shard's rows), `index.json` at `complete()`; `publish()` renames
 * the shards, then records.tsv, then index.json into place (and removes shards of an earlier run that the new index
 * does not list); `discard()` removes them all. So a folder never shows part of a run: killed, a run leaves only
 * temporary files (the next run in the folder removes them), and a folder with index.json holds a complete set.
 */
export class SavedEmbeddingsWriter implements StagedOutput, FeatureSink {
  private readonly shards: { shard: SavedEmbeddingsShard; file: AtomicFile }[] = [];
  private readonly shardRows: number;
  private readonly dtype: SavedEmbeddingsDtype;
  private dim = 0;
  private rows: Float32Array | undefined;
  private ids: string[] = [];
  private frameCount = 0;
  private recordCount = 0;
  private recordsFlushed: Promise<void> = Promise.resolve();
  private index: AtomicFile | undefined;
  private state: 'open' | 'completed' | 'closed' = 'open';

  private constructor(
    readonly dir: string,
    private readonly records: BufferedAtomicFile,
    private readonly options: SavedEmbeddingsOptions,
    /** The first folder this writer made (removed again on discard), if any. */
    private readonly created: string | undefined,
  ) {
    this.shardRows = options.shardRows ?? DEFAULT_SHARD_ROWS;
    this.dtype = options.dtype ?? 'float32';
  }

  /** Creates `dir` if needed and starts records.tsv (under a temporary name). */
  static async create(dir: string, options: SavedEmbeddingsOptions): Promise<SavedEmbeddingsWriter> {
    const shardRows = options.shardRows ?? DEFAULT_SHARD_ROWS;
    if (!Number.isInteger(shardRows) || shardRows < 1) throw new RangeError(`shardRows must be a whole number ≥ 1, got ${shardRows}`);
    // safetensors is little-endian, as typed arrays are on every host Node runs on; refused elsewhere, not corrupted.
    if (endianness() !== 'LE') throw new Error('saving embeddings: big-endian hosts are not supported');
    const created = await makeDirectory(dir);
    const records = await BufferedAtomicFile.create(join(dir, SAVED_EMBEDDINGS_RECORDS));
    records.writeText(`${RECORDS_HEADER}\n`);
    return new SavedEmbeddingsWriter(resolve(dir), records, options, created);
  }

  /** Frames written so far. */
  get frames(): number {
    return this.frameCount;
  }

  /** Shards written so far (the last one's rows go out at `complete()`). */
  get shardsWritten(): number {
    return this.shards.length;
  }

  /** The next record of the run, in input order, with its chunk layout (as PredictionWriter.declareRecord). */
  declareRecord(id: string, layout: readonly ChunkSpan[], facts: { nBases?: number } = {}): void {
    this.addRecord({ id, length: layout.length > 0 ? layout[layout.length - 1].end : 0, ...(facts.nBases !== undefined ? { nBases: facts.nBases } : {}), skipped: false });
  }

  /** The next record of the run, skipped (--min-length): a summary row, no frames. */
  declareSkippedRecord(id: string, length: number, facts: { nBases?: number } = {}): void {
    this.addRecord({ id, length, ...(facts.nBases !== undefined ? { nBases: facts.nBases } : {}), skipped: true });
  }

  async writeFeatures(ids: readonly string[], features: Float32Array, dim: number): Promise<void> {
    this.assertOpen();
    if (this.dim === 0) {
      if (!(dim > 0)) throw new RangeError(`features of ${dim} values a frame`);
      this.dim = dim;
    } else if (dim !== this.dim) throw new Error(`features of ${dim} values a frame after ${this.dim}`);
    if (features.length !== ids.length * dim) throw new Error(`${ids.length} frames need ${ids.length * dim} feature values, got ${features.length}`);
    await this.recordsFlushed;
    this.rows ??= new Float32Array(this.shardRows * dim);
    for (let at = 0; at < ids.length; ) {
      const take = Math.min(ids.length - at, this.shardRows - this.ids.length);
      this.rows.set(features.subarray(at * dim, (at + take) * dim), this.ids.length * dim);
      for (let i = at; i < at + take; i++) this.ids.push(ids[i]);
      at += take;
      this.frameCount += take;
      if (this.ids.length === this.shardRows) await this.writeShard();
    }
  }

  /** The last shard, records.tsv and index.json on disk (fsync) under temporary names: nothing visible yet. */
  async complete(): Promise<void> {
    if (this.state === 'completed') return;
    this.assertOpen();
    this.state = 'completed';
    try {
      if (this.ids.length > 0) await this.writeShard();
      await this.recordsFlushed;
      await this.records.complete();
      const index: SavedEmbeddingsIndex = {
        format: SAVED_EMBEDDINGS_FORMAT,
        version: SAVED_EMBEDDINGS_VERSION,
        dtype: this.dtype,
        dim: this.dim,
        ...(this.options.dnabertDim !== undefined ? { dnabertDim: this.options.dnabertDim } : {}),
        chunkLength: this.options.chunkLength,
        ...(this.options.regions ? { regions: this.options.regions } : {}),
        ...(this.options.precision ? { precision: this.options.precision } : {}),
        frames: this.frameCount,
        records: this.recordCount,
        shards: this.shards.map((s) => s.shard),
      };
      this.index = await AtomicFile.create(join(this.dir, SAVED_EMBEDDINGS_INDEX));
      await this.index.write(`${JSON.stringify(index, null, 2)}\n`);
      await this.index.complete();
    } catch (error) {
      await this.discard();
      throw error;
    }
  }

  /** Shards, then records.tsv, then index.json renamed into place; shards of an earlier run not in this index removed. */
  async publish(): Promise<void> {
    if (this.state === 'open') await this.complete();
    if (this.state !== 'completed') throw new Error('SavedEmbeddingsWriter: discarded, nothing to publish');
    this.state = 'closed';
    for (const { file } of this.shards) await file.publish();
    await this.records.publish();
    await this.index!.publish();
    // A --force run over an earlier one with more shards: those are not part of this set.
    const listed = new Set(this.shards.map((s) => s.shard.file));
    for (const name of await readdir(this.dir)) if (SHARD_FILE.test(name) && !listed.has(name)) await rm(join(this.dir, name), { force: true });
  }

  async commit(): Promise<void> {
    await this.complete();
    await this.publish();
  }

  async discard(): Promise<void> {
    this.state = 'closed';
    this.rows = undefined;
    for (const { file } of this.shards) await file.discard();
    await this.records.discard();
    await this.index?.discard();
    // The folders this writer made, innermost first, each only if nothing else is in it.
    if (this.created) for (let d = this.dir; d.startsWith(this.created); d = dirname(d)) if (!(await rmdir(d).then(() => true, () => false))) break;
  }

  private addRecord(record: Parameters<typeof formatRecordLine>[0]): void {
    this.assertOpen();
    this.records.writeText(formatRecordLine(record));
    this.recordCount++;
    // Declarations come from the reading side, which does not wait: a full block goes to disk behind the others.
    if (this.records.full) {
      const flushed = this.recordsFlushed.then(() => this.records.flush());
      flushed.catch(() => undefined); // surfaces at the next writeFeatures or complete
      this.recordsFlushed = flushed;
    }
  }

  private async writeShard(): Promise<void> {
    const count = this.ids.length;
    const values = this.rows!.subarray(0, count * this.dim);
    const data = this.dtype === 'float16' ? float32ToFloat16Bits(values) : values;
    const name = shardFileName(this.shards.length + 1);
    const { header } = encodeSafetensorsHeader(
      { embeddings: { dtype: this.dtype, shape: [count, this.dim] } },
      {
        format: `${SAVED_EMBEDDINGS_FORMAT}-${SAVED_EMBEDDINGS_VERSION}`,
        ids: JSON.stringify(this.ids),
        first_frame: String(this.frameCount - count),
        ...(this.options.dnabertDim !== undefined ? { dnabert_dim: String(this.options.dnabertDim), esm_dim: String(this.dim - this.options.dnabertDim) } : {}),
      },
    );
    const file = await AtomicFile.create(join(this.dir, name));
    this.shards.push({ shard: { file: name, rows: count }, file });
    await file.write(header);
    await file.write(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    await file.complete(); // closed: a run of many shards holds no file open
    this.ids = [];
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error('SavedEmbeddingsWriter: already completed or discarded');
  }
}
