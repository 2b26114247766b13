import { cudaDeviceOrderEnvVar } from './cuda-devices.js';
import { probeCuda, probeCudaAsync, type CudaProbe } from '@virnucpro/tfjs-backend-cuda';

let probe: CudaProbe | undefined;
let asking: Promise<CudaProbe> | undefined;

/**
 * The cuda backend's probe (libraries found, the driver's GPUs), asked once per process: `auto`, the token
 * budget and the device list all read this one answer. No CUDA context and no tfjs backend is created.
 */
export function cudaProbe(): CudaProbe {
  countInPciOrder();
  probe ??= probeCuda();
  return probe;
}

/**
 * The same answer, the driver initialised on another thread while this one goes on (planCompute starts the GPU
 * workers meanwhile). Missing libraries are answered at once. Never rejects.
 */
export function cudaProbeAsync(): Promise<CudaProbe> {
  if (probe) return Promise.resolve(probe);
  countInPciOrder();
  asking ??= probeCudaAsync().then((answer) => (probe ??= answer));
  return asking;
}

function countInPciOrder(): void {
  // The driver numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID. Workers are pinned in PCI
  // order (cudaWorkerEnv), so count in that order too: nvidia-smi's numbers. The driver reads the variable
  // when this process first initialises it, which is here.
  process.env[cudaDeviceOrderEnvVar] ||= 'PCI_BUS_ID';
}
