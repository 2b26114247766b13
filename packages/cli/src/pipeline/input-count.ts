import { MOSTLY_N_SHARE } from '@virnucpro/consensus';
import { readFastaBatches } from '@virnucpro/fasta-stream';
import { esmTokensFor, nBaseCount } from '@virnucpro/predict';
import { asciiStopFreeProteinLengths, chunkLayout, stopFreeProteinLengths } from '@virnucpro/sixframe';
import { UsageError } from '../errors.js';
import { AsciiSequence } from './ascii-sequence.js';
import type { InputCheck } from './input-check.js';
import { InputFingerprint } from './input-fingerprint.js';

export interface FrameCounts {
  /** Records of this run (of this shard with --shard), skipped ones included. */
  sequences: number;
  chunks: number;
  frames: number;
  /** ESM-2 tokens of those frames (residues + 2 each): what batches are packed on and the run's time goes with. */
  esmTokens: number;
  /** Records shorter than `minLength`, skipped (not chunked). */
  skipped: number;
  /** Records more than MOSTLY_N_SHARE of whose bases are N, and the first few of them for a warning. */
  mostlyN: number;
  mostlyNExamples: string[];
  /** Records of this run shorter than SHORT_RECORD_BASES (and not skipped), and the first few of them for a warning. */
  short: number;
  shortExamples: string[];
  /** The whole input's identity for --resume (input-fingerprint.ts), every record of it, selected or not. */
  fingerprint: string;
}

/**
 * Records shorter than this are scored, as the original scores them, but with a warning: their frames are a few
 * codons long, against the 300 and 500 bp chunks the MLPs were trained on.
 */
export const SHORT_RECORD_BASES = 50;

/**
 * The count runs on the main thread while the models load: after this many milliseconds of it, the event loop gets a
 * turn. A block of the input held it for ~50 ms at a time, and each step of the run's start (the MLP read, the output
 * folder, the workers' start and their messages) waited behind one: at 1M frames the models were ready ~2 s later
 * than without the count.
 */
const SLICE_MS = 5;

export interface CountOptions {
  /** The input rules; they see every record, selected or not, so each part of a sharded run refuses a bad input as the whole run would. */
  check?: InputCheck;
  /** 0-based record position in the input → in this run? (`--shard`). */
  select?: (recordIndex: number) => boolean;
  /** Records shorter than this are skipped (`--min-length`; default: none). */
  minLength?: number;
}

/**
 * The pass that reads the whole input before anything is written: `check` applies the input rules to every record,
 * an empty record is refused, and the sequences, chunks and frames a run will have are counted (the progress bar's
 * total), with the records --min-length skips and those that are mostly N, and the input's fingerprint is taken.
 */
export async function countFrames(input: string, chunkLength: number, options: CountOptions = {}): Promise<FrameCounts> {
  const { check, select, minLength = 0 } = options;
  const counts: FrameCounts = { sequences: 0, chunks: 0, frames: 0, esmTokens: 0, skipped: 0, mostlyN: 0, mostlyNExamples: [], short: 0, shortExamples: [], fingerprint: '' };
  const fingerprint = new InputFingerprint();
  const ascii = new AsciiSequence();
  let recordIndex = -1;
  let sliceStart = performance.now();
  try {
    // By batch (the records of one read), not one await a record: ~0.1 µs each on short reads.
    for await (const batch of readFastaBatches(input)) {
      for (const record of batch) {
        recordIndex++;
        if ((recordIndex & 255) === 0 && performance.now() - sliceStart > SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        fingerprint.add(record);
        // Encoded once for the per-base passes below (the input check, the frames).
        const bytes = ascii.bytes(record.sequence);
        const refusal = check?.record(record, recordIndex + 1, bytes);
        if (refusal) await refusal;
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
        if (length < minLength) {
          counts.skipped++;
          continue;
        }
        if (length < SHORT_RECORD_BASES) {
          counts.short++;
          if (counts.shortExamples.length < 3) counts.shortExamples.push(`'${record.id}' ${length} bp`);
        }
        // The frames and tokens the run will have, counted without building them (the run's framesFrom does).
        for (const span of chunkLayout(length, chunkLength)) {
          counts.chunks++;
          const lengths = bytes
            ? asciiStopFreeProteinLengths(bytes, span.start, span.end)
            : stopFreeProteinLengths(record.sequence.slice(span.start, span.end));
          for (const residues of lengths) {
            counts.frames++;
            counts.esmTokens += esmTokensFor(residues);
          }
        }
      }
    }
  } catch (error) {
    check?.dispose(); // the ids' scratch files, when a long input spilled them
    throw error;
  }
  await check?.finish();
  counts.fingerprint = fingerprint.digest();
  return counts;
}
