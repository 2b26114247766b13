import { BufferedAtomicFile, makeDirectory, type StagedOutput } from '@virnucpro/atomic-file';
import type { Chunk, Frame } from '@virnucpro/sixframe';
import type { PrepOutputPaths } from './file-names.js';

/**
 * Writes VirNucPro's three intermediate files (chunked FASTA wrapped at 60 columns; identified nucleotide and
 * protein FASTA, one line per sequence) atomically, as one StagedOutput: nothing appears under the final names until
 * `commit()` (or `complete()` then `publish()`), and `discard()` leaves nothing behind. Reusable by any command that keeps the intermediates.
 */
export class PrepWriter implements StagedOutput {
  private constructor(
    readonly paths: PrepOutputPaths,
    private readonly chunked: BufferedAtomicFile | undefined,
    private readonly nucleotide: BufferedAtomicFile,
    private readonly protein: BufferedAtomicFile,
  ) {}

  /** Opens temp files next to `paths` (creating the directory). `chunked: false` skips the chunked file. */
  static async open(paths: PrepOutputPaths, options: { chunked?: boolean; outDir?: string } = {}): Promise<PrepWriter> {
    if (options.outDir) await makeDirectory(options.outDir);
    const opened: BufferedAtomicFile[] = [];
    try {
      const chunked = options.chunked === false ? undefined : await BufferedAtomicFile.create(paths.chunked);
      if (chunked) opened.push(chunked);
      const nucleotide = await BufferedAtomicFile.create(paths.nucleotide);
      opened.push(nucleotide);
      const protein = await BufferedAtomicFile.create(paths.protein);
      opened.push(protein);
      return new PrepWriter(paths, chunked, nucleotide, protein);
    } catch (err) {
      await Promise.all(opened.map((w) => w.discard()));
      throw err;
    }
  }

  /**
   * Appends one chunk (`>{id}` + 60-column lines, as Biopython writes it) and its kept frames (`>{id}\n{seq}\n`
   * in both files, as the original's f-string writer). Returns a
   * promise when buffered bytes went to disk; await it before writing more.
   */
  write(chunk: Chunk, frames: readonly Frame[]): Promise<unknown> | undefined {
    const { chunked, nucleotide, protein } = this;
    if (chunked) {
      chunked.writeByte(GT);
      chunked.writeText(chunk.id);
      chunked.writeByte(LF);
      chunked.writeWrapped(chunk.sequence, 60);
    }
    for (const frame of frames) {
      writeLineRecord(nucleotide, frame.id, frame.nucleotide);
      writeLineRecord(protein, frame.id, frame.protein);
    }
    const full = this.writers().filter((w) => w.full);
    return full.length ? Promise.all(full.map((w) => w.flush())) : undefined;
  }

  /** Syncs all three files first, then renames them, so a failure (e.g. disk full) publishes none of them. */
  async commit(): Promise<void> {
    await this.publish();
  }

  async complete(): Promise<void> {
    await Promise.all(this.writers().map((w) => w.complete()));
  }

  async publish(): Promise<void> {
    await this.complete();
    for (const w of this.writers()) await w.publish();
  }

  async discard(): Promise<void> {
    await Promise.all(this.writers().map((w) => w.discard()));
  }

  private writers(): BufferedAtomicFile[] {
    return [this.chunked, this.nucleotide, this.protein].filter((w): w is BufferedAtomicFile => w !== undefined);
  }
}

const GT = 0x3e;
const LF = 0x0a;

function writeLineRecord(file: BufferedAtomicFile, id: string, sequence: string): void {
  file.writeByte(GT);
  file.writeText(id);
  file.writeByte(LF);
  file.writeAscii(sequence);
  file.writeByte(LF);
}
