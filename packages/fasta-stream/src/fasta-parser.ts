import { isAscii } from 'node:buffer';
import { ByteAccumulator } from './byte-accumulator.js';
import { FastaFormatError } from './fasta-format-error.js';
import type { FastaRecord } from './fasta-record.js';
import { pythonFirstWord, pythonRstrip, trailingWhitespaceStart } from './python-whitespace.js';
import { Utf8Validator } from './utf8-validator.js';

const LF = 0x0a;
const CR = 0x0d;
const GT = 0x3e;
const SPACE = 0x20;
const SEMICOLON = 0x3b;

export interface FastaParserOptions {
  /** Name used in error messages (a path, or e.g. '<stdin>'). */
  file?: string;
  /**
   * Text before the first '>' line. 'skip' (default) drops it like Biopython (which warns that this will
   * become an error); 'error' rejects any non-blank line there.
   */
  leadingText?: 'skip' | 'error';
  /** Called once if non-blank text before the first record was skipped. */
  onWarning?: (message: string) => void;
  /**
   * Treat lines starting with ';' as comments (Pearson / 'fasta-pearson' convention). Default false:
   * Biopython's 'fasta' format keeps them as sequence text.
   */
  semicolonComments?: boolean;
}

/** Where the bytes of the current line go. */
const enum LineKind {
  Leading,
  Header,
  Sequence,
  Skipped,
}

/**
 * Push parser: feed decompressed chunks, get records. Scans with Buffer.indexOf (memchr) for line
 * breaks and copies sequence lines into one growable buffer, so the per-byte work is native.
 *
 * Line breaks follow Python's universal newlines (LF, CRLF and lone CR), as Biopython reads text mode.
 */
export class FastaParser {
  private readonly file: string;
  private readonly strictLeading: boolean;
  private readonly semicolonComments: boolean;
  private readonly onWarning: ((message: string) => void) | undefined;
  private readonly utf8 = new Utf8Validator();
  private readonly sequence = new ByteAccumulator();

  private kind: LineKind = LineKind.Leading;
  private atLineStart = true;
  private lineStart = 0;
  private headerParts: Buffer[] = [];
  private description = '';
  private id = '';
  private inRecord = false;
  private pendingCR = false;
  private leadingContent = false;
  private warnedLeading = false;
  private firstChunk = true;
  /** 1-based number of the line being read. */
  private line = 1;
  /** Decompressed bytes consumed before the current chunk. */
  private offset = 0;

  constructor(options: FastaParserOptions = {}) {
    this.file = options.file ?? '<stream>';
    this.strictLeading = options.leadingText === 'error';
    this.semicolonComments = options.semicolonComments ?? false;
    this.onWarning = options.onWarning;
  }

  /** Current position, for error messages raised outside the parser (e.g. by gunzip). */
  get position(): { line: number; byte: number } {
    return { line: this.line, byte: this.offset };
  }

  /** Parses one chunk; complete records are appended to `out`. */
  push(input: Buffer, out: FastaRecord[]): void {
    let chunk = input;
    if (this.firstChunk && chunk.length > 0) {
      this.firstChunk = false;
      chunk = this.skipByteOrderMark(chunk);
    }
    this.guardBinary(chunk);
    chunk = this.normaliseLoneCR(chunk);

    const n = chunk.length;
    let pos = 0;
    while (pos < n) {
      if (this.atLineStart) {
        this.atLineStart = false;
        const first = chunk[pos];
        if (first === GT) {
          this.closeRecord(out);
          this.kind = LineKind.Header;
          this.headerParts = [];
          pos++;
        } else if (this.kind === LineKind.Sequence) {
          if (this.semicolonComments && first === SEMICOLON) this.kind = LineKind.Skipped;
          else this.lineStart = this.sequence.length;
        }
      }
      const nl = chunk.indexOf(LF, pos);
      const end = nl === -1 ? n : nl;
      if (end > pos) this.takeLineBytes(chunk, pos, end, nl === -1);
      if (nl === -1) break;
      this.endLine();
      pos = nl + 1;
    }
    this.offset += n;
  }

  /** Flushes the last record at end of input. */
  finish(out: FastaRecord[]): void {
    if (!this.utf8.complete) {
      throw new FastaFormatError(this.file, this.line, this.offset, 'input ends inside a UTF-8 character (binary or truncated file?)');
    }
    if (!this.atLineStart) this.endLine();
    this.closeRecord(out);
  }

