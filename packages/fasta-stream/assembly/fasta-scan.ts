// FASTA record scanner, compiled to WebAssembly (AssemblyScript, 128-bit SIMD). See scripts/build-wasm.mjs.
//
// scan() walks raw FASTA bytes. In sequence lines it looks at 64 bytes at a time and flags every byte
// that is not a letter-like residue ('A'..'~'): line feeds, '>', digits and punctuation, blanks, control
// and non-ASCII bytes. A block whose only flagged bytes are line feeds (most of a sequence) just has its
// line feeds counted, in vector lanes. A block with other flagged bytes is walked flag by flag: a '>' at
// the start of a line closes the open record and starts a header, which is crossed by searching for its
// line feed; other residues ('*', '-', digits, a '>' inside a line) are kept. Reads (records of one
// sequence line, as long as the one before) are crossed record to record: check that the line ends where
// the last one did and is followed by '>', check its bytes are residues, cross the header. Each record that ends is
// appended to the table as four u32: address of its '>', address of the LF ending its header (or the end
// of data), end of its sequence region (exclusive; the LF before the next '>' is not part of it), and its
// sequence length (the region's bytes less its LFs). Sequence bytes are neither copied nor turned into strings here.
//
// Anything that needs Biopython's finer rules (CR, spaces or tabs in sequence lines, control bytes,
// non-ASCII) makes scan() stop with BAIL; the reader then hands the rest of the input, from the open
// record's '>', to the general parser. Headers may hold spaces and tabs.

const DONE: i32 = 0;
const BAIL: i32 = 1;
const LF: u32 = 0x0a;
const GT: u32 = 0x3e;
const TAB: u32 = 0x09;

/** Inside a header line (after its '>', before its LF). */
export let inHeader: bool = false;
/** A record whose header is complete has not ended yet. */
export let recordOpen: bool = false;
/** Address of the open record's '>'. */
export let recordStart: usize = 0;
/** 1-based line number of the open record's header. */
export let recordLine: u32 = 0;
/** Address of the LF that ends the open record's header. */
export let headerEnd: usize = 0;
/** LFs before the next byte to scan (after BAIL: before the byte it stopped at). */
export let lines: u32 = 0;
/** 1 when the byte before the next one to scan is an LF, or the input starts there. */
export let prevLF: u32 = 1;
/** Length of the last record's sequence when it was one line (0 otherwise): the guess for the next one. */
let oneLine: usize = 0;
export let tablePtr: usize = 0;
export let tableCount: u32 = 0;
/** Where the last scan() stopped (the odd byte after BAIL). */
export let stop: usize = 0;

/** Mask of the bits below `bit` (all 64 when bit >= 64). */
@inline function below(bit: u64): u64 {
  return bit >= 64 ? <u64>-1 : (<u64>1 << bit) - 1;
}

@inline function bits(v: v128, shift: u64): u64 {
  return (<u64>i8x16.bitmask(v)) << shift;
}

/** Lanes set where a byte is not a letter-like residue: below 'A' (LF, '>', digits, blanks...) or DEL and above. */
@inline function flagged(v: v128): v128 {
  return i8x16.lt_s(i8x16.add(v, i8x16.splat(1)), i8x16.splat(0x42));
}

/** Lanes set where any of the 64 bytes at x is flagged. */
@inline function flaggedIn64(x: usize): v128 {
  return v128.or(v128.or(flagged(v128.load(x)), flagged(v128.load(x, 16))), v128.or(flagged(v128.load(x, 32)), flagged(v128.load(x, 48))));
}

/** Bit i set where byte i of the 64 at x is flagged. */
@inline function flaggedMask(x: usize): u64 {
  return bits(flagged(v128.load(x)), 0) | bits(flagged(v128.load(x, 16)), 16) | bits(flagged(v128.load(x, 32)), 32) | bits(flagged(v128.load(x, 48)), 48);
}

/** Bit i set where byte i of the 64 at x is an LF. */
@inline function lfMask(x: usize): u64 {
  const lf = i8x16.splat(<i8>LF);
  return bits(i8x16.eq(v128.load(x), lf), 0) | bits(i8x16.eq(v128.load(x, 16), lf), 16) | bits(i8x16.eq(v128.load(x, 32), lf), 32) | bits(i8x16.eq(v128.load(x, 48), lf), 48);
}

/** Lanes set for bytes a header may not hold other than tab: control bytes (LF too), DEL and above. */
@inline function control(v: v128): v128 {
  return i8x16.lt_s(i8x16.add(v, i8x16.splat(1)), i8x16.splat(0x21));
}

