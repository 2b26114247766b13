import * as tf from '@tensorflow/tfjs-core';

/** A backend whose quantised arithmetic improves with a calibration pass over fixed inputs (`cuda` in fp8 does). */
interface CalibratingBackend {
  readonly needsQuantisationCalibration: boolean;
  withQuantisationCalibration<T>(fn: () => Promise<T>): Promise<T>;
}

/** The calibration pass running on each backend: a backend keeps one set of sums, so passes run one at a time. */
const running = new WeakMap<object, Promise<unknown>>();

/**
 * Lets the active backend calibrate a model's quantised arithmetic on `run`, a forward pass of that model over a
 * fixed calibration set: on `cuda` in fp8 every linear layer then takes a bias corrected for its weight's E4M3
 * rounding on the mean input seen here. On every other backend and precision `run` is not called. The set must
 * be fixed (the model package's own), never the user's batches: results then do not depend on what else is
 * embedded. Passes on one backend run one after another (models loaded concurrently each get their own); run them
 * before embedding, as the embedders do: while a pass runs, the backend computes in its calibration mode. Resolves
 * to whether a calibration ran.
 */
export async function calibrateQuantisation(run: () => Promise<unknown>): Promise<boolean> {
  const backend = tf.backend() as Partial<CalibratingBackend>;
  if (!backend.needsQuantisationCalibration || typeof backend.withQuantisationCalibration !== 'function') return false;
  const calibrating = backend as CalibratingBackend;
  const previous = running.get(calibrating) ?? Promise.resolve();
  const pass = previous.then(() => calibrating.withQuantisationCalibration(run));
  // The next pass waits for this one whether it succeeds or not.
  running.set(calibrating, pass.catch(() => undefined));
  await pass;
  return true;
}
