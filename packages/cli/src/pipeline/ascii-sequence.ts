/**
 * A sequence's characters as bytes, for passes that read every base: on the strings a FASTA block is cut into
 * (slices of one block's text), a `charCodeAt` loop costs ~3 ns a base; one encode and byte loops, a fraction.
 * Only ASCII text is given as bytes (a byte is then a character); other text keeps the string passes.
 */
export class AsciiSequence {
  private static readonly encoder = new TextEncoder();
  private scratch = new Uint8Array(1 << 12);

  /** `sequence`'s bytes (valid until the next call; read `[0, sequence.length)`), or undefined if it is not ASCII. */
  bytes(sequence: string): Uint8Array | undefined {
    const n = sequence.length;
    if (this.scratch.length < n) this.scratch = new Uint8Array(n * 2);
    const { read, written } = AsciiSequence.encoder.encodeInto(sequence, this.scratch);
    // Every character read and one byte each: ASCII.
    return read === n && written === n ? this.scratch : undefined;
  }
}
