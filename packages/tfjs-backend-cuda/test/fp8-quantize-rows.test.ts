import { describe, expect, it } from 'vitest';
import { ROW_WORDS_PER_THREAD } from '../src/cuda/fp8.js';
import { gegluQuantizeLaunch, quantizeRowsLaunch } from '../src/fp8-quantize-rows.js';

describe('quantizeRowsLaunch', () => {
  it('keeps rows in registers with just enough threads for ROW_WORDS_PER_THREAD words each', () => {
    // ESM-2 3B's fc1 output in bf16: 10,240 values = 1,280 words → 320 threads of 4 words.
    expect(quantizeRowsLaunch(10240, 8, { gelu: true, inRegisters: true })).toEqual({ kernel: 'gelu_quantize_rows_regs', block: [320, 1, 1] });
    expect(quantizeRowsLaunch(2560, 8, { gelu: false, inRegisters: true })).toEqual({ kernel: 'quantize_rows_regs', block: [96, 1, 1] });
    expect(quantizeRowsLaunch(64, 4, { gelu: false, inRegisters: true })).toEqual({ kernel: 'quantize_rows_regs', block: [32, 1, 1] });
    for (const cols of [16, 264, 2560, 3072, 10240, 32768]) {
      const { block } = quantizeRowsLaunch(cols, 8, { gelu: true, inRegisters: true });
      expect(block[0] % 32).toBe(0);
      expect(block[0] * ROW_WORDS_PER_THREAD).toBeGreaterThanOrEqual(cols / 8);
      expect(block[0]).toBeLessThanOrEqual(1024);
    }
  });

  it('reads rows twice when they are too long for the registers, when asked, or when no 16-byte word divides them', () => {
    expect(quantizeRowsLaunch(8 * ROW_WORDS_PER_THREAD * 1024, 8, { gelu: true, inRegisters: true }).kernel).toBe('gelu_quantize_rows_regs');
    expect(quantizeRowsLaunch(8 * (ROW_WORDS_PER_THREAD * 1024 + 1), 8, { gelu: true, inRegisters: true })).toEqual({ kernel: 'gelu_quantize_rows_vec', block: [256, 1, 1] });
    expect(quantizeRowsLaunch(10240, 8, { gelu: true, inRegisters: false })).toEqual({ kernel: 'gelu_quantize_rows_vec', block: [256, 1, 1] });
    expect(quantizeRowsLaunch(45, 8, { gelu: false, inRegisters: true })).toEqual({ kernel: 'quantize_rows', block: [256, 1, 1] });
  });
});

describe('gegluQuantizeLaunch', () => {
  it('fuses GeGLU with the fp8 rows of its output in registers, with just enough threads', () => {
    // DNABERT-S's GeGLU output in bf16: 3,072 values = 384 words → 96 threads of 4 words.
    expect(gegluQuantizeLaunch(3072, 8)).toEqual({ kernel: 'geglu_quantize_rows_regs', block: [96, 1, 1] });
    expect(gegluQuantizeLaunch(64, 8)).toEqual({ kernel: 'geglu_quantize_rows_regs', block: [32, 1, 1] });
    expect(gegluQuantizeLaunch(8 * ROW_WORDS_PER_THREAD * 1024, 8)).toEqual({ kernel: 'geglu_quantize_rows_regs', block: [1024, 1, 1] });
  });

  it('leaves GeGLU apart when no 16-byte word divides the row or the row is too long for the registers', () => {
    expect(gegluQuantizeLaunch(44, 8)).toBeUndefined();
    expect(gegluQuantizeLaunch(8 * (ROW_WORDS_PER_THREAD * 1024 + 1), 8)).toBeUndefined();
  });
});
