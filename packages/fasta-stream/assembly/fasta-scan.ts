// FASTA record scanner, compiled to WebAssembly (AssemblyScript, 128-bit SIMD). See scripts/build-wasm.mjs.
//
// scan() walks raw FASTA bytes 64 at a time. Per block it builds three bit masks (LF, '>', bytes outside
// '!'..'~') and, when the block holds no header and nothing odd, only counts its line breaks: sequence
// bytes are neither copied nor turned into strings here (the reader does that on demand). Blocks with a
// header start ('>' right after LF) or odd bytes are walked bit by bit. Each record that ends is appended
// to the table as four u32: address of its '>', address of the LF ending its header (or the end of data),
// end of its sequence region (exclusive; the LF before the next '>' is not part of it), and the number of
// LFs inside that region.
//
// Anything that needs Biopython's finer rules (CR, spaces or tabs in sequence lines, control bytes,
// non-ASCII) makes scan() stop with BAIL; the reader then hands the rest of the input, from the open
// record's '>', to the general parser. Headers may hold spaces and tabs.

const DONE: i32 = 0;
const BAIL: i32 = 1;

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
/** LFs after the open record's header so far. */
export let newlines: u32 = 0;
/** LFs before the next block (after BAIL: before the byte it stopped at). */
export let lines: u32 = 0;
/** 1 when the byte before the next block is an LF, or the input starts there. */
export let prevLF: u64 = 1;
export let tablePtr: usize = 0;
export let tableCount: u32 = 0;
/** Where the last scan() stopped (the odd byte after BAIL). */
export let stop: usize = 0;

@inline function bits(v: v128, shift: u64): u64 {
  return (<u64>i8x16.bitmask(v)) << shift;
}

/** Bit i set where byte i of the 64 bytes equals `c`. */
@inline function equalMask(v0: v128, v1: v128, v2: v128, v3: v128, c: v128): u64 {
  return bits(i8x16.eq(v0, c), 0) | bits(i8x16.eq(v1, c), 16) | bits(i8x16.eq(v2, c), 32) | bits(i8x16.eq(v3, c), 48);
}

/** Bit i set where byte i of the 64 bytes lies outside [low, low + span). */
@inline function outsideMask(v0: v128, v1: v128, v2: v128, v3: v128, low: v128, span: v128): u64 {
  return (
    bits(i8x16.ge_u(i8x16.sub(v0, low), span), 0) |
    bits(i8x16.ge_u(i8x16.sub(v1, low), span), 16) |
    bits(i8x16.ge_u(i8x16.sub(v2, low), span), 32) |
    bits(i8x16.ge_u(i8x16.sub(v3, low), span), 48)
  );
}

/** Mask of the bits below `bit` (all 64 when bit >= 64). */
@inline function below(bit: u64): u64 {
  return bit >= 64 ? <u64>-1 : (<u64>1 << bit) - 1;
}

@inline function push(seqEnd: usize, lfs: u32): void {
  const t = tablePtr + (<usize>tableCount << 4);
  store<u32>(t, <u32>recordStart);
  store<u32>(t, <u32>headerEnd, 4);
  store<u32>(t, <u32>seqEnd, 8);
  store<u32>(t, lfs, 12);
  tableCount++;
  recordOpen = false;
}

/**
 * Scans [start, end); `final` when no bytes follow. Up to 63 bytes after `end` are read (and ignored), so
 * they must be addressable. The caller keeps room in the table for (end - start) / 2 + 1 more records.
 */
export function scan(start: usize, end: usize, final: bool): i32 {
  const lf = i8x16.splat(0x0a);
  const gt = i8x16.splat(0x3e);
  const low = i8x16.splat(0x21);
  const span = i8x16.splat(0x5e);
  let p = start;
  while (p < end) {
    const avail = end - p;
    const n: u64 = avail < 64 ? <u64>avail : 64;
    const v0 = v128.load(p);
    const v1 = v128.load(p, 16);
    const v2 = v128.load(p, 32);
    const v3 = v128.load(p, 48);
    const valid = below(n);
    const N = equalMask(v0, v1, v2, v3, lf) & valid;
    const X = outsideMask(v0, v1, v2, v3, low, span) & valid;
    const G = equalMask(v0, v1, v2, v3, gt) & valid;
    const H = G & ((N << 1) | prevLF);
    if (!inHeader && H == 0 && (X & ~N) == 0) {
      // Sequence lines only: count the line breaks.
      const c = <u32>popcnt(N);
      newlines += c;
      lines += c;
    } else if (walkBlock(p, n, N, X, H, v0, v1, v2, v3) == BAIL) {
      return BAIL;
    }
    prevLF = (N >> (n - 1)) & 1;
    p += <usize>n;
  }
  stop = end;
  if (final) {
    if (inHeader) {
      headerEnd = end;
      inHeader = false;
      recordOpen = true;
      newlines = 0;
    }
    if (recordOpen) push(end, newlines);
  }
  return DONE;
}

/** A block with a header start or odd bytes, walked event by event. */
@inline function walkBlock(p: usize, n: u64, N: u64, X: u64, H: u64, v0: v128, v1: v128, v2: v128, v3: v128): i32 {
  const seqBad = X & ~N;
  // Header lines may also hold spaces and tabs: bytes outside ' '..'~' other than tab and LF are odd there.
  let headerBad = outsideMask(v0, v1, v2, v3, i8x16.splat(0x20), i8x16.splat(0x5f)) & seqBad;
  if (headerBad != 0) headerBad &= ~equalMask(v0, v1, v2, v3, i8x16.splat(0x09));
  let pos: u64 = 0;
  while (pos < n) {
    const from = ~below(pos);
    if (inHeader) {
      const lfs = N & from;
      const e: u64 = lfs != 0 ? <u64>ctz(lfs) : n;
      const bad = headerBad & from & below(e);
      if (bad != 0) return bail(p, <u64>ctz(bad), N);
      if (e >= n) break;
      headerEnd = p + <usize>e;
      inHeader = false;
      recordOpen = true;
      newlines = 0;
      pos = e + 1;
      continue;
    }
    const h = H & from;
    const e: u64 = h != 0 ? <u64>ctz(h) : n;
    const range = from & below(e);
    const bad = seqBad & range;
    if (bad != 0) return bail(p, <u64>ctz(bad), N);
    newlines += <u32>popcnt(N & range);
    if (e >= n) break;
    // A header starts at bit e; the open record ends at the LF before it.
    if (recordOpen) push(p + <usize>e - 1, newlines > 0 ? newlines - 1 : 0);
    recordStart = p + <usize>e;
    recordLine = lines + <u32>popcnt(N & below(e)) + 1;
    inHeader = true;
    pos = e + 1;
  }
  lines += <u32>popcnt(N);
  return DONE;
}

function bail(p: usize, bit: u64, N: u64): i32 {
  stop = p + <usize>bit;
  lines += <u32>popcnt(N & below(bit));
  return BAIL;
}

/** Copies [start, end) to `out` without its LF bytes; returns the end of what was written (16 bytes of slack needed). */
export function squeeze(start: usize, end: usize, out: usize): usize {
  const lf = i8x16.splat(0x0a);
  let p = start;
  let o = out;
  while (p < end) {
    const v = v128.load(p);
    v128.store(o, v);
    const m = i8x16.bitmask(i8x16.eq(v, lf));
    const k: usize = m == 0 ? 16 : <usize>ctz(m);
    const avail = end - p;
    if (k >= avail) {
      o += avail;
      break;
    }
    o += k;
    p += k == 16 ? 16 : k + 1;
  }
  return o;
}
