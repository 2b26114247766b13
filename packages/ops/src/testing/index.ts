// @virnucpro/ops/testing: the batch-invariance checks, for the tests of any package or backend.
export {
  seededRandom, randomInt, batchArrangements, compareBytes, findBatchDependence, describeBatchDependence,
  invarianceSeeds, invarianceSeedsEnvVar,
  type Arrangement, type BatchDependence, type EmbedBatch,
} from './batch-invariance.js';
export {
  checkKernelInvariance, randomModelShape, randomLengths,
  type KernelInvarianceOptions, type KernelInvarianceResult, type ModelShape,
} from './kernel-invariance.js';
export { rowsAndMeansPerItem } from './rows-and-means.js';