/** The LFs counted in i8 lanes (as negative counts) summed. */
@inline function laneSum(acc: v128): u32 {
  const pairs = i16x8.extadd_pairwise_i8x16_u(i8x16.neg(acc));
  const quads = i32x4.extadd_pairwise_i16x8_u(pairs);
  return i32x4.extract_lane(quads, 0) + i32x4.extract_lane(quads, 1) + i32x4.extract_lane(quads, 2) + i32x4.extract_lane(quads, 3);
}

@inline function push(seqEnd: usize, lfs: i32): void {
  const t = tablePtr + (<usize>tableCount << 4);
  const seqStart = headerEnd + 1 < seqEnd ? headerEnd + 1 : seqEnd;
  store<u32>(t, <u32>recordStart);
  store<u32>(t, <u32>headerEnd, 4);
  store<u32>(t, <u32>seqEnd, 8);
  store<u32>(t, <u32>(seqEnd - seqStart) - (lfs > 0 ? <u32>lfs : 0), 12);
  oneLine = lfs > 0 ? 0 : seqEnd - seqStart;
  tableCount++;
  recordOpen = false;
}

/**
 * Scans [start, end); `final` when no bytes follow. Up to 63 bytes after `end` are read (and ignored), so
 * they must be addressable. The caller keeps room in the table for (end - start) / 2 + 1 more records.
 */
export function scan(start: usize, end: usize, final: bool): i32 {
  let p = start;
  if (inHeader) {
    p = crossHeader(p, end);
    if (p != 0 && p < end) p = crossReads(p, end);
    if (p == 0) return BAIL;
  }
  while (p < end) {
    // Whole blocks of residues and LFs: count the LFs (in i8 lanes: at most 4 per block, flushed every 60 blocks).
    let from = p;
    let acc = i8x16.splat(0);
    let k = 0;
    while (p + 64 <= end) {
      const v0 = v128.load(p);
      const v1 = v128.load(p, 16);
      const v2 = v128.load(p, 32);
      const v3 = v128.load(p, 48);
      const n0 = i8x16.eq(v0, i8x16.splat(<i8>LF));
      const n1 = i8x16.eq(v1, i8x16.splat(<i8>LF));
      const n2 = i8x16.eq(v2, i8x16.splat(<i8>LF));
      const n3 = i8x16.eq(v3, i8x16.splat(<i8>LF));
      const f0 = flagged(v0);
      const f1 = flagged(v1);
      const f2 = flagged(v2);
      const f3 = flagged(v3);
      const odd = v128.or(v128.or(v128.xor(f0, n0), v128.xor(f1, n1)), v128.or(v128.xor(f2, n2), v128.xor(f3, n3)));
      if (v128.any_true(odd)) {
        flushed(acc, p, from);
        acc = i8x16.splat(0);
        const N = bits(n0, 0) | bits(n1, 16) | bits(n2, 32) | bits(n3, 48);
        const F = bits(f0, 0) | bits(f1, 16) | bits(f2, 32) | bits(f3, 48);
        p = walkBlock(p, end, 64, N, F);
        if (p == 0) return BAIL;
        from = p;
        continue;
      }
      acc = i8x16.add(acc, i8x16.add(i8x16.add(n0, n1), i8x16.add(n2, n3)));
      p += 64;
      if (++k == 60) {
        lines += laneSum(acc);
        acc = i8x16.splat(0);
        k = 0;
      }
    }
    flushed(acc, p, from);
    if (p >= end) break;
    // The last bytes (fewer than 64).
    const n: u64 = <u64>(end - p);
    const valid = below(n);
    p = walkBlock(p, end, n, lfMask(p) & valid, flaggedMask(p) & valid);
    if (p == 0) return BAIL;
  }
  stop = end;
  if (final) {
    if (inHeader) {
      headerEnd = end;
      inHeader = false;
      recordOpen = true;
      push(end, 0);
    }
    if (recordOpen) push(end, <i32>lines - <i32>recordLine);
  }
  return DONE;
}

/** Adds the LFs counted in lanes since `from` (blocks of residues and LFs that ended at p). */
@inline function flushed(acc: v128, p: usize, from: usize): void {
  if (p != from) {
    lines += laneSum(acc);
    prevLF = <u32>(load<u8>(p - 1) == LF);
  }
}

/**
 * Walks the flagged bytes F (LFs: N) of the n bytes at p. Returns where to go on (after the block, or
 * after a header it crossed), or 0 after BAIL.
 */
