import { firstValueFrom, from, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { chunkRecord, chunkRecords, identifyFrames, sixFrames } from '../src/index.js';

describe('RxJS operators', () => {
  const records = [
    { id: 'a', sequence: 'GCC'.repeat(400) }, // 1200 bp → 3 chunks at 500, all six frames stop-free
    { id: 'b', sequence: 'ATGNNNATG' },
  ];

  it('chunkRecords emits every chunk of every record in order', async () => {
    const got = await firstValueFrom(from(records).pipe(chunkRecords(500), toArray()));
    expect(got.map((c) => c.id)).toEqual(['a_chunk_1', 'a_chunk_2', 'a_chunk_3', 'b_chunk_1']);
    expect(got).toEqual(records.flatMap((r) => chunkRecord(r, 500)));
  });

  it('sixFrames emits the kept frames of every chunk in order', async () => {
    const got = await firstValueFrom(from(records).pipe(chunkRecords(500), sixFrames(), toArray()));
    expect(got.slice(0, 6).map((f) => f.id)).toEqual(['a_chunk_1F1', 'a_chunk_1F2', 'a_chunk_1F3', 'a_chunk_1R1', 'a_chunk_1R2', 'a_chunk_1R3']);
    expect(got.slice(-2)).toEqual(identifyFrames('b_chunk_1', 'ATGNNNATG'));
    expect(got).toHaveLength(3 * 6 + 2);
  });

  it('chunkRecords errors on a zero-length record', async () => {
    await expect(firstValueFrom(from([{ id: 'z', sequence: '' }]).pipe(chunkRecords(500), toArray()))).rejects.toThrow(RangeError);
  });
});
