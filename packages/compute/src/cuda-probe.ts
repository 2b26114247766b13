import { cudaDeviceOrderEnvVar } from './cuda-devices.js';
import { probeCuda, type CudaProbe } from '@virnucpro/tfjs-backend-cuda';

let probe: CudaProbe | undefined;

/**
 * The cuda backend's probe (libraries found, the driver's GPUs), asked once per process: `auto`, the token
 * budget and the device list all read this one answer. No CUDA context and no tfjs backend is created.
 */
export function cudaProbe(): CudaProbe {
  // The driver numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID. Workers are pinned in PCI
  // order (cudaWorkerEnv), so count in that order too: nvidia-smi's numbers. The driver reads the variable
  // when this process first initialises it, which is here.
  process.env[cudaDeviceOrderEnvVar] ||= 'PCI_BUS_ID';
  probe ??= probeCuda();
  return probe;
}
