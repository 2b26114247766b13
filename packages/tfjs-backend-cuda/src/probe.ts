// Whether this machine can run the cuda backend, and why not: for `--backend auto` to explain a fallthrough.
import { CudaDriver, type DeviceInfo } from './cuda-driver.js';
import { findCudaLibraries, type CudaLibraries } from './library-discovery.js';

export type CudaProbe = { ok: true; libraries: CudaLibraries; devices: DeviceInfo[] } | { ok: false; reason: string };

/** Finds the libraries and asks the driver for devices; never throws. */
export function probeCuda(): CudaProbe {
  const found = librariesOrReason();
  if ('reason' in found) return found;
  try {
    const driver = new CudaDriver(found.libraries.cuda);
    driver.init();
    return devicesOf(driver, found.libraries);
  } catch (error) {
    return driverFailure(error);
  }
}

/**
 * probeCuda with the driver's initialisation (cuInit: 0.5–1 s with several GPUs) on one of libuv's threads, so that
 * the caller's thread goes on meanwhile; missing libraries are answered at once. Never rejects.
 */
export async function probeCudaAsync(): Promise<CudaProbe> {
  const found = librariesOrReason();
  if ('reason' in found) return found;
  try {
    const driver = new CudaDriver(found.libraries.cuda);
    await driver.initAsync();
    return devicesOf(driver, found.libraries);
  } catch (error) {
    return driverFailure(error);
  }
}

function librariesOrReason(): { libraries: CudaLibraries } | { ok: false; reason: string } {
  try {
    return { libraries: findCudaLibraries() };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

function devicesOf(driver: CudaDriver, libraries: CudaLibraries): CudaProbe {
  const count = driver.deviceCount();
  if (count === 0) return { ok: false, reason: 'the CUDA driver sees no GPU' };
  return { ok: true, libraries, devices: Array.from({ length: count }, (_, i) => driver.deviceInfo(i)) };
}

function driverFailure(error: unknown): CudaProbe {
  return { ok: false, reason: `CUDA driver: ${(error as Error).message}` };
}
