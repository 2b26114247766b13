// Python's str.isspace()/str.split()/str.rstrip() whitespace set, which differs from JavaScript's \s
// (Python adds \x1c-\x1f and \x85; JavaScript adds \ufeff). Biopython's id and description follow it.
const PY_WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

const ASCII_WHITESPACE = new Uint8Array(128);
for (const c of PY_WHITESPACE) if (c < 128) ASCII_WHITESPACE[c] = 1;

export function isPythonWhitespace(codeUnit: number): boolean {
  return codeUnit < 128 ? ASCII_WHITESPACE[codeUnit] === 1 : PY_WHITESPACE.has(codeUnit);
}

/** Python `text.rstrip()`. */
export function pythonRstrip(text: string): string {
  let end = text.length;
  while (end > 0 && isPythonWhitespace(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Python `text.split(None, 1)[0]`, or '' when the text is all whitespace. */
export function pythonFirstWord(text: string): string {
  let start = 0;
  while (start < text.length && isPythonWhitespace(text.charCodeAt(start))) start++;
  let end = start;
  while (end < text.length && !isPythonWhitespace(text.charCodeAt(end))) end++;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** ASCII whitespace bytes in Python's set: \t \n \v \f \r \x1c-\x1f and space. */
export function isAsciiPythonWhitespaceByte(byte: number): boolean {
  return (byte >= 0x09 && byte <= 0x0d) || (byte >= 0x1c && byte <= 0x20);
}

/**
 * Length of the trailing Python-whitespace run of bytes[start, end) (UTF-8), so a sequence line can be
 * right-stripped without decoding it. Non-ASCII whitespace (U+0085, U+00A0, U+2000…) is rare but handled.
 */
export function trailingWhitespaceStart(bytes: Uint8Array, start: number, end: number): number {
  let i = end;
  while (i > start) {
    const last = bytes[i - 1];
    if (last < 0x80) {
      if (!isAsciiPythonWhitespaceByte(last)) return i;
      i--;
      continue;
    }
    // Walk back to the lead byte of this UTF-8 character and test the code point.
    let lead = i - 1;
    while (lead > start && (bytes[lead] & 0xc0) === 0x80 && i - lead < 4) lead--;
    const cp = decodeCodePoint(bytes, lead, i);
    if (cp < 0 || !isPythonWhitespace(cp)) return i;
    i = lead;
  }
  return i;
}

function decodeCodePoint(bytes: Uint8Array, start: number, end: number): number {
  const b0 = bytes[start];
  const len = end - start;
  if (len === 2 && (b0 & 0xe0) === 0xc0) return ((b0 & 0x1f) << 6) | (bytes[start + 1] & 0x3f);
  if (len === 3 && (b0 & 0xf0) === 0xe0) {
    return ((b0 & 0x0f) << 12) | ((bytes[start + 1] & 0x3f) << 6) | (bytes[start + 2] & 0x3f);
  }
  return -1;
}
