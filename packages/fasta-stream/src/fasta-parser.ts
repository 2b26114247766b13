import { isAscii } from 'node:buffer';
import { ByteAccumulator } from './byte-accumulator.js';
import { FastaFormatError } from './fasta-format-error.js';
import type { FastaRecord } from './fasta-record.js';
import { pythonFirstWord, pythonRstrip, trailingWhitespaceStart } from './python-whitespace.js';
import { byteOrderMarkLength, guardBinary } from './text-guard.js';
import { Utf8Validator } from './utf8-validator.js';

const LF = 0x0a;
const CR = 0x0d;
const GT = 0x3e;
const SPACE = 0x20;
const SEMICOLON = 0x3b;
const NL_GT = Buffer.from('\n>', 'latin1');

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
  /** Line number of the first byte pushed, when parsing starts inside a file (default 1). */
  startLine?: number;
  /** Byte offset of the first byte pushed (default 0; a byte-order mark is only looked for at offset 0). */
  startByte?: number;
}

/** Where the bytes of the current line go. */
const enum LineKind {
  Leading,
  Header,
  Sequence,
  Skipped,
}

/**
 * Push parser: feed decompressed chunks, get records.
 *
 * Fast path (the usual file: ASCII, LF line ends, no tabs or other odd whitespace): the chunk is decoded
 * once to a one-byte string; each record's sequence is sliced out between native searches for "\n>" and
 * its line breaks dropped with String#replaceAll — no per-byte JavaScript. Anything else (CR, tabs,
 * spaces inside sequence lines, non-ASCII, ';' comments) goes through a byte loop that applies
 * Biopython's rules exactly; both paths can meet inside one record.
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
  /** Sequence pieces of the current record already turned into strings (fast path). */
  private parts: string[] = [];
  /** Width of the last sequence line seen by the byte fast path: where it expects the next line break. */
  private lineWidth = 60;
  /** Whether the current chunk is all ASCII. */
  private chunkAscii = true;
  /** False once bytes from a non-ASCII chunk went into the accumulator since it was last flushed. */
  private accAscii = true;
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
    this.line = options.startLine ?? 1;
    this.offset = options.startByte ?? 0;
    this.firstChunk = this.offset === 0;
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
      const bom = byteOrderMarkLength(chunk, this.file);
      this.offset += bom;
      chunk = chunk.subarray(bom);
    }
    guardBinary(chunk, this.utf8, 'FASTA', this.file, this.offset, (index) => this.lineAt(chunk, index));
    chunk = this.normaliseLoneCR(chunk);

    const n = chunk.length;
    this.chunkAscii = isAscii(chunk);
    const simple = this.isSimple(chunk);
    let text: string | undefined;
    let spaceAt = -1;
    let pos = 0;
    while (pos < n) {
      if (this.atLineStart) {
        this.atLineStart = false;
        const first = chunk[pos];
        if (first === GT && simple) {
          // Short records (reads): whole records inside this chunk are cut from one latin1 string.
          if (text === undefined) {
            const nextHeader = chunk.indexOf(NL_GT, pos);
            if (nextHeader !== -1 && nextHeader - pos < BYTES_PATH_MIN) text = asciiText(chunk);
          }
          if (text !== undefined) {
            const next = this.takeShortRecords(text, pos, out);
            if (next !== pos) {
              pos = next;
              this.atLineStart = true;
              continue;
            }
          }
        }
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
      if (this.kind === LineKind.Sequence) {
        if (simple) {
          // Native searches on the bytes; once a short region (reads) needed the chunk as text, on the text.
          const nextHeader = text === undefined ? chunk.indexOf(NL_GT, pos) : text.indexOf('\n>', pos);
          const end = nextHeader === -1 ? n : nextHeader + 1;
          if (spaceAt !== n && spaceAt < pos) {
            spaceAt = text === undefined ? chunk.indexOf(SPACE, pos) : text.indexOf(' ', pos);
            if (spaceAt === -1) spaceAt = n;
          }
          if (spaceAt >= end) {
            if (end - pos >= BYTES_PATH_MIN) this.takeSequenceBytes(chunk, pos, end);
            else this.takeSequenceText((text ??= asciiText(chunk)), pos, end);
            pos = end;
            if (chunk[end - 1] === LF) this.atLineStart = true;
            continue;
          }
        }
        pos = this.scanSequence(chunk, pos);
        continue;
      }
      const nl = chunk.indexOf(LF, pos);
      if (this.kind === LineKind.Header && nl !== -1 && this.headerParts.length === 0) {
        // Whole header inside this chunk: decode it straight from the chunk.
        this.startRecord(chunk.toString(simple ? 'latin1' : 'utf8', pos, nl));
        this.line++;
        this.atLineStart = true;
        pos = nl + 1;
        continue;
      }
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

  /**
   * The hot loop: copies sequence bytes without line breaks and spaces, right-strips each line, and
   * stops at a line starting with '>' (or ';' when those are comments) or at the end of the chunk.
   * One pass over the bytes in plain JS beats a native indexOf + copy call per 60–80-byte line.
   */
  private scanSequence(chunk: Buffer, start: number): number {
    const n = chunk.length;
    if (!this.chunkAscii) this.accAscii = false;
    const dst = this.sequence.reserve(n - start);
    let j = this.sequence.length;
    let lineStart = this.lineStart;
    let i = start;
    while (i < n) {
      const b = chunk[i++];
      if (b === LF) {
        j = trimLine(dst, lineStart, j);
        this.line++;
        if (i === n || chunk[i] === GT || (chunk[i] === SEMICOLON && this.semicolonComments)) {
          this.atLineStart = true;
          break;
        }
        lineStart = j;
      } else if (b !== SPACE) {
        dst[j++] = b;
      }
    }
    this.sequence.length = j;
    this.lineStart = lineStart;
    return i;
  }

  /**
   * Fast path for short records (reads) in a simple chunk: text[pos] is a '>' at a line start. Takes every
   * record that ends inside the chunk (its last line is followed by a '>' line) and has no space in its
   * sequence lines, cutting id, description and sequence straight out of the chunk's latin1 string
   * (ASCII, so latin1 = UTF-8). Returns where it stopped (a '>' at a line start), or `pos` when it took
   * nothing; the general path carries on from there.
   */
  private takeShortRecords(text: string, pos: number, out: FastaRecord[]): number {
    const n = text.length;
    let space = text.indexOf(' ', pos);
    if (space === -1) space = n;
    let line = this.line;
    const start = pos;
    for (;;) {
      const nl = text.indexOf('\n', pos + 1);
      if (nl === -1 || nl + 1 >= n) break;
      let end: number; // the LF ending the record's last line
      let sequence: string;
      if (text.charCodeAt(nl + 1) === GT) {
        end = nl;
        sequence = '';
      } else {
        const lineEnd = text.indexOf('\n', nl + 1);
        if (lineEnd === -1 || lineEnd + 1 >= n) break;
        end = text.charCodeAt(lineEnd + 1) === GT ? lineEnd : text.indexOf('\n>', lineEnd + 1);
        if (end === -1) break;
        let s = space;
        if (s <= nl) {
          s = text.indexOf(' ', nl + 1);
          if (s === -1) s = n;
        }
        if (s < end) break; // spaces inside sequence lines: the general path removes them
        sequence = end === lineEnd ? text.slice(nl + 1, end) : text.slice(nl + 1, end).replaceAll('\n', '');
        line += end - nl - 1 - sequence.length + 1;
      }
      const header = text.slice(pos + 1, nl);
      let id: string;
      let description: string;
      if (space >= nl) {
        id = description = header;
      } else if (space > pos + 1 && text.charCodeAt(nl - 1) !== SPACE) {
        description = header;
        id = text.slice(pos + 1, space);
      } else {
        description = pythonRstrip(header);
        id = pythonFirstWord(description);
      }
      if (this.inRecord) this.closeRecord(out);
      out.push({ id, description, sequence });
      line += 1;
      pos = end + 1;
      if (space < pos) {
        space = text.indexOf(' ', pos);
        if (space === -1) space = n;
      }
    }
    if (pos !== start) {
      this.line = line;
      this.kind = LineKind.Sequence;
      this.lineStart = this.sequence.length;
    }
    return pos;
  }

  /** Fast path: text[start, end) holds whole or partial sequence lines with no whitespace but LF. */
  private takeSequenceText(text: string, start: number, end: number): void {
    if (this.sequence.length > 0) {
      // Bytes from the slow path: a line they end may need right-stripping before they become a string.
      if (text.charCodeAt(start) === LF) this.sequence.length = trimLine(this.sequence.bytes, this.lineStart, this.sequence.length);
      this.flushBytes();
    }
    const region = text.slice(start, end);
    const part = region.replaceAll('\n', '');
    this.line += region.length - part.length;
    if (part.length > 0) this.parts.push(part);
    this.lineStart = 0;
  }

  /**
   * Fast path for long regions (multi-line sequences): chunk[start, end) holds sequence lines with no
   * whitespace but LF. The region is copied to the byte accumulator and its line breaks squeezed out in
   * place, one native copyWithin per line, guessing each break from the previous line's width; a final
   * native search removes any break the guess skipped (lines of varying width). The record's bytes
   * become one string when it closes.
   */
  private takeSequenceBytes(chunk: Buffer, start: number, end: number): void {
    const acc = this.sequence;
    // Bytes from the slow path ending a line right at this chunk's start: right-strip that line first.
    if (acc.length > 0 && chunk[start] === LF) acc.length = trimLine(acc.bytes, this.lineStart, acc.length);
    const base = acc.length;
    const dst = acc.reserve(end - start);
    chunk.copy(dst, base, start, end);
    const stop = base + (end - start);
    let width = this.lineWidth;
    let r = base;
    let w = base;
    while (r < stop) {
      let e = r + width;
      if (e >= stop || dst[e] !== LF) {
        e = dst.indexOf(LF, r);
        if (e === -1 || e >= stop) e = stop;
        else width = e - r;
      }
      if (w !== r) dst.copyWithin(w, r, e);
      w += e - r;
      r = e + 1;
    }
    // Only LF bytes were skipped above, but a line shorter than the guess may have kept its LF.
    let lf = dst.indexOf(LF, base);
    if (lf !== -1 && lf < w) {
      let out = lf;
      while (lf !== -1 && lf < w) {
        let next = dst.indexOf(LF, lf + 1);
        if (next === -1 || next > w) next = w;
        dst.copyWithin(out, lf + 1, next);
        out += next - lf - 1;
        lf = next;
        if (next === w) break;
      }
      w = out;
    }
    this.lineWidth = width;
    this.line += stop - base - (w - base);
    acc.length = w;
    this.lineStart = w;
  }

  private flushBytes(): void {
    const bytes = this.sequence.view();
    // 'ascii' = latin1 for ASCII bytes, and much faster for record-sized (MB) strings.
    if (bytes.length > 0) this.parts.push(this.accAscii || isAscii(bytes) ? bytes.toString('ascii') : bytes.toString('utf8'));
    this.sequence.reset();
    this.accAscii = true;
  }

  /** ASCII, no CR, no whitespace that Biopython would strip other than LF/space, no ';' comment rule. */
  private isSimple(chunk: Buffer): boolean {
    if (this.semicolonComments || this.pendingCR || !this.chunkAscii || chunk.indexOf(CR) !== -1) return false;
    for (const b of RARE_WHITESPACE) if (chunk.indexOf(b) !== -1) return false;
    return true;
  }

  private startRecord(header: string): void {
    this.description = pythonRstrip(header);
    this.id = pythonFirstWord(this.description);
    this.inRecord = true;
    this.kind = LineKind.Sequence;
    this.lineStart = this.sequence.length;
  }

  private takeLineBytes(chunk: Buffer, start: number, end: number, partial: boolean): void {
    switch (this.kind) {
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
        this.startRecord(raw.toString('utf8'));
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
    // Spaces were dropped while scanning: Biopython removes them anywhere (other inner whitespace stays).
    this.flushBytes();
    const parts = this.parts;
    const sequence = parts.length === 0 ? '' : parts.length === 1 ? parts[0] : parts.join('');
    this.parts = [];
    out.push({ id: this.id, description: this.description, sequence });
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

/**
 * The chunk (checked ASCII) as a one-byte string. 'ascii' rather than 'latin1': the same characters for
 * ASCII bytes, and Node makes chunks over ~1 MB external strings with one copy, where latin1 of a 128 KiB–1 MB
 * chunk is several times slower (V8 large-object allocation per chunk).
 */
function asciiText(chunk: Buffer): string {
  return chunk.toString('ascii');
}

/** Sequence regions at least this long take the byte fast path; shorter ones (reads) become strings directly. */
const BYTES_PATH_MIN = 4096;

/** Whitespace bytes that force the exact (byte loop) path: Biopython strips them at line ends only. */
const RARE_WHITESPACE = [0x09, 0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x1f];

/** Bytes other than space and LF that Python's rstrip() removes (ASCII); space/LF are never copied. */
const TRIMMABLE = new Uint8Array(256);
for (const b of [0x09, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x0a]) TRIMMABLE[b] = 1;

/** Right-strips the line dst[lineStart, end); returns the new end. */
function trimLine(dst: Uint8Array, lineStart: number, end: number): number {
  let j = end;
  while (j > lineStart) {
    const last = dst[j - 1];
    if (last >= 0x80) return trailingWhitespaceStart(dst, lineStart, j);
    if (TRIMMABLE[last] === 0) break;
    j--;
  }
  return j;
}
