import type { ByteSource } from './byte-source.js';
import type { FastaScanner } from './fasta-scanner.js';

interface Read {
  done: Promise<number>;
  at: number;
  length: number;
}

/**
 * Keeps up to `input.concurrency` reads in flight into the scanner's window, each landing right after the
 * one before, and hands their bytes to the scanner in source order. The window is compacted or grown only
 * when no read is in flight (reads address its memory).
 */
export class ReadAhead {
  private queue: Read[] = [];

  /** @param position source offset of the first byte not read yet */
  constructor(
    private readonly input: ByteSource,
    private readonly scanner: FastaScanner,
    public position: number,
  ) {}

  /** Issues reads until enough are in flight or the window is full. Call only while no block is out. */
  fill(): void {
    if (this.queue.length === 0) this.scanner.prepareWindow();
    while (this.queue.length < this.input.concurrency) {
      const target = this.scanner.readTarget(this.queue.length);
      if (target === undefined) break;
      this.queue.push({ done: this.input.readAt(target, this.position), at: this.position, length: target.length });
      this.position += target.length;
    }
  }

  /** Waits for the oldest read and adds its bytes to the scanner's window; 0 at the end of the input. */
  async next(): Promise<number> {
    if (this.queue.length === 0) this.fill();
    const read = this.queue.shift()!;
    const n = await read.done;
    this.scanner.filled += n;
    if (n < read.length) {
      // A short read (the end, or a partial read): later reads landed past a gap; read again from here.
      await this.settle();
      this.position = read.at + n;
    }
    return n;
  }

  /** Adds every read in flight to the window, in order (before the window is handed to another reader). */
  async drain(): Promise<void> {
    while (this.queue.length > 0) await this.next();
  }

  /** Waits for the reads in flight and drops them (errors included). */
  async settle(): Promise<void> {
    const reads = this.queue;
    this.queue = [];
    await Promise.allSettled(reads.map((r) => r.done));
  }
}
