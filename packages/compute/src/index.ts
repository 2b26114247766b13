// @virnucpro/compute: the one place that turns --backend, --precision, --devices, --workers and --token-budget
// into a concrete plan (planCompute, in the parent) and starts it (startCompute, in each worker).
export { type BackendName, backendNames, isBackendName, type Precision } from '@virnucpro/ops';
export { backends, autoOrder, tensorflowModules, type BackendEntry, type ComputeSettings } from './backends.js';
export { resolveBackend, CudaUnavailableError, type BackendChoice, type BackendAttempt } from './resolve-backend.js';
export { precisionChoices, defaultPrecision, resolvePrecision, checkPrecisionOption, ComputeSettingError, AUTO_NOTE } from './precision.js';
export { CUDA_TOKEN_BUDGET, DEFAULT_TOKEN_BUDGET, tokenBudgetFor, defaultTokenBudget } from './token-budget.js';
export { planCompute, type ComputeRequest, type ComputePlan } from './compute-plan.js';
export {
  startCompute, describeComputeBackend, describeForLog, startGpuUtilizationSampling, gpuUtilization, peakGpuBytes,
  type ComputeDescription, type CudaDeviceSummary,
} from './start-compute.js';
export { onStartedCompute, computeWorkerFactory } from './compute-worker.js';
