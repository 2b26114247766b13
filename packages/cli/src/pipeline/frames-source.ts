import { readFasta } from '@virnucpro/fasta-stream';
import { MOSTLY_N_SHARE } from '@virnucpro/consensus';
import { chunkRecord, identifyFrames, type PrepWriter } from '@virnucpro/sixframe';
import { UsageError } from '../errors.js';
import type { FrameItem } from './frame-item.js';
import type { InputCheck } from './input-check.js';
import { nBaseCount } from './nucleotide-codes.js';

export interface FrameCounts {
  sequences: number;
  chunks: number;
  frames: number;
  esmTokens: number;
  /** Records shorter than `minLength`, skipped (not chunked). */
  skipped: number;
  /** Records more than MOSTLY_N_SHARE of whose bases are N, and the first few of them for a warning. */
  mostlyN: number;
  mostlyNExamples: string[];
}

export const emptyFrameCounts = (): FrameCounts => ({ sequences: 0, chunks: 0, frames: 0, esmTokens: 0, skipped: 0, mostlyN: 0, mostlyNExamples: [] });

/** What the reader tells about each record it reads (in input order, before the record's frames). */
export interface RecordSeen {
  id: string;
  /** 0-based position in the input. */
  recordIndex: number;
  length: number;
  /** Bases that are N or n. */
  nBases: number;
  /** Shorter than `minLength`: not chunked, no frames. */
  skipped: boolean;
}

export interface FramesOptions {
  /** With it, the three files of the original tool are written along the way by prep's writer (sixframe's PrepWriter), so they are prep's bytes. */
  intermediate?: PrepWriter;
  onRecord?: (record: RecordSeen) => void;
  /** The input rules; they see every record, selected or not, so each part of a sharded run refuses a bad input as the whole run would. */
  check?: InputCheck;
  /** 0-based record position in the input → run it? (`--shard`). */
  select?: (recordIndex: number) => boolean;
  /** Records shorter than this are skipped (`--min-length`; default: none). */
  minLength?: number;
}

/**
 * FASTA → VirNucPro chunks → kept six-frame translations, lazily (one record in memory at a time).
 * `counts` is updated as frames are pulled.
 */
export async function* framesFromFasta(input: string, chunkLength: number, counts: FrameCounts, options: FramesOptions = {}): AsyncGenerator<FrameItem> {
  const { intermediate, onRecord, check, select, minLength = 0 } = options;
  let recordIndex = -1;
  for await (const record of readFasta(input)) {
    recordIndex++;
    if (check) await check.record(record, recordIndex + 1);
    const length = record.sequence.length;
    if (length === 0) {
      // The original divides by zero on an empty record; say which one instead.
      throw new UsageError(`${input}: record #${recordIndex + 1} '${record.id}' has no sequence; remove it (VirNucPro cannot chunk an empty sequence)`);
    }
    if (select && !select(recordIndex)) continue;
    counts.sequences++;
    const nBases = nBaseCount(record.sequence);
    if (nBases > MOSTLY_N_SHARE * length) {
      counts.mostlyN++;
      if (counts.mostlyNExamples.length < 3) counts.mostlyNExamples.push(`'${record.id}' ${Math.round((100 * nBases) / length)}%`);
    }
    const skipped = length < minLength;
    onRecord?.({ id: record.id, recordIndex, length, nBases, skipped });
    if (skipped) {
      counts.skipped++;
      continue;
    }
    for (const chunk of chunkRecord(record, chunkLength)) {
      counts.chunks++;
      const frames = identifyFrames(chunk.id, chunk.sequence);
      const flushed = intermediate?.write(chunk, frames);
      if (flushed) await flushed;
      for (const frame of frames) {
        counts.frames++;
        counts.esmTokens += frame.protein.length + 2;
        yield frame;
      }
    }
  }
}

/**
 * Counts what framesFromFasta would produce (for progress totals), without keeping anything; `check` applies the
 * input rules to every record on the way (this is the pass that reads the whole input before anything is written).
 */
export async function countFrames(input: string, chunkLength: number, options: Pick<FramesOptions, 'check' | 'select' | 'minLength'> = {}): Promise<FrameCounts> {
  const counts = emptyFrameCounts();
  for await (const _ of framesFromFasta(input, chunkLength, counts, options)) void _;
  return counts;
}
