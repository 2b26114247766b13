// Streaming writer of the output files. Rows arrive in input order (frame by frame or in batches);
// prediction_results.txt is written as they come (to a temp file), while per-chunk maxima accumulate for the
// consensus csv, which is sorted and so needs every row first (they are sorted in runs written to scratch files
// and merged at the end: SpilledChunkMaxima). The per-record files — sequence_summary.tsv and,
// with `chunkFiles`, chunk_scores.tsv, viral_regions.tsv and viral_regions.bed — are written record by record as
// each one finishes (RecordChunksCollector). commit() writes the consensus, fsyncs every file and renames them
// into place (a StagedOutput: complete(), publish()); discard() (or any failure) leaves no output file.
// Memory: at most `consensusRunChunks` chunks' maxima for the consensus; O(one record's chunks) for the
// per-record files when records are declared (all records otherwise: undeclared frames need not be adjacent).

import { join } from 'node:path';
import { CONSENSUS_FILE, type ConsensusKeyRule, consensusHeaderLine, consensusLine } from './consensus.js';
import { PREDICTION_HEADER, PREDICTION_RESULTS_FILE, formatPredictionRow } from './prediction-row.js';
import { CHUNK_SCORES_FILE, CHUNK_SCORES_HEADER, formatChunkScores, type ChunkInterval, type RecordCalls, type RecordFacts } from './chunk-calls.js';
import { RecordChunksCollector } from './record-chunks.js';
import { SpilledChunkMaxima, assertRunChunks } from './spilled-chunk-maxima.js';
import { SEQUENCE_SUMMARY_FILE, SEQUENCE_SUMMARY_HEADER, formatSequenceSummary, summarizeRecord } from './sequence-summary.js';
import {
  VIRAL_REGIONS_BED_FILE,
  VIRAL_REGIONS_FILE,
  VIRAL_REGIONS_HEADER,
  findViralRegions,
  formatRegionsBed,
  formatRegionsTsv,
  regionOptions,
  type RegionOptions,
} from './viral-regions.js';
import { BufferedAtomicFile, makeDirectory, type StagedOutput } from '@virnucpro/atomic-file';
import type { ReportCollector } from './report/report-collector.js';

export interface PredictionWriterOptions {
  /** Consensus key rule (default 'original': drop the last two characters). */
  keyRule?: ConsensusKeyRule;
  /** Add max_score_0/max_score_1 columns to the consensus csv (default false: the original's two columns). */
  consensusScoreColumns?: boolean;
  /** Write sequence_summary.tsv (default true). */
  summary?: boolean;
  /**
   * Write chunk_scores.tsv, viral_regions.tsv and viral_regions.bed (default false). Every record must then be
   * declared with its chunk layout (`declareRecord`) before its frames, in input order.
   */
  chunkFiles?: boolean;
  /** How viral chunks join into regions (defaults: gap 1, maxGapBases 5000, minChunks 2). */
  regions?: Partial<RegionOptions>;
  /**
   * Chunks whose consensus maxima are held in memory before they go to a sorted scratch file in `outDir`
   * (default 16,384, ~2.5 MB); the files are merged into the consensus csv at the end and removed.
   */
  consensusRunChunks?: number;
  /**
   * Also hands each finished record's rows to this collector, so that report.html can be written at the end without
   * reading the files back (`writeReportData`). Needs the summary and `chunkFiles`.
   */
  report?: ReportCollector;
}

export interface PredictionFiles {
  predictions: string;
  consensus: string;
  summary?: string;
  chunkScores?: string;
  regions?: string;
  regionsBed?: string;
  rows: number;
  chunks: number;
}

interface RecordFiles {
  summary?: BufferedAtomicFile;
  chunkScores?: BufferedAtomicFile;
  regions?: BufferedAtomicFile;
  regionsBed?: BufferedAtomicFile;
}

export class PredictionWriter implements StagedOutput {
  private readonly maxima: SpilledChunkMaxima;
  private readonly records: RecordChunksCollector;
  private readonly regionOptions: RegionOptions;
  private rowCount = 0;
  private chunkCount = 0;
  private state: 'open' | 'completed' | 'closed' = 'open';
  private consensus: BufferedAtomicFile | undefined;
  /** Every file opened so far (all are completed, published or discarded together). */
  private readonly staged: BufferedAtomicFile[];

