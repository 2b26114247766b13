import type { FastaRecord } from './fasta-record.js';

/**
 * Records one at a time from an iterator of record arrays. Hand-written rather than an async generator with
 * `yield*`: a generator step costs ~0.2 µs per record, which doubled readFasta's time on 150-bp reads
 * (docs/benchmarks/fasta.md); here a record already read is handed out as a resolved promise.
 * Behaves as an async generator for the consumer: calls to next() are answered in order, return() closes
 * the source, and after the end, an error or return() every next() answers done.
 */
export class RecordIterator implements AsyncGenerator<FastaRecord, void, unknown> {
  private batch: FastaRecord[] = [];
  private index = 0;
  private finished = false;
  /** The pull in progress, if any: later next() calls wait for it so answers stay in order. */
  private pulling: Promise<IteratorResult<FastaRecord, void>> | undefined;

  constructor(private readonly batches: AsyncIterator<FastaRecord[]>) {}

  next(): Promise<IteratorResult<FastaRecord, void>> {
    if (this.pulling) {
      const after = () => this.next();
      return this.pulling.then(after, after);
    }
    if (this.index < this.batch.length) return Promise.resolve({ value: this.batch[this.index++], done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    const pull = this.pull();
    this.pulling = pull;
    const clear = () => {
      if (this.pulling === pull) this.pulling = undefined;
    };
    pull.then(clear, clear);
    return pull;
  }

  async return(): Promise<IteratorResult<FastaRecord, void>> {
    if (this.pulling) await this.pulling.catch(() => undefined);
    this.batch = [];
    if (!this.finished) {
      this.finished = true;
      await this.batches.return?.();
    }
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<FastaRecord, void>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  private async pull(): Promise<IteratorResult<FastaRecord, void>> {
    try {
      for (;;) {
        const next = await this.batches.next();
        if (next.done) {
          this.finished = true;
          return { value: undefined, done: true };
        }
        this.batch = next.value;
        this.index = 0;
        if (this.batch.length > 0) return { value: this.batch[this.index++], done: false };
      }
    } catch (error) {
      this.finished = true;
      throw error;
    }
  }
}
