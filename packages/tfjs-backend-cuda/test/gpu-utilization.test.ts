import { describe, expect, it, vi } from 'vitest';
import { GpuUtilizationSampler, formatGpuUuid, nvmlUtilizationReader } from '../src/gpu-utilization.js';

describe('formatGpuUuid', () => {
  it("writes CUDA's 16 bytes the way NVML and nvidia-smi name a GPU", () => {
    const bytes = Uint8Array.from([0x7e, 0x0b, 0x31, 0x6c, 0x9a, 0x02, 0x4f, 0x11, 0x80, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x01, 0xff]);
    expect(formatGpuUuid(bytes)).toBe('GPU-7e0b316c-9a02-4f11-8000-deadbeef01ff');
    expect(() => formatGpuUuid(new Uint8Array(15))).toThrow(/16 bytes/);
  });
});

describe('GpuUtilizationSampler', () => {
  it('sums the samples it gets and skips failed reads', () => {
    const readings = [100, undefined, 40, 0];
    const sampler = new GpuUtilizationSampler(() => readings.shift());
    for (let i = 0; i < 4; i++) sampler.sampleNow();
    expect(sampler.current).toEqual({ samples: 3, percentSum: 140 });
  });

  it('stops, without throwing, at a reader that throws (it runs on a timer)', () => {
    let calls = 0;
    const sampler = new GpuUtilizationSampler(() => {
      calls++;
      if (calls === 2) throw new Error('NVML gone');
      return 80;
    });
    vi.useFakeTimers();
    try {
      sampler.start(200);
      expect(() => vi.advanceTimersByTime(1000)).not.toThrow();
      expect(calls).toBe(2); // not asked again after the throw
      expect(sampler.current).toEqual({ samples: 1, percentSum: 80 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('samples on a timer until stopped', () => {
    vi.useFakeTimers();
    try {
      const sampler = new GpuUtilizationSampler(() => 50);
      sampler.start(200);
      sampler.start(200); // a second start keeps the one timer
      vi.advanceTimersByTime(1000);
      sampler.stop();
      vi.advanceTimersByTime(1000);
      expect(sampler.current).toEqual({ samples: 5, percentSum: 250 });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('nvmlUtilizationReader', () => {
  it('is undefined where there is no CUDA driver (no throw)', () => {
    expect(nvmlUtilizationReader('/nonexistent/libcuda.so.1', 0)).toBeUndefined();
  });
});
