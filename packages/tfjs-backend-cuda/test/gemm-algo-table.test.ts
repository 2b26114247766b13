import { describe, expect, it } from 'vitest';
import { tunedGemmConfig, tunedGemmKeys } from '../src/gemm-algo-table.js';
import { gemmAlgoChoice } from '../src/cublaslt.js';

describe('measured cuBLASLt configurations (gemm-algo-table)', () => {
  const fc1 = { arch: 'sm_90', storage: 'bf16', inner: 2560, cols: 10240, bias: true, gelu: true } as const;

  it('finds a GEMM by architecture, storage, shape, bias and GELU, and nothing when one of them differs', () => {
    expect(tunedGemmConfig(fc1)).toMatchObject({ id: 66, tile: 408 });
    expect(tunedGemmConfig({ ...fc1, gelu: false })).toBeUndefined(); // another epilogue is another kernel
    expect(tunedGemmConfig({ ...fc1, arch: 'sm_89' })).toBeUndefined();
    expect(tunedGemmConfig({ ...fc1, storage: 'f16' })).toBeUndefined();
    expect(tunedGemmConfig({ ...fc1, storage: 'fp8', gelu: false })).toBeUndefined(); // within 1 % of the heuristic: not kept
    // fp8 with per-tensor scales writing E4M3 is a kernel of its own, as is the same GEMM writing bf16
    expect(tunedGemmConfig({ ...fc1, storage: 'fp8', scales: 'tensor', fp8Out: true })).toMatchObject({ id: 66, tile: 408, stages: 36 });
    expect(tunedGemmConfig({ ...fc1, storage: 'fp8', scales: 'tensor' })).toBeUndefined();
  });

  it('lists every key it can find, each once, and none for an architecture it has no measurements of', () => {
    const keys = tunedGemmKeys('sm_90');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(tunedGemmConfig(key)).toBeDefined();
    expect(new Set(keys.map((k) => JSON.stringify(k))).size).toBe(keys.length);
    expect(tunedGemmKeys('sm_80')).toEqual([]);
  });
});

describe('VIRNUCPRO_GEMM_ALGO', () => {
  it('defaults to the measured configurations and accepts the two A/B settings', () => {
    expect(gemmAlgoChoice({})).toBe('tuned');
    expect(gemmAlgoChoice({ VIRNUCPRO_GEMM_ALGO: '' })).toBe('tuned');
    expect(gemmAlgoChoice({ VIRNUCPRO_GEMM_ALGO: 'pinned' })).toBe('pinned');
    expect(gemmAlgoChoice({ VIRNUCPRO_GEMM_ALGO: 'per-rows' })).toBe('per-rows');
  });

  it('refuses a value it does not know, naming the ones it does', () => {
    expect(() => gemmAlgoChoice({ VIRNUCPRO_GEMM_ALGO: 'fastest' })).toThrow(/tuned, pinned, per-rows/);
  });
});
