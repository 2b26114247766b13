// Whether this machine can run the cuda backend, and why not: for `--backend auto` to explain a fallthrough.
import { CudaDriver, type DeviceInfo } from './cuda-driver.js';
import { findCudaLibraries, type CudaLibraries } from './library-discovery.js';

export type CudaProbe = { ok: true; libraries: CudaLibraries; devices: DeviceInfo[] } | { ok: false; reason: string };

/** Finds the libraries and asks the driver for devices; never throws. */
export function probeCuda(): CudaProbe {
  let libraries: CudaLibraries;
  try {
    libraries = findCudaLibraries();
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  try {
    const driver = new CudaDriver(libraries.cuda);
    driver.init();
    const count = driver.deviceCount();
    if (count === 0) return { ok: false, reason: 'the CUDA driver sees no GPU' };
    return { ok: true, libraries, devices: Array.from({ length: count }, (_, i) => driver.deviceInfo(i)) };
  } catch (error) {
    return { ok: false, reason: `CUDA driver: ${(error as Error).message}` };
  }
}
