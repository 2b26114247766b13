// Kernels the cuda backend has no CUDA code for run on tfjs' cpu backend: inputs are read back, the cpu
// kernel runs, outputs are written to the GPU. Slow, but it makes the backend complete for any tfjs program
// (model loading uses a few such ops once); the hot ops all have CUDA kernels.
import { MathBackendCPU } from '@tensorflow/tfjs-backend-cpu';
import { getKernel, getKernelsForBackend, registerKernel, type KernelFunc, type NamedAttrMap, type NamedTensorInfoMap, type TensorInfo } from '@tensorflow/tfjs-core';
import type { CudaBackend } from './backend-cuda.js';

let cpu: MathBackendCPU | undefined;

/** Runs the cpu backend's kernel `kernelName` on cuda tensors; returns cuda tensors. */
export function runOnCpu(kernelName: string, inputs: NamedTensorInfoMap, attrs: NamedAttrMap | undefined, backend: CudaBackend): TensorInfo | TensorInfo[] {
  const config = getKernel(kernelName, 'cpu');
  if (!config) throw new Error(`kernel ${kernelName} has no cuda implementation and no cpu one to fall back to`);
  cpu ??= new MathBackendCPU();
  const host = cpu;
  const moved: TensorInfo[] = [];
  const toCpu = (info: TensorInfo | undefined): TensorInfo | undefined => {
    if (!info) return info;
    const copy = host.makeTensorInfo(info.shape, info.dtype, backend.readSync(info.dataId) as never);
    moved.push(copy);
    return copy;
  };
  const cpuInputs = (Array.isArray(inputs) ? inputs.map(toCpu) : Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, toCpu(v)]))) as NamedTensorInfoMap;
  const out = config.kernelFunc({ inputs: cpuInputs, backend: host, attrs });
  const outs = Array.isArray(out) ? out : [out];
  const results = outs.map((o) => backend.makeTensorInfo(o.shape, o.dtype, host.readSync(o.dataId)));
  for (const info of [...moved, ...outs]) host.disposeData(info.dataId);
  return Array.isArray(out) ? results : results[0];
}

/** Registers the cpu fallback for every cpu kernel that has no cuda kernel yet. */
export function registerCpuFallbacks(): void {
  for (const config of getKernelsForBackend('cpu')) {
    if (getKernel(config.kernelName, 'cuda')) continue;
    const kernelName = config.kernelName;
    const kernelFunc = (({ inputs, attrs, backend }) => runOnCpu(kernelName, inputs, attrs, backend as CudaBackend)) as KernelFunc;
    registerKernel({ kernelName, backendName: 'cuda', kernelFunc });
  }
}