  private constructor(
    readonly outDir: string,
    private readonly predictions: BufferedAtomicFile,
    private readonly files: RecordFiles,
    private readonly options: PredictionWriterOptions,
  ) {
    this.maxima = new SpilledChunkMaxima(outDir, options.keyRule, options.consensusRunChunks);
    this.records = new RecordChunksCollector(options.keyRule);
    this.regionOptions = regionOptions(options.regions);
    this.staged = [predictions, ...Object.values(files)];
  }

  /** Creates `outDir` if needed and starts the streamed files (under temporary names). */
  static async create(outDir: string, options: PredictionWriterOptions = {}): Promise<PredictionWriter> {
    regionOptions(options.regions); // bad options fail before any file exists
    if (options.report && (options.summary === false || !options.chunkFiles)) throw new Error('PredictionWriter: a report needs the summary and chunkFiles');
    if (options.consensusRunChunks !== undefined) assertRunChunks(options.consensusRunChunks);
    await makeDirectory(outDir);
    const opened: BufferedAtomicFile[] = [];
    const open = async (name: string, header: string) => {
      const file = await BufferedAtomicFile.create(join(outDir, name));
      opened.push(file);
      await file.write(header);
      return file;
    };
    try {
      const predictions = await open(PREDICTION_RESULTS_FILE, PREDICTION_HEADER);
      const files: RecordFiles = {};
      if (options.summary ?? true) files.summary = await open(SEQUENCE_SUMMARY_FILE, `${SEQUENCE_SUMMARY_HEADER}\n`);
      if (options.chunkFiles) {
        files.chunkScores = await open(CHUNK_SCORES_FILE, `${CHUNK_SCORES_HEADER}\n`);
        files.regions = await open(VIRAL_REGIONS_FILE, `${VIRAL_REGIONS_HEADER}\n`);
        files.regionsBed = await open(VIRAL_REGIONS_BED_FILE, '');
      }
      return new PredictionWriter(outDir, predictions, files, options);
    } catch (error) {
      for (const file of opened) await file.discard();
      throw error;
    }
  }

  get rows(): number {
    return this.rowCount;
  }

  /** One frame's scores (score1 = others, score2 = virus probability). */
  async write(id: string, score1: number, score2: number): Promise<void> {
    this.assertOpen();
    this.maxima.add(id, score1, score2);
    const finished = this.records.add(id, score1, score2);
    this.rowCount++;
    await this.predictions.write(formatPredictionRow(id, score1, score2));
    await this.writeRecords(finished);
    if (this.maxima.full) await this.maxima.spill();
  }

  /** A batch: ids[i] has probabilities[2i] (others) and probabilities[2i+1] (virus). */
  async writeBatch(ids: readonly string[], probabilities: ArrayLike<number>): Promise<void> {
    this.assertOpen();
    if (probabilities.length !== ids.length * 2) {
      throw new Error(`writeBatch: ${ids.length} ids need ${ids.length * 2} probabilities, got ${probabilities.length}`);
    }
    let text = '';
    let finished: RecordCalls[] = [];
    for (let i = 0; i < ids.length; i++) {
      const s1 = probabilities[2 * i];
      const s2 = probabilities[2 * i + 1];
      this.maxima.add(ids[i], s1, s2);
      const done = this.records.add(ids[i], s1, s2);
      if (done.length > 0) finished = finished.length > 0 ? finished.concat(done) : done;
      text += formatPredictionRow(ids[i], s1, s2);
    }
    this.rowCount += ids.length;
    await this.predictions.write(text);
    await this.writeRecords(finished);
    if (this.maxima.full) await this.maxima.spill();
  }

  /**
   * Declares the next input record with its chunk layout (`[start, end)` per chunk, 0-based, as sixframe's
   * `chunkLayout(length, chunkLength)` gives it; the record's length is the last chunk's end). Records are
   * declared in input order, each before its frames arrive; chunks that get no frame come out `unscored`.
   * Required for every record with `chunkFiles`; otherwise optional (the summary then knows each record's
   * length and its chunks without a frame).
   */
  declareRecord(sequenceId: string, layout: readonly ChunkInterval[], facts: RecordFacts = {}): void {
    this.assertOpen();
    this.records.declare(sequenceId, layout, facts);
  }

  /**
   * Declares the next input record as skipped (e.g. shorter than the run's minimum length): it gets a
   * sequence_summary.tsv row (call `skipped`, no chunks) and no row in any other file.
   */
  declareSkippedRecord(sequenceId: string, length: number, facts: RecordFacts = {}): void {
    this.assertOpen();
    this.records.declareSkipped(sequenceId, length, facts);
  }

