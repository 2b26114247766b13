import { Subject, from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { restoreOrder } from '@virnucpro/packer';
import { randomInt, rng, shuffle } from './random.js';

describe('restoreOrder', () => {
  it('restores index order for random permutations', async () => {
    for (let seed = 1; seed <= 100; seed++) {
      const next = rng(seed);
      const n = randomInt(next, 0, 300);
      const values = Array.from({ length: n }, (_, index) => ({ index, text: `r${index}` }));
      const out = await lastValueFrom(from(shuffle(next, values)).pipe(restoreOrder(), toArray()));
      expect(out).toEqual(values);
    }
  });

  it('emits as soon as the gap is filled (does not wait for completion)', () => {
    const input = new Subject<{ index: number }>();
    const seen: number[] = [];
    input.pipe(restoreOrder()).subscribe((v) => seen.push(v.index));
    input.next({ index: 1 });
    input.next({ index: 2 });
    expect(seen).toEqual([]);
    input.next({ index: 0 });
    expect(seen).toEqual([0, 1, 2]);
    input.next({ index: 4 });
    input.next({ index: 3 });
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('fails on a duplicate index and on a missing index at completion', async () => {
    await expect(lastValueFrom(from([{ index: 0 }, { index: 0 }]).pipe(restoreOrder()))).rejects.toThrow(/duplicated/);
    await expect(lastValueFrom(from([{ index: 0 }, { index: 2 }]).pipe(restoreOrder()))).rejects.toThrow(/index 1 never arrived/);
  });

  it('honours firstIndex', async () => {
    const out = await lastValueFrom(from([{ index: 6 }, { index: 5 }]).pipe(restoreOrder({ firstIndex: 5 }), toArray()));
    expect(out.map((v) => v.index)).toEqual([5, 6]);
  });
});
