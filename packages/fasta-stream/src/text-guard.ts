import { FastaFormatError } from './fasta-format-error.js';
import type { Utf8Validator } from './utf8-validator.js';

// What every text parser of this package checks on a file's bytes before reading lines: the byte-order mark of its
// first chunk, and that no chunk is binary.

/** Bytes of a UTF-8 byte-order mark opening the file's first chunk (0 or 3); UTF-16 text is refused. */
export function byteOrderMarkLength(chunk: Buffer, file: string): number {
  if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) return 3;
  if (chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))) {
    throw new FastaFormatError(file, 1, 0, 'UTF-16 text is not supported; convert the file to UTF-8/ASCII');
  }
  return 0;
}

/**
 * Throws when `chunk` holds a NUL byte or invalid UTF-8 (binary data, not a `format` text file), naming the file,
 * the line (`lineAt(index)`) and the byte (`offset` of the chunk + index).
 */
export function guardBinary(chunk: Buffer, utf8: Utf8Validator, format: string, file: string, offset: number, lineAt: (index: number) => number): void {
  const nul = chunk.indexOf(0);
  const bad = utf8.check(nul === -1 ? chunk : chunk.subarray(0, nul));
  if (bad !== -1) throw new FastaFormatError(file, lineAt(bad), offset + bad, `invalid UTF-8: binary data, or not a ${format} text file`);
  if (nul !== -1) throw new FastaFormatError(file, lineAt(nul), offset + nul, `NUL byte: binary data, or not a ${format} text file`);
}
