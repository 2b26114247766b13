// framesFrom: records → the kept six-frame items sixframe gives them, each record declared (with its chunk layout)
// before its frames, paced by the run's demand; with intermediate files, prep's three files' bytes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject, lastValueFrom, tap, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkLayout, chunkRecord, identifyFrames } from '@virnucpro/sixframe';
import { formatSingleLineFasta, formatWrappedFasta, PrepWriter, prepOutputPaths } from '../src/index.js';
import { framesFrom } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'vnp-frames-from-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const records = [
  { id: 'short', sequence: 'ATGGCGAAACCCGGGTTTAAACCC'.repeat(5) },
  { id: 'long', sequence: 'GCCATGAAACCCGGGTTT'.repeat(4_000) }, // 72 kb: 144 chunks at 500
  { id: 'last', sequence: 'ATGNNNATGCCCAAATTTGGG'.repeat(30) },
];
const expected = records.flatMap((r) => chunkRecord(r, 500).flatMap((c) => identifyFrames(c.id, c.sequence)));

async function* pulled<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/** A demand open while fewer than `limit` frames wait for a consumer taking one per macrotask. */
function consumer(limit: number) {
  const changes = new Subject<void>();
  const state = { waiting: 0, maxWaiting: 0 };
  return {
    state,
    demand: { isOpen: () => state.waiting < limit, changes },
    take: () => {
      state.maxWaiting = Math.max(state.maxWaiting, ++state.waiting);
      setTimeout(() => {
        state.waiting--;
        changes.next();
      }, 0);
    },
  };
}

describe('framesFrom', () => {
  it("gives sixframe's frames in order, each record declared with its layout before its first frame, paced by the demand", async () => {
    const events: string[] = [];
    const c = consumer(32);
    const source = framesFrom(pulled(records), {
      chunkLength: 500,
      onRecord: (record, chunks) => {
        expect(chunks).toEqual(chunkLayout(record.sequence.length, 500));
        events.push(`record ${record.id}`);
      },
    });
    const frames = await lastValueFrom(source(c.demand).pipe(tap((f) => { events.push(f.id); c.take(); }), toArray()));
    expect(frames).toEqual(expected);
    for (const r of records) expect(events.indexOf(`record ${r.id}`)).toBe(events.indexOf(`${r.id}_chunk_1F1`) - 1);
    expect(c.state.maxWaiting).toBeLessThanOrEqual(32 + 5); // 864 frames of one record, never more than the demand + a chunk's
  });

  it("writes prep's three intermediate files on the way", async () => {
    const paths = prepOutputPaths(join(dir, 'prep'), 'in', 500);
    const intermediate = await PrepWriter.open(paths, { outDir: join(dir, 'prep') });
    const c = consumer(16);
    const frames = await lastValueFrom(framesFrom(pulled(records), { chunkLength: 500, intermediate })(c.demand).pipe(tap(() => c.take()), toArray()));
    await intermediate.commit();
    expect(frames).toEqual(expected);
    const chunks = records.flatMap((r) => chunkRecord(r, 500));
    expect(readFileSync(paths.chunked, 'utf8')).toBe(chunks.map((ch) => formatWrappedFasta(ch.id, ch.sequence)).join(''));
    expect(readFileSync(paths.nucleotide, 'utf8')).toBe(expected.map((f) => formatSingleLineFasta(f.id, f.nucleotide)).join(''));
    expect(readFileSync(paths.protein, 'utf8')).toBe(expected.map((f) => formatSingleLineFasta(f.id, f.protein)).join(''));
  });
});
