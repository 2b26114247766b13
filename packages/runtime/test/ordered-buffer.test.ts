import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { toAsyncIterable } from '../src/ordered-buffer.js';

describe('toAsyncIterable', () => {
  it('hands over every value in order while thousands wait, in bursts and one at a time', async () => {
    const source = new Subject<number>();
    const iterator = toAsyncIterable(source, (v) => v * 2)[Symbol.asyncIterator]();
    const seen: number[] = [];
    let sent = 0;
    // Bursts larger than the queue's compaction threshold, with reads between them.
    for (const burst of [5000, 1, 3000, 1023, 1024, 2500]) {
      for (let i = 0; i < burst; i++) source.next(sent++);
      for (let i = 0; i < Math.floor(burst / 2); i++) seen.push((await iterator.next()).value as number);
    }
    source.complete();
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) seen.push(r.value as number);
    expect(seen).toEqual(Array.from({ length: sent }, (_, i) => i * 2));
  });

  it('ends with the error of a delivery that throws', async () => {
    const source = new Subject<number>();
    const iterator = toAsyncIterable(source, (v) => {
      if (v === 2000) throw new Error('bad value');
      return v;
    })[Symbol.asyncIterator]();
    for (let i = 0; i < 3000; i++) source.next(i);
    for (let i = 0; i < 2000; i++) expect((await iterator.next()).value).toBe(i);
    await expect(iterator.next()).rejects.toThrow('bad value');
  });
});
