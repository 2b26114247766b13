import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FastaFormatError, detectCompression } from '@virnucpro/fasta-stream';
import { biopythonParse } from './biopython-oracle.js';
import { chunkedStream, collect } from './helpers.js';

const data = new URL('../../../test-data/fasta/', import.meta.url);
const plain = readFileSync(new URL('test_with_orfs.fa', data));
const expected = biopythonParse(plain.toString('utf8'));

/** One BGZF block (SAM spec §4.1): a gzip member with FEXTRA subfield BC = total block size − 1. */
function bgzfBlock(payload: Buffer): Buffer {
  const deflated = deflateRawSync(payload);
  const header = Buffer.from([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43, 2, 0, 0, 0]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(payload), 0);
  trailer.writeUInt32LE(payload.length, 4);
  const block = Buffer.concat([header, deflated, trailer]);
  block.writeUInt16LE(block.length - 1, 16);
  return block;
}

function bgzf(bytes: Buffer, blockSize: number): Buffer {
  const blocks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += blockSize) blocks.push(bgzfBlock(bytes.subarray(i, i + blockSize)));
  blocks.push(bgzfBlock(Buffer.alloc(0))); // the EOF marker block
  return Buffer.concat(blocks);
}

describe('compressed input', () => {
  it('detects gzip and BGZF from magic bytes, not names', () => {
    expect(detectCompression(gzipSync(plain))).toEqual({ compression: 'gzip' });
    expect(detectCompression(bgzf(plain, 100))).toEqual({ compression: 'bgzf' });
    expect(detectCompression(plain)).toEqual({ compression: 'none' });
  });

  it('reads gzip, multi-member gzip and BGZF to the same records as the plain file', async () => {
    const multi = Buffer.concat([gzipSync(plain.subarray(0, 97)), gzipSync(plain.subarray(97, 200)), gzipSync(plain.subarray(200))]);
    for (const bytes of [gzipSync(plain), multi, bgzf(plain, 64)]) {
      expect(await collect(chunkedStream(bytes, [5, 17, 3]))).toEqual(expected);
    }
    const dir = mkdtempSync(join(tmpdir(), 'fasta-gz-'));
    const path = join(dir, 'no-extension'); // detection must not depend on the name
    writeFileSync(path, bgzf(plain, 50));
    expect(await collect(path)).toEqual(expected);
  });

  it('reports truncated gzip as a FastaFormatError naming the file and line', async () => {
    const gz = gzipSync(Buffer.concat([plain, plain, plain]));
    const dir = mkdtempSync(join(tmpdir(), 'fasta-gz-'));
    const path = join(dir, 'cut.fa.gz');
    writeFileSync(path, gz.subarray(0, gz.length - 30));
    const error = await collect(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastaFormatError);
    expect((error as FastaFormatError).file).toBe(path);
    expect((error as FastaFormatError).line).toBeGreaterThan(1);
    expect((error as Error).message).toMatch(/truncated gzip/);
    expect((error as Error).message).toContain(path);
  });

  it('names unsupported compressions instead of parsing them as text', async () => {
    const error = await collect(chunkedStream(Buffer.from('BZh91AY&SY\x00\x00\x00\x00\x00\x00\x00\x00', 'latin1'), [64]), { name: 'x.bz2' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FastaFormatError);
    expect((error as Error).message).toMatch(/^x\.bz2: line 1, byte 0: bzip2-compressed/);
  });
});
