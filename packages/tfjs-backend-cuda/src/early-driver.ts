// A GPU worker's first second is the driver's: cuInit and the device's primary context took 0.8–1.2 s of each
// worker's start with four starting at once on an H200 host (~0.4 s alone), the worker's thread blocked in them
// (docs/benchmarks/scaling.md). Begun here on libuv's threads while the worker still loads its code, the backend's
// own calls (the same process, the same library; the driver's calls are thread-safe) then find them done or wait
// only for the rest. Kept small: importing this module loads the driver's bindings, not the backend.
import { CudaDriver } from './cuda-driver.js';
import { findCudaLibraries } from './library-discovery.js';

let started: Promise<void> | undefined;

/**
 * Starts the CUDA driver and retains device `ordinal`'s primary context (as the backend's device 0 sees it: the
 * worker's one visible GPU) off this thread. The same promise on every call; its failure is for the backend to meet
 * again and report.
 */
export function startCudaDriverEarly(ordinal = 0): Promise<void> {
  started ??= (async () => {
    const driver = new CudaDriver(findCudaLibraries().cuda);
    await driver.initAsync();
    await driver.retainPrimaryContextAsync(ordinal);
  })();
  return started;
}
