import type { SerializedError } from './protocol.js';

/**
 * An error thrown in a worker (its model's factory or `embed`), rebuilt on the pool's side. Its kind travels with
 * it: `remoteName` is its class name there (e.g. a plugin's own `ModelLoadError`) and `code` its Node-style code,
 * so a caller maps it back to its own error classes by name instead of by its wording.
 */
export class WorkerError extends Error {
  override readonly name = 'WorkerError';
  /** The error's `name` in the worker: its kind. */
  readonly remoteName: string;
  readonly code: string | number | undefined;
  /** Its other own fields that are plain data, as the worker had them. */
  readonly data: Readonly<Record<string, unknown>>;

  constructor(serialized: SerializedError) {
    super(serialized.message, serialized.cause ? { cause: new WorkerError(serialized.cause) } : undefined);
    this.remoteName = serialized.name;
    this.code = serialized.code;
    this.data = serialized.data ?? {};
    // Where it was thrown, in the worker: the only stack that helps.
    if (serialized.stack) this.stack = serialized.stack;
  }
}

/** The WorkerError `error` is, or the first one in its chain of causes (e.g. a WorkerPoolError's), if any. */
export function workerErrorIn(error: unknown): WorkerError | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at instanceof WorkerError) return at;
  }
  return undefined;
}
