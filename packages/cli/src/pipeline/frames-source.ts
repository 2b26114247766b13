import { readFasta } from '@virnucpro/fasta-stream';
import { chunkRecord, identifyFrames, type PrepWriter } from '@virnucpro/sixframe';
import { UsageError } from '../errors.js';
import type { FrameItem } from './frame-item.js';
import type { InputCheck } from './input-check.js';

export interface FrameCounts {
  sequences: number;
  chunks: number;
  frames: number;
  esmTokens: number;
}

/**
 * FASTA → VirNucPro chunks → kept six-frame translations, lazily (one record in memory at a time).
 * `counts` is updated as frames are pulled. With `intermediate`, the three files of the original tool are
 * written along the way by the writer `virnucpro prep` uses (sixframe's PrepWriter), so they are prep's bytes.
 * `select` (0-based record position in the input → keep it?) runs a part of the input (`--shard`); `check`
 * still sees every record, so each part refuses a bad input as the whole run would.
 */
export async function* framesFromFasta(
  input: string,
  chunkLength: number,
  counts: FrameCounts,
  intermediate?: PrepWriter,
  onRecord?: (id: string, chunks: number, recordIndex: number, length: number) => void,
  check?: InputCheck,
  select?: (recordIndex: number) => boolean,
): AsyncGenerator<FrameItem> {
  let recordIndex = -1;
  for await (const record of readFasta(input)) {
    recordIndex++;
    if (check) await check.record(record, recordIndex + 1);
    if (record.sequence.length === 0) {
      // The original divides by zero on an empty record; say which one instead.
      throw new UsageError(`${input}: record #${recordIndex + 1} '${record.id}' has no sequence; remove it (VirNucPro cannot chunk an empty sequence)`);
    }
    if (select && !select(recordIndex)) continue;
    counts.sequences++;
    const chunks = chunkRecord(record, chunkLength);
    onRecord?.(record.id, chunks.length, recordIndex, record.sequence.length);
    for (const chunk of chunks) {
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
export async function countFrames(input: string, chunkLength: number, check?: InputCheck, select?: (recordIndex: number) => boolean): Promise<FrameCounts> {
  const counts: FrameCounts = { sequences: 0, chunks: 0, frames: 0, esmTokens: 0 };
  for await (const _ of framesFromFasta(input, chunkLength, counts, undefined, undefined, check, select)) void _;
  return counts;
}
