import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../src/bounded-cache.js';

describe('BoundedCache', () => {
  it('keeps the most recently used entries and evicts the oldest, each once', () => {
    const evicted: string[] = [];
    const cache = new BoundedCache<number, string>(3, (value) => evicted.push(value));
    for (let rows = 1; rows <= 3; rows++) cache.set(rows, `plan ${rows}`);
    expect(cache.get(1)).toBe('plan 1'); // 1 is now the newest: 2 goes first
    cache.set(4, 'plan 4');
    cache.set(5, 'plan 5');
    expect(evicted).toEqual(['plan 2', 'plan 3']);
    expect(cache.size).toBe(3);
    expect([2, 3].map((k) => cache.get(k))).toEqual([undefined, undefined]);
    expect([1, 4, 5].map((k) => cache.get(k))).toEqual(['plan 1', 'plan 4', 'plan 5']);
  });

  it('stays at its capacity however many distinct keys pass through it', () => {
    let evictions = 0;
    const cache = new BoundedCache<number, { rows: number }>(16, () => evictions++);
    for (let rows = 1; rows <= 10_000; rows++) {
      cache.set(rows, { rows });
      cache.get(rows);
    }
    expect(cache.size).toBe(16);
    expect(evictions).toBe(10_000 - 16);
  });

  it('evicts a replaced value, not a value set again', () => {
    const evicted: string[] = [];
    const cache = new BoundedCache<string, string>(4, (value, key) => evicted.push(`${key}=${value}`));
    cache.set('a', 'x');
    cache.set('a', 'x');
    cache.set('a', 'y');
    cache.set('b', 'z');
    expect(evicted).toEqual(['a=x']);
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBe('y');
  });

  it('keeps null values (a shape cuBLASLt has no plan for) as entries', () => {
    const cache = new BoundedCache<string, null>(2, () => {});
    cache.set('fp8 odd shape', null);
    expect(cache.size).toBe(1);
    expect(cache.get('fp8 odd shape')).toBeNull();
  });

  it('refuses a capacity that cannot hold a plan', () => {
    expect(() => new BoundedCache(0, () => {})).toThrow(/positive integer/);
  });
});
