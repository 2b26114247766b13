import { workerErrorIn } from '@virnucpro/runtime';
import { ModelLoadError } from './model-load-error.js';

/**
 * Predict's errors that a feature worker may throw and a caller catches by class (the CLI: ModelLoadError exits 2),
 * by their kind: the `name` they had in the worker, which the runtime carries back (WorkerError.remoteName).
 */
const CLASSES_BY_KIND: Record<string, new (message: string, options?: ErrorOptions) => Error> = { ModelLoadError };

/**
 * `error` as predict's own class when a worker threw one of those (recognised by its kind, never by its wording, so
 * rewording a message cannot change an exit code), with `error` as its cause; any other error as it is.
 */
export function predictErrorOf(error: unknown): unknown {
  const remote = workerErrorIn(error);
  if (!remote || !Object.hasOwn(CLASSES_BY_KIND, remote.remoteName)) return error;
  return new CLASSES_BY_KIND[remote.remoteName](remote.message, { cause: error });
}
