// The NVML bindings through koffi against a stand-in driver library compiled here (test/fixtures/fake-nvml.c):
// what the unit tests of the sampler cannot show — argument types, the sample layout, the async call — without a GPU.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GpuUtilizationSampler, nvmlUtilizationReader } from '../src/gpu-utilization.js';

function compileFakeDriver(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'fake-nvml-'));
  try {
    execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'libcuda.so.1'), fileURLToPath(new URL('fixtures/fake-nvml.c', import.meta.url))], { stdio: 'pipe' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  copyFileSync(join(dir, 'libcuda.so.1'), join(dir, 'libnvidia-ml.so.1')); // found beside libcuda, as on a driver install
  return dir;
}

const dir = process.platform === 'linux' ? compileFakeDriver() : undefined;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!dir)('nvmlUtilizationReader on a stand-in driver (needs a C compiler)', () => {
  it("reads the driver's samples newer than the timestamp given, and counts only those after the start", async () => {
    const read = nvmlUtilizationReader(join(dir!, 'libcuda.so.1'), 0);
    expect(read).toBeDefined();
    // read 1: all six samples the driver holds, oldest first, the value's upper half ignored
    expect(await read!(0n)).toEqual([0, 1, 2, 3, 4, 5].map((k) => ({ timeStamp: 1_700_000_000_000_000n + BigInt(k) * 166_666n, percent: k % 2 ? 100 : 50 })));
    // read 2: nothing newer than a timestamp past all of them (NVML_ERROR_NOT_FOUND) is an empty list, not a failure
    expect(await read!(1_800_000_000_000_000n)).toEqual([]);
    const sampler = new GpuUtilizationSampler(read!);
    await sampler.collect(); // read 3: 18 samples held, the start line
    await sampler.collect(); // read 4: 6 new
    await sampler.collect(); // read 5: 6 new
    expect(sampler.current).toEqual({ samples: 12, percentSum: 900 });
  });

  it('is undefined for a device the driver does not have', () => {
    expect(nvmlUtilizationReader(join(dir!, 'libcuda.so.1'), 1)).toBeUndefined();
  });
});
