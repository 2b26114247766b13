import { describe, expect, it } from 'vitest';
import { byteSize } from '../src/progress/byte-size.js';

describe('byteSize', () => {
  it('reads as ls -h --si does', () => {
    expect([0, 999, 1000, 14_230, 999_999, 1_300_000, 2_049_000_000].map(byteSize)).toEqual(['0 B', '999 B', '1.0 kB', '14.2 kB', '1000.0 kB', '1.3 MB', '2.0 GB']);
  });
});
