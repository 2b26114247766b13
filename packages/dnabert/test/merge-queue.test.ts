import { describe, expect, it } from 'vitest';
import { MergeQueue } from '../src/merge-queue.js';

/** Every bucket the queue gives, as [rank, positions]. */
function drain(queue: MergeQueue): Array<[number, number[]]> {
  const out: Array<[number, number[]]> = [];
  for (let count = queue.take(); count > 0; count = queue.take()) out.push([queue.rank, [...queue.positions.subarray(0, count)]]);
  return out;
}

describe('MergeQueue', () => {
  it('gives the lowest rank first, across bitmap words, and its positions in ascending order however pushed', () => {
    const queue = new MergeQueue(5000);
    queue.reset(16);
    for (const [rank, pos] of [[4000, 3], [33, 9], [31, 4], [33, 2], [0, 7], [33, 5], [32, 1], [0, 6]]) queue.push(rank, pos);
    expect(drain(queue)).toEqual([[0, [6, 7]], [31, [4]], [32, [1]], [33, [2, 5, 9]], [4000, [3]]]);
    expect(queue.take()).toBe(0);
  });

  it('takes pushes made while it is being drained (at higher ranks), and is empty and reusable after the last take', () => {
    const queue = new MergeQueue(100);
    queue.reset(8);
    queue.push(10, 5);
    expect(queue.take()).toBe(1);
    queue.push(40, 2);
    queue.push(11, 8);
    expect(drain(queue)).toEqual([[11, [8]], [40, [2]]]);
    queue.reset(1000);
    for (let pos = 999; pos >= 0; pos--) queue.push(99, pos);
    const [[rank, positions]] = drain(queue);
    expect(rank).toBe(99);
    expect(positions).toEqual(Array.from({ length: 1000 }, (_, i) => i));
  });
});
