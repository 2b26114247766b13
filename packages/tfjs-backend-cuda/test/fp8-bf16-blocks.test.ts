import { describe, expect, it } from 'vitest';
import { describeFp8Bf16Blocks, fp8Bf16BlockCount, parseFp8Bf16Blocks } from '../src/fp8-bf16-blocks.js';

describe('fp8 bf16 blocks', () => {
  it('defaults to the first ceil(blocks/9): ESM-2 3B 4 of 36, DNABERT-S 2 of 12, a 6-block model 1', () => {
    const choice = parseFp8Bf16Blocks(undefined);
    expect([36, 12, 6, 33].map((b) => fp8Bf16BlockCount(choice, b))).toEqual([4, 2, 1, 4]);
    expect(parseFp8Bf16Blocks('  ')).toEqual(choice);
    expect(describeFp8Bf16Blocks(choice)).toBe('ceil(blocks/9)');
  });

  it('takes one count for every model, never more than a model has', () => {
    const choice = parseFp8Bf16Blocks('6');
    expect([36, 12, 4].map((b) => fp8Bf16BlockCount(choice, b))).toEqual([6, 6, 4]);
    expect(fp8Bf16BlockCount(parseFp8Bf16Blocks('0'), 36)).toBe(0);
    expect(describeFp8Bf16Blocks(choice)).toBe(6);
  });

  it('takes a count per model depth, the others keeping the default', () => {
    const choice = parseFp8Bf16Blocks('36:9, 12:12');
    expect([36, 12, 33].map((b) => fp8Bf16BlockCount(choice, b))).toEqual([9, 12, 4]);
    expect(describeFp8Bf16Blocks(choice)).toBe('36:9,12:12, else ceil(blocks/9)');
  });

  it('refuses what is neither', () => {
    for (const bad of ['-1', '4.5', 'all', '36:', ':4', '0:3', '36:4;12:2']) {
      expect(() => parseFp8Bf16Blocks(bad), bad).toThrow(/VIRNUCPRO_FP8_BF16_BLOCKS: .* neither a count of blocks/);
    }
  });
});