  private takeLineBytes(chunk: Buffer, start: number, end: number, partial: boolean): void {
    switch (this.kind) {
      case LineKind.Sequence:
        this.sequence.append(chunk, start, end);
        break;
      case LineKind.Header:
        // A header that continues in the next chunk must not keep the whole chunk alive.
        this.headerParts.push(partial ? Buffer.from(chunk.subarray(start, end)) : chunk.subarray(start, end));
        break;
      case LineKind.Leading:
        if (!this.leadingContent && pythonRstrip(chunk.toString('utf8', start, end)) !== '') this.leadingContent = true;
        break;
      case LineKind.Skipped:
        break;
    }
  }

  private endLine(): void {
    switch (this.kind) {
      case LineKind.Sequence: {
        const bytes = this.sequence.bytes;
        this.sequence.length = trailingWhitespaceStart(bytes, this.lineStart, this.sequence.length);
        break;
      }
      case LineKind.Header: {
        const raw = this.headerParts.length === 1 ? this.headerParts[0] : Buffer.concat(this.headerParts);
        this.headerParts = [];
        this.description = pythonRstrip(raw.toString('utf8'));
        this.id = pythonFirstWord(this.description);
        this.inRecord = true;
        this.kind = LineKind.Sequence;
        this.lineStart = this.sequence.length;
        break;
      }
      case LineKind.Leading:
        if (this.leadingContent) this.rejectOrWarnLeading();
        break;
      case LineKind.Skipped:
        this.kind = LineKind.Sequence;
        break;
    }
    this.line++;
    this.atLineStart = true;
  }

  private closeRecord(out: FastaRecord[]): void {
    if (!this.inRecord) return;
    let bytes = this.sequence.view();
    // Biopython removes spaces anywhere in sequence lines (other inner whitespace is kept).
    if (bytes.indexOf(SPACE) !== -1) bytes = withoutSpaces(bytes);
    const sequence = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    out.push({ id: this.id, description: this.description, sequence });
    this.sequence.reset();
    this.inRecord = false;
  }

  private rejectOrWarnLeading(): void {
    this.leadingContent = false;
    if (this.strictLeading) {
      throw new FastaFormatError(this.file, this.line, undefined, "expected a FASTA header line starting with '>' before any other text");
    }
    if (!this.warnedLeading) {
      this.warnedLeading = true;
      this.onWarning?.(`${this.file}: line ${this.line}: text before the first '>' record was ignored`);
    }
  }

  private skipByteOrderMark(chunk: Buffer): Buffer {
    if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
      this.offset += 3;
      return chunk.subarray(3);
    }
    if (chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))) {
      throw new FastaFormatError(this.file, 1, 0, 'UTF-16 text is not supported; convert the file to UTF-8/ASCII');
    }
    return chunk;
  }

  /** NUL bytes and invalid UTF-8 mean the input is not a text FASTA file. */
  private guardBinary(chunk: Buffer): void {
    const nul = chunk.indexOf(0);
    const bad = this.utf8.check(nul === -1 ? chunk : chunk.subarray(0, nul));
    if (bad !== -1) {
      throw new FastaFormatError(this.file, this.lineAt(chunk, bad), this.offset + bad, 'invalid UTF-8: binary data, or not a FASTA text file');
    }
    if (nul !== -1) {
      throw new FastaFormatError(this.file, this.lineAt(chunk, nul), this.offset + nul, 'NUL byte: binary data, or not a FASTA text file');
    }
  }

  private lineAt(chunk: Buffer, index: number): number {
    let line = this.line;
    for (let i = chunk.indexOf(LF); i !== -1 && i < index; i = chunk.indexOf(LF, i + 1)) line++;
    return line;
  }

  /**
   * A lone CR is a line break (Python universal newlines). CRLF needs nothing: the CR is trailing
   * whitespace and is stripped. A CR ending a chunk is decided by the next chunk's first byte.
   */
  private normaliseLoneCR(chunk: Buffer): Buffer {
    if (this.pendingCR && chunk.length > 0) {
      this.pendingCR = false;
      if (chunk.length > 0 && chunk[0] !== LF) this.endLine();
    }
    let cr = chunk.indexOf(CR);
    if (cr === -1) return chunk;
    let out = chunk;
    while (cr !== -1) {
      if (cr + 1 === chunk.length) {
        this.pendingCR = true;
      } else if (chunk[cr + 1] !== LF) {
        if (out === chunk) out = Buffer.from(chunk); // never modify the caller's buffer
        out[cr] = LF;
      }
      cr = chunk.indexOf(CR, cr + 1);
    }
    return out;
  }
}

function withoutSpaces(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length);
  let length = 0;
  let from = 0;
  for (let space = bytes.indexOf(SPACE); space !== -1; space = bytes.indexOf(SPACE, from)) {
    length += bytes.copy(out, length, from, space);
    from = space + 1;
  }
  length += bytes.copy(out, length, from);
  return out.subarray(0, length);
}
