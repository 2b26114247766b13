/** How the bytes of a FASTA source are stored, decided from its first bytes (never from the file name). */
export type Compression = 'none' | 'gzip' | 'bgzf';

/** Magic numbers of formats we recognise but cannot decompress, so the error can say what the file is. */
const UNSUPPORTED: ReadonlyArray<{ magic: number[]; name: string }> = [
  { magic: [0x42, 0x5a, 0x68], name: 'bzip2' },
  { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'xz' },
  { magic: [0x28, 0xb5, 0x2f, 0xfd], name: 'zstd' },
  { magic: [0x50, 0x4b, 0x03, 0x04], name: 'zip' },
];

/** Bytes needed to recognise every format above. */
export const MAGIC_LENGTH = 18;

export type Detection = { compression: Compression } | { unsupported: string };

export function detectCompression(head: Uint8Array): Detection {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    return { compression: isBgzfHeader(head) ? 'bgzf' : 'gzip' };
  }
  for (const { magic, name } of UNSUPPORTED) {
    if (head.length >= magic.length && magic.every((b, i) => head[i] === b)) return { unsupported: name };
  }
  return { compression: 'none' };
}

/** BGZF = gzip members with FEXTRA holding a 'BC' subfield (SAM/BAM spec §4.1). */
function isBgzfHeader(head: Uint8Array): boolean {
  return head.length >= 14 && (head[3] & 0x04) !== 0 && head[12] === 0x42 && head[13] === 0x43;
}