  /**
   * Tells the summary how many chunks an input sequence was cut into (without their coordinates), so chunks
   * without any scored frame count, as unscored. Not enough for `chunkFiles` (use `declareRecord`).
   */
  declareChunks(sequenceId: string, chunks: number): void {
    this.assertOpen();
    this.records.declareCount(sequenceId, chunks);
  }

  /** Writes the consensus csv and the summary, then publishes all files (complete, then publish). */
  async commit(): Promise<PredictionFiles> {
    await this.complete();
    return this.publish();
  }

  /**
   * Writes the consensus csv and the summary and puts every file on disk (fsync) under its temporary name:
   * nothing is visible yet. A caller with more files to show at the same time completes those too before
   * `publish()`. On failure, every file is discarded.
   */
  async complete(): Promise<void> {
    if (this.state === 'completed') return;
    this.assertOpen();
    this.state = 'completed';
    let streamed: Promise<unknown> | undefined;
    try {
      await this.writeRecords(this.records.finish());
      // The streamed files go to disk (flush, fsync) while the consensus csv is merged from its sorted runs, rather
      // than one after the other once the merge is done.
      const completing = Promise.allSettled(this.staged.map((file) => file.complete()));
      streamed = completing;
      const consensus = await BufferedAtomicFile.create(join(this.outDir, CONSENSUS_FILE));
      this.consensus = consensus;
      this.staged.push(consensus);
      const format = { scoreColumns: this.options.consensusScoreColumns };
      const merged = Promise.allSettled([(async () => {
        await consensus.write(consensusHeaderLine(format));
        for await (const groups of this.maxima.sortedBatches()) {
          let lines = '';
          for (const group of groups) lines += consensusLine(group, format);
          await consensus.write(lines);
          this.chunkCount += groups.length;
        }
        await consensus.complete();
      })()]);
      const failure = [...(await completing), ...(await merged)].find((r) => r.status === 'rejected');
      if (failure) throw failure.reason;
    } catch (error) {
      await streamed; // no file is discarded while it is still being completed
      await this.discard();
      throw error;
    }
  }

  /** Renames the files into place (completing them first if that was not done). */
  async publish(): Promise<PredictionFiles> {
    if (this.state === 'open') await this.complete();
    if (this.state !== 'completed') throw new Error('PredictionWriter: discarded, nothing to publish');
    this.state = 'closed';
    for (const file of this.staged) await file.publish();
    return {
      predictions: this.predictions.path,
      consensus: this.consensus!.path,
      ...(this.files.summary ? { summary: this.files.summary.path } : {}),
      ...(this.files.chunkScores ? { chunkScores: this.files.chunkScores.path } : {}),
      ...(this.files.regions ? { regions: this.files.regions.path } : {}),
      ...(this.files.regionsBed ? { regionsBed: this.files.regionsBed.path } : {}),
      rows: this.rowCount,
      chunks: this.chunkCount,
    };
  }

  /** Drops everything written so far (also after `complete()`); no output file is created. */
  async discard(): Promise<void> {
    this.state = 'closed';
    for (const file of this.staged) await file.discard();
    await this.maxima.discard();
  }

  /** The per-record files' rows of finished records. */
  private async writeRecords(records: readonly RecordCalls[]): Promise<void> {
    if (records.length === 0) return;
    const { summary, chunkScores, regions, regionsBed } = this.files;
    for (const record of records) {
      if (chunkScores && record.length === undefined) {
        throw new Error(`PredictionWriter: record '${record.id}' was not declared with its chunk layout (declareRecord), which chunkFiles needs`);
      }
      const found = record.length !== undefined ? findViralRegions(record, this.regionOptions) : undefined;
      const summaryRow = summary ? formatSequenceSummary([summarizeRecord(record, found)]) : '';
      const chunkRows = chunkScores ? formatChunkScores(record) : '';
      const regionRows = regions && found && found.length > 0 ? formatRegionsTsv(found) : '';
      if (summary) await summary.write(summaryRow);
      if (chunkScores) await chunkScores.write(chunkRows);
      if (regionRows) {
        await regions!.write(regionRows);
        await regionsBed!.write(formatRegionsBed(found!));
      }
      this.options.report?.addRecord(summaryRow.slice(0, -1), linesOf(chunkRows), linesOf(regionRows));
    }
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error('PredictionWriter: already completed or discarded');
  }
}

/** The lines of rows formatted for a file (each ends with a line end). */
function linesOf(rows: string): string[] {
  return rows === '' ? [] : rows.slice(0, -1).split('\n');
}
