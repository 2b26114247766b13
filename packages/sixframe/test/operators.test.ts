import { Observable, Subject, firstValueFrom, from, lastValueFrom, tap, toArray } from 'rxjs';
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

describe('chunkRecords paced by a demand', () => {
  /** A demand open while fewer than `limit` frames wait for a consumer that takes one frame per macrotask. */
  function slowConsumer(limit: number) {
    const changes = new Subject<void>();
    let waiting = 0;
    let maxWaiting = 0;
    const demand = { isOpen: () => waiting < limit, changes };
    return {
      demand,
      get maxWaiting() { return maxWaiting; },
      take() {
        waiting++;
        maxWaiting = Math.max(maxWaiting, waiting);
        setTimeout(() => {
          waiting--;
          changes.next();
        }, 0);
      },
    };
  }

  /** What `pull$` from @virnucpro/runtime does: one record per read, only while the demand is open. */
  function pulled(records: { id: string; sequence: string }[], demand: { isOpen(): boolean; changes: Subject<void> }, onRead: (i: number) => void) {
    return new Observable<{ id: string; sequence: string }>((subscriber) => {
      void (async () => {
        for (let i = 0; i < records.length && !subscriber.closed; i++) {
          while (!demand.isOpen()) await firstValueFrom(demand.changes);
          await Promise.resolve(); // a read takes a turn, as reading a file does
          onRead(i);
          subscriber.next(records[i]);
        }
        subscriber.complete();
      })();
    });
  }

  it('holds one record at a time and keeps the frames in flight near the demand, whatever the record size', async () => {
    // One 600 kb record (1,200 chunks at 500: 7,200 frames) among short ones.
    const records = [{ id: 's1', sequence: 'GCC'.repeat(100) }, { id: 'big', sequence: 'GCC'.repeat(200_000) }, ...Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, sequence: 'GCCA'.repeat(50 + i) }))];
    const consumer = slowConsumer(64);
    let read = 0;
    let finished = 0; // records whose last chunk went out
    let maxHeld = 0;
    const lastChunk = new Map(records.map((r) => [`${r.id}_chunk_${chunkRecord(r, 500).length}`, true]));
    const frames = await lastValueFrom(
      pulled(records, consumer.demand, () => {
        read++;
        maxHeld = Math.max(maxHeld, read - finished);
      }).pipe(
        chunkRecords(500, consumer.demand),
        tap((chunk) => {
          if (lastChunk.has(chunk.id)) finished++;
        }),
        sixFrames(),
        tap(() => consumer.take()),
        toArray(),
      ),
    );
    expect(frames).toEqual(await firstValueFrom(from(records).pipe(chunkRecords(500), sixFrames(), toArray())));
    expect(frames.length).toBeGreaterThan(7_200);
    expect(maxHeld).toBe(1); // the next record is read only once the previous one's chunks are all out
    expect(consumer.maxWaiting).toBeLessThanOrEqual(64 + 5); // a chunk's frames (≤ 6) go out together
  });

  it('sends nothing while the demand is closed, and goes on when it reopens', async () => {
    const changes = new Subject<void>();
    let open = false;
    const got: string[] = [];
    const done = lastValueFrom(from([{ id: 'a', sequence: 'GCC'.repeat(400) }]).pipe(chunkRecords(500, { isOpen: () => open, changes }), tap((c) => got.push(c.id)), toArray()));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(got).toEqual([]);
    open = true;
    changes.next();
    expect((await done).map((c) => c.id)).toEqual(['a_chunk_1', 'a_chunk_2', 'a_chunk_3']);
  });
});
