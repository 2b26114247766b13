import { access, constants, stat } from 'node:fs/promises';
import { readFastaBatches, recordHeaderLine } from '@virnucpro/fasta-stream';
import { chunkRecord, identifyFrames } from '@virnucpro/sixframe';
import { inputStem, prepOutputPaths, type PrepOutputPaths } from './file-names.js';
import { PrepInputError } from './prep-input-error.js';
import { PrepWriter } from './prep-writer.js';

export interface PrepCounts {
  /** Input records read. */
  records: number;
  /** Input bases (sequence characters) read. */
  bases: number;
  /** Chunks written to the chunked file. */
  chunks: number;
  /** Kept frames written to the nucleotide and protein files. */
  frames: number;
  /** Records shorter than `minLength`, skipped (counted in `records` and `bases` too). */
  skipped: number;
}

export interface PrepOptions {
  /** Chunk size C (the original's expected length): 300 or 500 for the released models. */
  chunkSize: number;
  /** Directory for the three output files (created if missing). */
  outDir: string;
  /** Output name stem; default: the input file name up to its first `.fa` (see {@link inputStem}). */
  stem?: string;
  /** Records shorter than this many bases are skipped (not chunked; counted in `skipped`). Default: none, as the original. */
  minLength?: number;
  /** Called after every batch of records (a few hundred KiB of input). */
  onProgress?: (counts: Readonly<PrepCounts>) => void;
  /** Aborting removes the temp files and rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface PrepSummary extends PrepCounts {
  paths: PrepOutputPaths;
}

// Printable ASCII except '>' (and space, which the reader already removes). Anything else would not survive the
// original's round trip through its 60-column intermediate file unchanged (whitespace at a line end is stripped,
// a '>' at a line start becomes a header), so its output is not well defined and the record is rejected.
const NOT_A_SEQUENCE_CHARACTER = /[^!-=?-~]/;

/**
 * VirNucPro stages 1–2 as one streaming pass: reads the FASTA input, chunks every record, keeps every stop-free
 * frame of each chunk, and writes `{stem}_chunked{C}.fa`, `{stem}_identified_nucleotide.fa` and
 * `{stem}_identified_protein.faa` into `outDir`, byte-identical to the original tool. Memory is bounded by one
 * record plus the write buffers. The files appear only when complete; on any error none is left behind.
 *
 * Bad input rejects with {@link PrepInputError} (or the reader's `FastaFormatError`): missing/unreadable file,
 * empty file, no records, text before the first header, a zero-length record (the original divides by zero),
 * a sequence character outside printable ASCII or a '>'.
 */
export async function prepFasta(input: string, options: PrepOptions): Promise<PrepSummary> {
  const { chunkSize, outDir, signal } = options;
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunk size must be a positive integer, got ${chunkSize}`);
  await checkReadableFile(input);
  signal?.throwIfAborted();

  const paths = prepOutputPaths(outDir, options.stem ?? inputStem(input), chunkSize);
  const writer = await PrepWriter.open(paths, { outDir });
  const counts: PrepCounts = { records: 0, bases: 0, chunks: 0, frames: 0, skipped: 0 };
  const minLength = options.minLength ?? 0;
  try {
    for await (const batch of readFastaBatches(input, { leadingText: 'error' })) {
      for (const record of batch) {
        counts.records++;
        const { sequence } = record;
        if (sequence.length === 0) {
          throw new PrepInputError(input, await recordHeaderLine(input, counts.records),
            `record '${record.id}' has an empty sequence (expected at least one base; the original tool fails on it with ZeroDivisionError)`);
        }
        const bad = NOT_A_SEQUENCE_CHARACTER.exec(sequence);
        if (bad) {
          const c = bad[0];
          throw new PrepInputError(input, await recordHeaderLine(input, counts.records),
            `record '${record.id}': character ${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) at sequence position ${bad.index + 1} is not a sequence letter (expected printable ASCII such as ACGT, IUPAC codes or N)`);
        }
        counts.bases += sequence.length;
        if (sequence.length < minLength) {
          counts.skipped++;
          continue;
        }
        for (const chunk of chunkRecord(record, chunkSize)) {
          const frames = identifyFrames(chunk.id, chunk.sequence);
          counts.chunks++;
          counts.frames += frames.length;
          const flushed = writer.write(chunk, frames);
          if (flushed) await flushed;
        }
      }
      options.onProgress?.(counts);
      signal?.throwIfAborted();
    }
    if (counts.records === 0) {
      throw new PrepInputError(input, undefined, "no FASTA records (expected a header line starting with '>')");
    }
    await writer.commit();
  } catch (err) {
    await writer.discard();
    throw err;
  }
  return { ...counts, paths };
}

async function checkReadableFile(input: string): Promise<void> {
  let info;
  try {
    info = await stat(input);
    await access(input, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new PrepInputError(input, undefined, `cannot read the input FASTA: ${why}`);
  }
  if (info.isDirectory()) throw new PrepInputError(input, undefined, 'is a folder, not a FASTA file');
  if (!info.isFile() && !info.isFIFO()) throw new PrepInputError(input, undefined, 'is not a regular file (expected a FASTA file)');
  if (info.isFile() && info.size === 0) throw new PrepInputError(input, undefined, "empty file (expected FASTA records starting with '>')");
}
