import * as tf from '@tensorflow/tfjs-core';

/** A backend whose quantised arithmetic improves with a calibration pass over fixed inputs (`cuda` in fp8 does). */
interface CalibratingBackend {
  readonly needsQuantisationCalibration: boolean;
  withQuantisationCalibration<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Lets the active backend calibrate a model's quantised arithmetic on `run`, a forward pass of that model over a
 * fixed calibration set: on `cuda` in fp8 every linear layer then takes a bias corrected for its weight's E4M3
 * rounding on the mean input seen here. On every other backend and precision `run` is not called. The set must
 * be fixed (the model package's own), never the user's batches: results then do not depend on what else is
 * embedded. Resolves to whether a calibration ran.
 */
export async function calibrateQuantisation(run: () => Promise<unknown>): Promise<boolean> {
  const backend = tf.backend() as Partial<CalibratingBackend>;
  if (!backend.needsQuantisationCalibration || typeof backend.withQuantisationCalibration !== 'function') return false;
  await backend.withQuantisationCalibration(run);
  return true;
}
