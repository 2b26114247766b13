// A sorted run of consensus groups on disk: the scratch file of the consensus csv's external sort
// (SpilledChunkMaxima). Binary, one entry a group: key length (UTF-16 units, u32), key (UTF-16LE, so any JS string
// comes back unchanged, lone surrogates included), max score1 (f32), max score2 (f32), frames (u32); little-endian.
// Written once and read once, front to back, a block at a time: memory is one block, whatever the run's size.

import { open, type FileHandle } from 'node:fs/promises';
import type { ChunkConsensus } from './consensus.js';

const BLOCK_BYTES = 1 << 20;
/** A reader's block: a merge reads up to MERGE_FAN_IN (128) runs at once. */
const READ_BYTES = 1 << 15;
const FIXED_BYTES = 4 + 4 + 4 + 4;

/** A block for `writeConsensusRun` to encode into, to be handed to each run written in turn (not to two at once). */
export function consensusRunBlock(): Buffer {
  return Buffer.allocUnsafe(BLOCK_BYTES);
}

/**
 * Writes the groups of `batches` (already sorted) to a new file at `path`, encoded in `given` (the caller hands the same block to its
 * next run: a new megabyte a run was memory outside V8's heap that only a full collection gave back); returns how
 * many were written.
 */
export async function writeConsensusRun(
  path: string,
  batches: Iterable<readonly ChunkConsensus[]> | AsyncIterable<readonly ChunkConsensus[]>,
  given: Buffer = consensusRunBlock(),
): Promise<number> {
  const file = await open(path, 'wx');
  try {
    let block = given;
    let used = 0;
    let count = 0;
    // Batches, not groups: an await per group (a merge's generator handing on one at a time) was most of a merge.
    for await (const batch of batches) {
      for (const g of batch) {
        const bytes = FIXED_BYTES + 2 * g.key.length;
        if (used + bytes > block.length) {
          await writeAll(file, block.subarray(0, used));
          used = 0;
          if (bytes > block.length) block = Buffer.allocUnsafe(bytes);
        }
        used = block.writeUInt32LE(g.key.length, used);
        used += block.write(g.key, used, 'utf16le');
        used = block.writeFloatLE(g.maxScore1, used);
        used = block.writeFloatLE(g.maxScore2, used);
        used = block.writeUInt32LE(g.frames, used);
        count++;
      }
    }
    await writeAll(file, block.subarray(0, used));
    return count;
  } finally {
    await file.close();
  }
}

async function writeAll(file: FileHandle, bytes: Buffer): Promise<void> {
  for (let at = 0; at < bytes.length; ) at += (await file.write(bytes, at, bytes.length - at)).bytesWritten;
}

/** Reads a file of writeConsensusRun back, group by group, in its order. */
export class ConsensusRunReader {
  /** Read into again and again: a new block each read made as much garbage outside V8's heap as the runs hold. */
  private buffer = Buffer.allocUnsafe(READ_BYTES);
  /** The bytes read and not yet taken: `buffer[0, block.length)`, unread from `at`. */
  private block = this.buffer.subarray(0, 0);
  private at = 0;
  private position = 0;
  private ended = false;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
  ) {}

  static async open(path: string): Promise<ConsensusRunReader> {
    return new ConsensusRunReader(path, await open(path, 'r'));
  }

  /** The next group, or undefined at the end of the file. */
  async next(): Promise<ChunkConsensus | undefined> {
    if (!(await this.ensure(4))) return undefined;
    const units = this.block.readUInt32LE(this.at);
    if (!(await this.ensure(FIXED_BYTES + 2 * units))) throw new Error(`${this.path}: cut short inside a group`);
    return this.decode(units);
  }

  /**
   * The next group when its bytes were read already, without awaiting (nearly every group: a block holds hundreds);
   * undefined otherwise, and then `next()` reads on. A merge awaiting every group spent most of its time in awaits.
   */
  nextBuffered(): ChunkConsensus | undefined {
    const left = this.block.length - this.at;
    if (left < 4) return undefined;
    const units = this.block.readUInt32LE(this.at);
    return left < FIXED_BYTES + 2 * units ? undefined : this.decode(units);
  }

  private decode(units: number): ChunkConsensus {
    let at = this.at + 4;
    const key = this.block.toString('utf16le', at, at + 2 * units);
    at += 2 * units;
    const maxScore1 = this.block.readFloatLE(at);
    const maxScore2 = this.block.readFloatLE(at + 4);
    const frames = this.block.readUInt32LE(at + 8);
    this.at = at + 12;
    return { key, isVirus: maxScore2 >= maxScore1, maxScore1, maxScore2, frames };
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /** At least `bytes` unread bytes in the block, reading more as needed; false at a clean end of the file. */
  private async ensure(bytes: number): Promise<boolean> {
    while (this.block.length - this.at < bytes) {
      if (this.ended) {
        if (this.block.length === this.at) return false;
        throw new Error(`${this.path}: cut short inside a group`);
      }
      // The unread rest moves to the front (nothing handed out points into the buffer: keys are decoded copies).
      const rest = this.block.length - this.at;
      if (bytes > this.buffer.length) {
        const larger = Buffer.allocUnsafe(bytes);
        this.block.copy(larger, 0, this.at);
        this.buffer = larger;
      } else this.buffer.copyWithin(0, this.at, this.block.length);
      const { bytesRead } = await this.file.read(this.buffer, rest, this.buffer.length - rest, this.position);
      this.position += bytesRead;
      if (bytesRead === 0) this.ended = true;
      this.block = this.buffer.subarray(0, rest + bytesRead);
      this.at = 0;
    }
    return true;
  }
}
