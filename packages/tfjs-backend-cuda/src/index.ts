// @virnucpro/tfjs-backend-cuda: importing this module registers the tfjs backend 'cuda' and its kernels.
import './register.js';

export { setCudaBackendOptions } from './register.js';
export { type GemmAlgoChoice } from './cublaslt.js';
export { CudaBackend, fp8LayerRoles, type CudaBackendOptions, type CudaBackendDescription, type Fp8LayerRole, type TensorData } from './backend-cuda.js';
export { type KernelTime } from './kernel-profiler.js';
export { type UtilizationTotals } from './gpu-utilization.js';
export { CudaOutOfMemoryError } from './caching-allocator.js';
export { CudaError, type DeviceInfo } from './cuda-driver.js';
export { NvrtcError } from './nvrtc.js';
export { findCudaLibraries, CudaLibrariesNotFoundError, type CudaLibraries, type DiscoveryOptions } from './library-discovery.js';
export { probeCuda, probeCudaAsync, type CudaProbe } from './probe.js';
export { precisions, defaultPrecision } from './precision.js';
