/** A growable byte buffer: sequence lines are copied in without their line breaks. */
export class ByteAccumulator {
  private static readonly INITIAL = 1 << 16;
  /** Above this capacity the buffer is released after each record, so one huge record does not pin memory. */
  private static readonly KEEP_LIMIT = 1 << 24;
  bytes: Buffer = Buffer.allocUnsafe(ByteAccumulator.INITIAL);
  length = 0;

  append(source: Buffer, start: number, end: number): void {
    const needed = this.length + (end - start);
    if (needed > this.bytes.length) this.grow(needed);
    source.copy(this.bytes, this.length, start, end);
    this.length = needed;
  }

  /** Makes room for `extra` more bytes and returns the backing buffer (valid until the next grow). */
  reserve(extra: number): Buffer {
    const needed = this.length + extra;
    if (needed > this.bytes.length) this.grow(needed);
    return this.bytes;
  }

  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
    if (this.bytes.length > ByteAccumulator.KEEP_LIMIT) this.bytes = Buffer.allocUnsafe(ByteAccumulator.INITIAL);
  }

  private grow(needed: number): void {
    let capacity = this.bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const next = Buffer.allocUnsafe(capacity);
    this.bytes.copy(next, 0, 0, this.length);
    this.bytes = next;
  }
}
