// Streaming writer of the three output files. Rows arrive in input order (frame by frame or in batches);
// prediction_results.txt is written as they come (to a temp file), while per-chunk maxima accumulate for the
// consensus csv and the sequence summary, which need every row before they can be written. commit() writes
// those two, fsyncs all three and renames them into place (a StagedOutput: complete(), publish()); discard() (or any failure) leaves no output file.
// Memory: O(number of chunks) for the maxima (see ChunkMaxima), O(1) per row otherwise.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CONSENSUS_FILE, ChunkMaxima, type ConsensusKeyRule, formatConsensus } from './consensus.js';
import { PREDICTION_HEADER, PREDICTION_RESULTS_FILE, formatPredictionRow } from './prediction-row.js';
import { SEQUENCE_SUMMARY_FILE, formatSequenceSummary, summarizeSequences } from './sequence-summary.js';
import { BufferedAtomicFile, type StagedOutput } from '@virnucpro/atomic-file';

export interface PredictionWriterOptions {
  /** Consensus key rule (default 'original': drop the last two characters). */
  keyRule?: ConsensusKeyRule;
  /** Add max_score_0/max_score_1 columns to the consensus csv (default false: the original's two columns). */
  consensusScoreColumns?: boolean;
  /** Write sequence_summary.tsv (default true). */
  summary?: boolean;
}

export interface PredictionFiles {
  predictions: string;
  consensus: string;
  summary?: string;
  rows: number;
  chunks: number;
}

export class PredictionWriter implements StagedOutput {
  private readonly maxima: ChunkMaxima;
  private readonly declared = new Map<string, number>();
  private rowCount = 0;
  private state: 'open' | 'completed' | 'closed' = 'open';
  /** prediction_results.txt first, then the consensus csv and the summary once `complete()` wrote them. */
  private readonly staged: BufferedAtomicFile[];

  private constructor(
    readonly outDir: string,
    private readonly predictions: BufferedAtomicFile,
    private readonly options: PredictionWriterOptions,
  ) {
    this.maxima = new ChunkMaxima(options.keyRule);
    this.staged = [predictions];
  }

  /** Creates `outDir` if needed and starts prediction_results.txt (under a temporary name). */
  static async create(outDir: string, options: PredictionWriterOptions = {}): Promise<PredictionWriter> {
    await mkdir(outDir, { recursive: true });
    const predictions = await BufferedAtomicFile.create(join(outDir, PREDICTION_RESULTS_FILE));
    await predictions.write(PREDICTION_HEADER);
    return new PredictionWriter(outDir, predictions, options);
  }

  get rows(): number {
    return this.rowCount;
  }

  /** One frame's scores (score1 = others, score2 = virus probability). */
  async write(id: string, score1: number, score2: number): Promise<void> {
    this.assertOpen();
    this.maxima.add(id, score1, score2);
    this.rowCount++;
    await this.predictions.write(formatPredictionRow(id, score1, score2));
  }

  /** A batch: ids[i] has probabilities[2i] (others) and probabilities[2i+1] (virus). */
  async writeBatch(ids: readonly string[], probabilities: ArrayLike<number>): Promise<void> {
    this.assertOpen();
    if (probabilities.length !== ids.length * 2) {
      throw new Error(`writeBatch: ${ids.length} ids need ${ids.length * 2} probabilities, got ${probabilities.length}`);
    }
    let text = '';
    for (let i = 0; i < ids.length; i++) {
      const s1 = probabilities[2 * i];
      const s2 = probabilities[2 * i + 1];
      this.maxima.add(ids[i], s1, s2);
      text += formatPredictionRow(ids[i], s1, s2);
    }
    this.rowCount += ids.length;
    await this.predictions.write(text);
  }

  /**
   * Tells the summary how many chunks an input sequence was cut into, so chunks without any scored frame
   * count (as not viral). Optional; without it a sequence's chunks are those that had frames.
   */
  declareChunks(sequenceId: string, chunks: number): void {
    this.assertOpen();
    this.declared.set(sequenceId, (this.declared.get(sequenceId) ?? 0) + chunks);
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
    try {
      const consensus = await BufferedAtomicFile.create(join(this.outDir, CONSENSUS_FILE));
      this.staged.push(consensus);
      const sorted = this.maxima.sorted();
      await consensus.write(formatConsensus(sorted, { scoreColumns: this.options.consensusScoreColumns }));
      if (this.options.summary ?? true) {
        const summary = await BufferedAtomicFile.create(join(this.outDir, SEQUENCE_SUMMARY_FILE));
        this.staged.push(summary);
        await summary.write(formatSequenceSummary(summarizeSequences(this.maxima.groups(), this.declared)));
      }
      for (const file of this.staged) await file.complete();
    } catch (error) {
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
      predictions: this.staged[0].path,
      consensus: this.staged[1].path,
      summary: this.staged[2]?.path,
      rows: this.rowCount,
      chunks: this.maxima.size,
    };
  }

  /** Drops everything written so far (also after `complete()`); no output file is created. */
  async discard(): Promise<void> {
    this.state = 'closed';
    for (const file of this.staged) await file.discard();
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error('PredictionWriter: already completed or discarded');
  }
}
