import { mkdir } from 'node:fs/promises';
import { AtomicFileWriter } from './atomic-file-writer.js';
import type { Chunk } from './chunk-record.js';
import { formatSingleLineFasta, formatWrappedFasta } from './fasta-format.js';
import type { PrepOutputPaths } from './file-names.js';
import type { Frame } from './identify-frames.js';

/**
 * Writes VirNucPro's three intermediate files (chunked FASTA wrapped at 60 columns; identified nucleotide and
 * protein FASTA, one line per sequence) atomically: nothing appears under the final names until `commit()`, and
 * `abort()` leaves nothing behind. Reusable by any command that keeps the intermediates.
 */
export class PrepWriter {
  private constructor(
    readonly paths: PrepOutputPaths,
    private readonly chunked: AtomicFileWriter | undefined,
    private readonly nucleotide: AtomicFileWriter,
    private readonly protein: AtomicFileWriter,
  ) {}

  /** Opens temp files next to `paths` (creating the directory). `chunked: false` skips the chunked file. */
  static async open(paths: PrepOutputPaths, options: { chunked?: boolean; outDir?: string } = {}): Promise<PrepWriter> {
    if (options.outDir) await mkdir(options.outDir, { recursive: true });
    const opened: AtomicFileWriter[] = [];
    try {
      const chunked = options.chunked === false ? undefined : await AtomicFileWriter.create(paths.chunked);
      if (chunked) opened.push(chunked);
      const nucleotide = await AtomicFileWriter.create(paths.nucleotide);
      opened.push(nucleotide);
      const protein = await AtomicFileWriter.create(paths.protein);
      opened.push(protein);
      return new PrepWriter(paths, chunked, nucleotide, protein);
    } catch (err) {
      await Promise.all(opened.map((w) => w.abort()));
      throw err;
    }
  }

  /** Queues one chunk and its kept frames; the promise (if any) resolves when buffered text reached disk. */
  write(chunk: Chunk, frames: readonly Frame[]): Promise<unknown> | undefined {
    const pending: Promise<void>[] = [];
    const c = this.chunked?.write(formatWrappedFasta(chunk.id, chunk.sequence));
    if (c) pending.push(c);
    if (frames.length > 0) {
      let nt = '';
      let aa = '';
      for (const frame of frames) {
        nt += formatSingleLineFasta(frame.id, frame.nucleotide);
        aa += formatSingleLineFasta(frame.id, frame.protein);
      }
      const n = this.nucleotide.write(nt);
      if (n) pending.push(n);
      const p = this.protein.write(aa);
      if (p) pending.push(p);
    }
    return pending.length ? Promise.all(pending) : undefined;
  }

  /** Syncs all three files first, then renames them, so a failure (e.g. disk full) publishes none of them. */
  async commit(): Promise<void> {
    const writers = this.writers();
    await Promise.all(writers.map((w) => w.finish()));
    for (const w of writers) await w.publish();
  }

  async abort(): Promise<void> {
    await Promise.all(this.writers().map((w) => w.abort()));
  }

  private writers(): AtomicFileWriter[] {
    return [this.chunked, this.nucleotide, this.protein].filter((w): w is AtomicFileWriter => w !== undefined);
  }
}
