// @virnucpro/compute: the one place that turns --backend, --precision, --devices, --workers and --token-budget
// into a concrete plan (planCompute, in the parent) and starts it (startCompute, in each worker).
export { type BackendName, backendNames, type Precision } from '@virnucpro/ops';
export { type ComputeSettings } from './backends.js';
export { CudaUnavailableError, type BackendChoice } from './resolve-backend.js';
export { precisionChoices, checkPrecisionOption, refinementPrecision, ComputeSettingError } from './precision.js';
export { defaultTokenBudget } from './token-budget.js';
export { batchesInFlight } from './batches-in-flight.js';
export { modelRunsOnThread } from './model-on-thread.js';
export { planCompute, type ComputeRequest, type ComputePlan } from './compute-plan.js';
export {
  startCompute,
  describeForLog,
  startGpuUtilizationSampling,
  gpuUtilization,
  peakGpuBytes,
  type ComputeDescription,
  type CudaDeviceSummary,
} from './start-compute.js';
export { onStartedCompute, computeWorkerFactory } from './compute-worker.js';
