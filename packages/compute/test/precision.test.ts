import { describe, expect, it } from 'vitest';
import { ComputeSettingError, checkPrecisionOption, precisionChoices } from '../src/index.js';
import { defaultPrecision, precisionNote, refinementPrecision, resolvePrecision } from '../src/precision.js';

describe('precision: one default, checked against the backend', () => {
  it('defaults to fp16 on cuda and fp32 on every other backend (auto: whatever it picked)', () => {
    expect(resolvePrecision('cuda', undefined)).toBe('fp16');
    expect(defaultPrecision('cuda')).toBe('fp16');
    for (const backend of ['cpu', 'wasm', 'webgpu', 'tensorflow'] as const) expect(resolvePrecision(backend, undefined)).toBe('fp32');
    expect(resolvePrecision('cuda', 'fp32')).toBe('fp32');
    expect(() => resolvePrecision('wasm', 'fp16', ' (picked by --backend auto)')).toThrow(/the wasm backend \(picked by --backend auto\) computes in fp32 only/);
    expect(() => checkPrecisionOption('auto', 'fp16')).not.toThrow();
    expect(() => checkPrecisionOption('cpu', 'bf16')).toThrow(ComputeSettingError);
  });

  it("offers, as choices, the precisions some backend computes in; fp8 on cuda only", () => {
    expect(precisionChoices).toEqual(['fp32', 'fp16', 'bf16', 'fp8']);
    expect(() => resolvePrecision('cpu', 'fp8')).toThrow(/--precision fp8 needs --backend cuda; the cpu backend computes in fp32 only/);
    expect(resolvePrecision('cuda', 'fp8')).toBe('fp8');
  });
});

describe('precisionNote', () => {
  it('warns, in one line, that fp8 is experimental and what it costs; the other precisions get no note', () => {
    const note = precisionNote('fp8')!;
    expect(note).toMatch(/fp8 is experimental/);
    expect(note).toMatch(/change label/);
    expect(note).toContain('docs/usage.md');
    expect(note).not.toContain('\n');
    for (const p of ['fp32', 'fp16', 'bf16'] as const) expect(precisionNote(p)).toBeUndefined();
  });
});

describe('refinementPrecision', () => {
  it('refines fp8 in bf16; the other precisions have nothing more accurate to refine in', () => {
    expect(refinementPrecision('fp8')).toBe('bf16');
    for (const p of ['fp32', 'fp16', 'bf16'] as const) expect(refinementPrecision(p)).toBeUndefined();
  });
});