@inline function walkBlock(p: usize, end: usize, n: u64, N: u64, F: u64): usize {
  let events = F & ~N;
  while (events != 0) {
    const b = <u64>ctz(events);
    events &= events - 1;
    const at = p + <usize>b;
    const c = <u32>load<u8>(at);
    if (c == GT) {
      const lineStart = b == 0 ? prevLF : <u32>((N >> (b - 1)) & 1);
      if (lineStart == 0) continue; // a '>' inside a sequence line is a residue
      lines += <u32>popcnt(N & below(b));
      const next = startRecord(at, end);
      return next != 0 && next < end ? crossReads(next, end) : next;
    }
    if (c >= 0x21 && c <= 0x7e) continue; // punctuation or a digit: a residue
    // Blank, control or non-ASCII byte in a sequence line: the general parser decides.
    lines += <u32>popcnt(N & below(b));
    stop = at;
    return 0;
  }
  lines += <u32>popcnt(N);
  prevLF = <u32>((N >> (n - 1)) & 1);
  return p + <usize>n;
}

/** Ends the open record at the '>' at `at` (lines: the LFs before it) and crosses the new header. */
@inline function startRecord(at: usize, end: usize): usize {
  if (recordOpen) push(at - 1, <i32>lines - <i32>recordLine - 1);
  recordStart = at;
  recordLine = lines + 1;
  inHeader = true;
  return crossHeader(at + 1, end);
}

/**
 * Reads: from the sequence start p, crosses records whose sequence is one line as long as the last
 * record's, followed by the next header, without walking them block by block. Returns where to go on
 * (the first sequence that differs), `end` when a header goes on past the data, or 0 after BAIL.
 */
function crossReads(p: usize, end: usize): usize {
  while (oneLine != 0) {
    const lf = p + oneLine;
    if (lf + 1 >= end || load<u8>(lf) != <u8>LF || load<u8>(lf + 1) != <u8>GT || !residues(p, lf)) break;
    lines++;
    const next = startRecord(lf + 1, end);
    if (next == 0 || next >= end) return next;
    p = next;
  }
  return p;
}

/** True when every byte of [p, q) is a letter-like residue ('A'..'~'). */
@inline function residues(p: usize, q: usize): bool {
  if (q - p < 64) return (flaggedMask(p) & below(<u64>(q - p))) == 0;
  let odd = flaggedIn64(q - 64); // the last 64 bytes (may overlap those checked below)
  for (let x = p; x + 64 < q; x += 64) odd = v128.or(odd, flaggedIn64(x));
  return !v128.any_true(odd);
}

/**
 * Crosses the header whose bytes start at q: finds its LF, checking that it holds no control or
 * non-ASCII bytes (tabs may appear). Returns the byte after the LF, `end` when the header goes on past
 * the data (inHeader stays set), or 0 after BAIL.
 */
function crossHeader(q: usize, end: usize): usize {
  while (q < end) {
    const avail = end - q;
    let m = <u32>i8x16.bitmask(control(v128.load(q))) | (<u32>i8x16.bitmask(control(v128.load(q, 16))) << 16);
    if (avail < 32) m &= (<u32>1 << <u32>avail) - 1;
    while (m != 0) {
      const at = q + <usize>ctz(m);
      const c = <u32>load<u8>(at);
      if (c == LF) {
        headerEnd = at;
        inHeader = false;
        recordOpen = true;
        lines++;
        prevLF = 1;
        return at + 1;
      }
      if (c != TAB) {
        stop = at;
        return 0;
      }
      m &= m - 1;
    }
    q += 32;
  }
  return end;
}

/**
 * Shuffles for squeeze(): row r (0..15) drops byte r of a 16-byte vector (the rest move down one lane),
 * row 16 keeps all 16.
 */
const DROP_ONE = memory.data<u8>([
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
]);

/**
 * Copies [start, end) to `out` without its LF bytes; returns the end of what was written (16 bytes of slack
 * needed after it). A vector with no LF is stored whole and one with a single LF is shuffled to drop it (one
 * table row, no branch on where it is); only vectors with two or more LFs (lines under 16 bytes) go byte by byte.
 */
export function squeeze(start: usize, end: usize, out: usize): usize {
  const lf = i8x16.splat(0x0a);
  let p = start;
  let o = out;
  while (p < end) {
    const v = v128.load(p);
    const avail = end - p;
    const n: u32 = avail < 16 ? <u32>avail : 16;
    const m = <u32>i8x16.bitmask(i8x16.eq(v, lf)) & ((<u32>1 << n) - 1);
    const lfs = popcnt(m);
    if (lfs <= 1) {
      const row = DROP_ONE + (<usize>ctz(m | 0x10000) << 4);
      v128.store(o, i8x16.swizzle(v, v128.load(row)));
      o += <usize>(n - lfs);
    } else {
      for (let i: u32 = 0; i < n; i++) {
        const c = load<u8>(p + <usize>i);
        store<u8>(o, c);
        o += <usize>(c != 0x0a);
      }
    }
    p += <usize>n;
  }
  return o;
}
