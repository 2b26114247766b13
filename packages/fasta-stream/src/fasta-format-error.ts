/**
 * A FASTA input that cannot be read as FASTA: binary data, invalid UTF-8, a truncated or corrupt
 * gzip stream, an unsupported compression, or (in strict mode) text before the first record.
 * `line` is 1-based in the decompressed text; `byte` is a 0-based offset (decompressed, unless the
 * message says "compressed byte").
 */
export class FastaFormatError extends Error {
  override readonly name = 'FastaFormatError';
  readonly file: string;
  readonly line: number;
  readonly byte: number | undefined;

  constructor(file: string, line: number, byte: number | undefined, problem: string, options?: { cause?: unknown }) {
    const where = byte === undefined ? `line ${line}` : `line ${line}, byte ${byte}`;
    super(`${file}: ${where}: ${problem}`, options);
    this.file = file;
    this.line = line;
    this.byte = byte;
  }
}
