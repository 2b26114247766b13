import { describe, expect, it } from 'vitest';
import { attentionMinBlocks } from '../src/attention-min-blocks.js';

describe('attentionMinBlocks', () => {
  it('is 5 on sm_90, where it was measured, and the compiler\'s choice (0) elsewhere', () => {
    expect(attentionMinBlocks('sm_90', {})).toBe(5);
    expect(attentionMinBlocks('sm_80', {})).toBe(0);
    expect(attentionMinBlocks('sm_89', { VIRNUCPRO_ATTENTION_MIN_BLOCKS: '' })).toBe(0);
  });

  it('takes $VIRNUCPRO_ATTENTION_MIN_BLOCKS on any GPU', () => {
    expect(attentionMinBlocks('sm_90', { VIRNUCPRO_ATTENTION_MIN_BLOCKS: '0' })).toBe(0);
    expect(attentionMinBlocks('sm_80', { VIRNUCPRO_ATTENTION_MIN_BLOCKS: '6' })).toBe(6);
  });

  it('refuses a value that is not a whole number from 0 to 8', () => {
    for (const bad of ['five', '-1', '9', '4.5']) {
      expect(() => attentionMinBlocks('sm_90', { VIRNUCPRO_ATTENTION_MIN_BLOCKS: bad })).toThrow(/VIRNUCPRO_ATTENTION_MIN_BLOCKS: '.*' is not a whole number from 0 to 8/);
    }
  });
});
