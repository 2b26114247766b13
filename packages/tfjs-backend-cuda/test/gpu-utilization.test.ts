import { describe, expect, it, vi } from 'vitest';
import { GpuUtilizationSampler, decodeUtilizationSamples, formatGpuUuid, nvmlUtilizationReader, type UtilizationSample } from '../src/gpu-utilization.js';

describe('formatGpuUuid', () => {
  it("writes CUDA's 16 bytes the way NVML and nvidia-smi name a GPU", () => {
    const bytes = Uint8Array.from([0x7e, 0x0b, 0x31, 0x6c, 0x9a, 0x02, 0x4f, 0x11, 0x80, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x01, 0xff]);
    expect(formatGpuUuid(bytes)).toBe('GPU-7e0b316c-9a02-4f11-8000-deadbeef01ff');
    expect(() => formatGpuUuid(new Uint8Array(15))).toThrow(/16 bytes/);
  });
});

describe('decodeUtilizationSamples', () => {
  it("reads nvmlSample_t entries (u64 µs timestamp, u32 value in the 8-byte union), oldest first", () => {
    const buffer = new Uint8Array(3 * 16);
    const view = new DataView(buffer.buffer);
    const put = (i: number, t: bigint, percent: number) => {
      view.setBigUint64(i * 16, t, true);
      view.setUint32(i * 16 + 8, percent, true);
      view.setUint32(i * 16 + 12, 0xdeadbeef, true); // the union's other half: ignored
    };
    put(0, 1_700_000_000_300_000n, 90);
    put(1, 1_700_000_000_100_000n, 40);
    put(2, 1_700_000_000_200_000n, 100);
    expect(decodeUtilizationSamples(buffer, 3)).toEqual([
      { timeStamp: 1_700_000_000_100_000n, percent: 40 },
      { timeStamp: 1_700_000_000_200_000n, percent: 100 },
      { timeStamp: 1_700_000_000_300_000n, percent: 90 },
    ]);
    expect(decodeUtilizationSamples(buffer, 1)).toEqual([{ timeStamp: 1_700_000_000_300_000n, percent: 90 }]);
  });
});

/** A fake driver buffer: the samples it holds, handed out as NVML does (only those newer than lastSeen). */
function fakeDriver(held: UtilizationSample[]) {
  const asked: bigint[] = [];
  return {
    held,
    asked,
    read: async (lastSeen: bigint) => {
      asked.push(lastSeen);
      return held.filter((s) => s.timeStamp > lastSeen);
    },
  };
}

const at = (ms: number, percent: number): UtilizationSample => ({ timeStamp: BigInt(ms) * 1000n, percent });

describe('GpuUtilizationSampler', () => {
  it("counts the driver's samples taken after it started, each once", async () => {
    const driver = fakeDriver([at(1, 0), at(2, 0)]); // from before start: not counted
    const sampler = new GpuUtilizationSampler(driver.read);
    await sampler.collect(); // the first read only marks where counting starts
    expect(sampler.current).toEqual({ samples: 0, percentSum: 0 });
    driver.held.push(at(3, 100), at(4, 50));
    await sampler.collect();
    driver.held.push(at(5, 20));
    await sampler.collect();
    await sampler.collect(); // nothing new
    expect(sampler.current).toEqual({ samples: 3, percentSum: 170 });
    expect(driver.asked).toEqual([0n, 2000n, 4000n, 5000n]);
  });

  it('starts counting from now when the driver held no sample at the first read', async () => {
    const driver = fakeDriver([]);
    const sampler = new GpuUtilizationSampler(driver.read);
    const before = BigInt(Date.now()) * 1000n;
    await sampler.collect();
    driver.held.push(at(Date.now() + 1000, 80));
    await sampler.collect();
    expect(driver.asked[1]).toBeGreaterThanOrEqual(before);
    expect(sampler.current).toEqual({ samples: 1, percentSum: 80 });
  });

  it('skips a read that fails this time (undefined) and gets its samples at the next one', async () => {
    const driver = fakeDriver([at(1, 0)]);
    let unavailable = false;
    const sampler = new GpuUtilizationSampler(async (lastSeen) => (unavailable ? undefined : driver.read(lastSeen)));
    await sampler.collect();
    driver.held.push(at(2, 60));
    unavailable = true;
    await sampler.collect();
    unavailable = false;
    await sampler.collect();
    expect(sampler.current).toEqual({ samples: 1, percentSum: 60 });
  });

  it('stops, without an unhandled rejection, at a reader that fails (it runs on a timer)', async () => {
    let calls = 0;
    const driver = fakeDriver([at(1, 0)]);
    const sampler = new GpuUtilizationSampler(async (lastSeen) => {
      calls++;
      if (calls === 3) throw new Error('NVML gone');
      driver.held.push(at(calls + 1, 80));
      return driver.read(lastSeen);
    });
    vi.useFakeTimers();
    try {
      sampler.start(1000);
      await vi.advanceTimersByTimeAsync(5000);
      expect(calls).toBe(3); // not asked again after the failure
      sampler.start(1000); // nor restarted
      await vi.advanceTimersByTimeAsync(5000);
      expect(calls).toBe(3);
      expect(sampler.current).toEqual({ samples: 1, percentSum: 80 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('skips a tick while the previous read is still under way', async () => {
    const pending: ((samples: UtilizationSample[]) => void)[] = [];
    const sampler = new GpuUtilizationSampler(() => new Promise((resolve) => pending.push(resolve)));
    const first = sampler.collect();
    await sampler.collect(); // skipped at once: one read in flight
    expect(pending).toHaveLength(1);
    pending[0]([at(1, 0)]);
    await first;
    const second = sampler.collect();
    expect(pending).toHaveLength(2);
    pending[1]([at(2, 30)]);
    await second;
    expect(sampler.current).toEqual({ samples: 1, percentSum: 30 });
  });

  it('reads on a timer, from start() on, until stopped', async () => {
    vi.useFakeTimers();
    try {
      let t = 0;
      const driver = fakeDriver([]);
      const sampler = new GpuUtilizationSampler((lastSeen) => {
        driver.held.push(at(++t, 50)); // the driver adds one sample between reads
        return driver.read(lastSeen);
      });
      sampler.start(1000); // reads at once (the baseline), then every second
      sampler.start(1000); // a second start keeps the one timer
      await vi.advanceTimersByTimeAsync(5000);
      sampler.stop();
      await vi.advanceTimersByTimeAsync(5000);
      expect(driver.asked).toHaveLength(6);
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
