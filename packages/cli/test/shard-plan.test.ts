// The --shard plan on its own: which part each record goes to, and the K/N flag.
import { describe, expect, it } from 'vitest';
import { assignParts } from '../src/sharding/shard-plan.js';
import { parseShardSpec } from '../src/sharding/shard-spec.js';

const loads = (lengths: number[], owner: Uint32Array, parts: number) => {
  const load = new Array<number>(parts).fill(0);
  lengths.forEach((n, i) => (load[owner[i]] += n));
  return load;
};

describe('assignParts (longest record first, to the lightest part)', () => {
  it('puts the big records apart and fills up with the small ones', () => {
    // 10 000 + 9 000 + 8 000 + 100 × 100: three parts that start with one big record each, then even out.
    const lengths = [100, 10_000, ...new Array(50).fill(100), 9_000, 8_000, ...new Array(50).fill(100)];
    const owner = assignParts(lengths, 3);
    const load = loads(lengths, owner, 3);
    expect(new Set([owner[1], owner[52], owner[53]]).size).toBe(3);
    expect(Math.max(...load) - Math.min(...load)).toBeLessThanOrEqual(100);
  });

  it('is a function of the lengths alone: same answer every time, ties by input order and lowest part', () => {
    const lengths = Array.from({ length: 1000 }, (_, i) => ((i * 7919) % 997) + 1);
    expect(assignParts(lengths, 7)).toEqual(assignParts([...lengths], 7));
    expect([...assignParts([5, 5, 5, 5], 4)]).toEqual([0, 1, 2, 3]);
    expect([...assignParts([1, 2], 4)]).toEqual([1, 0]);
  });

  it('balances within one record of the mean over many parts', () => {
    const lengths = Array.from({ length: 5000 }, (_, i) => 200 + ((i * 104729) % 4801));
    const owner = assignParts(lengths, 64);
    const load = loads(lengths, owner, 64);
    const mean = lengths.reduce((a, b) => a + b, 0) / 64;
    expect(Math.max(...load)).toBeLessThanOrEqual(mean + Math.max(...lengths));
    expect(Math.max(...load) - Math.min(...load)).toBeLessThanOrEqual(Math.max(...lengths));
  });
});

describe('parseShardSpec', () => {
  it('reads K/N', () => {
    expect(parseShardSpec('3/8')).toEqual({ index: 3, count: 8 });
    expect(parseShardSpec(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
  });
  it.each(['0/4', '5/4', '4', '1/', '/4', '-1/4', '1.5/4', 'x'])('refuses %s', (bad) => {
    expect(() => parseShardSpec(bad)).toThrow(/--shard: expected K\/N/);
  });
});
