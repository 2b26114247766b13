import { isAscii } from 'node:buffer';
import { FastaFormatError } from './fasta-format-error.js';
import type { FastaRecord } from './fasta-record.js';
import { pythonFirstWord, pythonRstrip } from './python-whitespace.js';
import { byteOrderMarkLength, guardBinary } from './text-guard.js';
import { Utf8Validator } from './utf8-validator.js';

const LF = 0x0a;

export interface FastqParserOptions {
  /** Name used in error messages (a path, or e.g. '<stdin>'). */
  file?: string;
  /** Line number of the first byte pushed, when parsing starts inside a file (default 1). */
  startLine?: number;
  /** Byte offset of the first byte pushed (default 0; a byte-order mark is only looked for at offset 0). */
  startByte?: number;
}

/** Which line of a 4-line record comes next. */
const enum Next {
  Header,
  Sequence,
  Separator,
  Quality,
}

const SHAPE = "FASTQ records are 4 lines: '@' header, sequence, '+', qualities";

/**
 * Push parser for FASTQ: 4-line records (`@title`, sequence, `+` with nothing or the title again, one
 * quality character per base). Records come out as FastaRecords with Biopython's meaning (`id` = the title up
 * to the first whitespace, `description` = the right-stripped title); qualities are checked for length and
 * dropped. Anything else is a FastaFormatError naming the line and what was expected. Blank lines where a
 * header is expected are skipped. Multi-line (wrapped) FASTQ is refused at the line where '+' should be.
 *
 * Speed: each chunk's complete lines are decoded to one string and cut with native searches (four per
 * record); only a line split across chunks is joined from bytes.
 */
export class FastqParser {
  private readonly file: string;
  private readonly utf8 = new Utf8Validator();
  private next: Next = Next.Header;
  /** Bytes of a line that continues in the next chunk (copies: the caller may reuse its buffer). */
  private pending: Buffer[] = [];
  private title = '';
  private id = '';
  private sequence = '';
  private firstChunk: boolean;
  /** 1-based number of the line being read. */
  private line: number;
  /** Decompressed bytes consumed before the current chunk. */
  private offset: number;
  /** Next space / tab at or after the line being read in the current text (text.length when none). */
  private space = 0;
  private tab = 0;

  constructor(options: FastqParserOptions = {}) {
    this.file = options.file ?? '<stream>';
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
    guardBinary(chunk, this.utf8, 'FASTQ', this.file, this.offset, () => this.line);
    const n = chunk.length;
    let start = 0;
    if (this.pending.length > 0) {
      const nl = chunk.indexOf(LF);
      if (nl === -1) {
        this.pending.push(Buffer.from(chunk));
        this.offset += n;
        return;
      }
      const joined = Buffer.concat([...this.pending, chunk.subarray(0, nl + 1)]);
      this.pending = [];
      this.takeLines(joined.toString(isAscii(joined) ? 'latin1' : 'utf8'), out);
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) {
      const whole = chunk.subarray(start, last + 1);
      // Complete lines only, so no UTF-8 character is cut; 'ascii' is the fast decoder for ASCII bytes.
      this.takeLines(whole.toString(isAscii(whole) ? 'ascii' : 'utf8'), out);
      start = last + 1;
    }
    if (start < n) this.pending.push(Buffer.from(chunk.subarray(start)));
    this.offset += n;
  }

  /** Takes a last line without a line break, and fails if the input ends inside a record. */
  finish(out: FastaRecord[]): void {
    if (!this.utf8.complete) {
      throw new FastaFormatError(this.file, this.line, this.offset, 'input ends inside a UTF-8 character (binary or truncated file?)');
    }
    if (this.pending.length > 0) {
      const joined = Buffer.concat(this.pending);
      this.pending = [];
      this.takeLines(joined.toString('utf8') + '\n', out);
    }
    if (this.next !== Next.Header) {
      const expected = this.next === Next.Sequence ? 'its sequence line' : this.next === Next.Separator ? "its '+' line" : 'its quality line';
      throw new FastaFormatError(this.file, this.line, undefined, `the input ends inside FASTQ record '${this.id}' (expected ${expected}; ${SHAPE})`);
    }
  }

  /** `text` holds whole lines, each ending with LF. */
  private takeLines(text: string, out: FastaRecord[]): void {
    const n = text.length;
    this.space = this.tab = -1;
    let pos = 0;
    while (pos < n) {
      const nl = text.indexOf('\n', pos);
      // Right-strip (CRLF, trailing blanks) only when the line ends in whitespace: the usual line does not.
      const last = text.charCodeAt(nl - 1);
      const end = nl > pos && (last <= 0x20 || last >= 0x80) ? pos + pythonRstrip(text.slice(pos, nl)).length : nl;
      switch (this.next) {
        case Next.Header:
          if (end === pos) break; // a blank line between records
          if (text.charCodeAt(pos) !== 0x40) this.fail(`expected a FASTQ header line starting with '@', got ${quote(text, pos, end)} (${SHAPE})`);
          this.title = text.slice(pos + 1, end);
          this.id = pythonFirstWord(this.title);
          this.next = Next.Sequence;
          break;
        case Next.Sequence:
          if (this.space < pos) this.space = found(text.indexOf(' ', pos), n);
          if (this.tab < pos) this.tab = found(text.indexOf('\t', pos), n);
          if (this.space < end || this.tab < end) {
            const at = Math.min(this.space, this.tab) - pos + 1;
            this.fail(`record '${this.id}': whitespace at sequence position ${at} (a FASTQ sequence is one line of bases without blanks)`);
          }
          this.sequence = text.slice(pos, end);
          this.next = Next.Separator;
          break;
        case Next.Separator:
          if (text.charCodeAt(pos) !== 0x2b) {
            this.fail(`record '${this.id}': expected the '+' line after the sequence, got ${quote(text, pos, end)} (${SHAPE}; wrapped multi-line FASTQ is not read)`);
          }
          if (end > pos + 1 && text.slice(pos + 1, end) !== this.title) {
            this.fail(`record '${this.id}': the '+' line repeats a different title than the '@' line (it may be empty or the same)`);
          }
          this.next = Next.Quality;
          break;
        case Next.Quality:
          if (end - pos !== this.sequence.length) {
            this.fail(`record '${this.id}': ${end - pos} quality characters for ${this.sequence.length} bases (expected one per base; ${SHAPE})`);
          }
          out.push({ id: this.id, description: this.title, sequence: this.sequence });
          this.next = Next.Header;
          break;
      }
      this.line++;
      pos = nl + 1;
    }
  }

  private fail(problem: string): never {
    throw new FastaFormatError(this.file, this.line, undefined, problem);
  }
}

/** Whether decompressed input starting with these bytes is FASTQ: its first byte (after a UTF-8 byte-order mark) is '@'. */
export function startsAsFastq(head: Uint8Array): boolean {
  const bom = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return head[bom] === 0x40;
}

function found(index: number, none: number): number {
  return index === -1 ? none : index;
}

/** A line for an error message: quoted, cut at 40 characters. */
function quote(text: string, start: number, end: number): string {
  if (end === start) return 'a blank line';
  return JSON.stringify(end - start > 40 ? `${text.slice(start, start + 40)}…` : text.slice(start, end));
}
