import { Subject, concat, defer, ignoreElements, merge, tap, type MonoTypeOperatorFunction } from 'rxjs';
import { allGates, pull$, type CreditGate, type PacedSource } from '@virnucpro/runtime';
import { chunkLayout, chunkRecords, identifyFrames, sixFrames, type Chunk, type ChunkSpan, type SequenceRecord } from '@virnucpro/sixframe';
import type { PrepWriter } from './prep-writer.js';
import type { FrameItem } from './frame-item.js';
import { recordFacts } from './record-facts.js';

export interface FramesOptions {
  /** 300 or 500 (the released models'). */
  chunkLength: number;
  /** Hears each record, with where its chunks lie, before any of its frames (e.g. `PredictionWriter.declareRecord`). */
  onRecord?: (record: SequenceRecord, chunks: ChunkSpan[]) => void;
  /** The original tool's three intermediate files, written on the way (`virnucpro prep`'s bytes). */
  intermediate?: PrepWriter;
}

/**
 * Records → their kept six-frame items, as a paced source for `runEmbedding`: the records are pulled one at a time
 * and a record's chunks go out only while the run's demand is open (`chunkRecords` with a demand), so a long contig's
 * thousands of frames never wait in memory for the classifier. The composition, spelled out:
 * `pull$(records, demand) → declareRecords → chunkRecords(chunkLength, demand) → sixFrames()`.
 */
export function framesFrom(records: AsyncIterable<SequenceRecord>, options: FramesOptions): PacedSource<FrameItem> {
  return (demand) => {
    const { chunkLength, onRecord, intermediate } = options;
    const files = intermediate ? new IntermediateFiles(intermediate) : undefined;
    // While the intermediate files flush a block to disk, nothing more is cut or read.
    const paced = files ? allGates(demand, files.gate) : demand;
    const frames$ = pull$(records, paced).pipe(
      onRecord ? tap((record) => onRecord(record, chunkLayout(record.sequence.length, chunkLength))) : (source) => source,
      chunkRecords(chunkLength, paced),
      files ? tap((chunk) => files.write(chunk)) : (source) => source,
      sixFrames(),
    );
    // A failed flush fails the run at once; after the last frame, the last flush is waited for.
    return files ? merge(concat(frames$, defer(() => files.settled()).pipe(ignoreElements())), files.failure$) : frames$;
  };
}

/**
 * RxJS: declares each record to `writer` (a `PredictionWriter`) with its chunk layout and its N bases: what
 * `chunk_scores.tsv`, the viral regions and sequence_summary.tsv's `fraction_n` need.
 */
export function declareRecords<R extends SequenceRecord>(writer: RecordDeclarations, chunkLength: number): MonoTypeOperatorFunction<R> {
  return tap((record) => writer.declareRecord(record.id, chunkLayout(record.sequence.length, chunkLength), recordFacts(record)));
}

/** The part of `PredictionWriter` that hears about records. */
export interface RecordDeclarations {
  declareRecord(id: string, layout: readonly ChunkSpan[], facts: { nBases?: number }): void;
}

/** The intermediate files of a run, written chunk by chunk; `gate` is closed while a block goes to disk. */
class IntermediateFiles {
  private flushing = false;
  private lastFlush: Promise<unknown> = Promise.resolve();
  private readonly changes$ = new Subject<void>();
  readonly failure$ = new Subject<never>();
  readonly gate: CreditGate = { isOpen: () => !this.flushing, changes: this.changes$ };

  constructor(private readonly writer: PrepWriter) {}

  write(chunk: Chunk): void {
    // The chunk's frames are translated again by sixFrames: only with the intermediate files, and cheap beside the models.
    const flushed = this.writer.write(chunk, identifyFrames(chunk.id, chunk.sequence));
    if (!flushed) return;
    this.flushing = true;
    this.lastFlush = flushed;
    flushed.then(
      () => {
        this.flushing = false;
        this.changes$.next();
      },
      (error: unknown) => this.failure$.error(error),
    );
  }

  /** After the last chunk: its flush done (a failure fails the run), and nothing more can fail. */
  async settled(): Promise<void> {
    await this.lastFlush.catch(() => new Promise<never>(() => {})); // reported through failure$
    this.failure$.complete();
  }
}
