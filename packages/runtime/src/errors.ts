/** An item that made its batch fail on every attempt, isolated by splitting the batch. */
export class PoisonItemError extends Error {
  constructor(
    readonly index: number,
    readonly item: unknown,
    readonly reason: string,
    /** The last failure: a WorkerError when the model threw (its kind in `remoteName`). */
    options?: ErrorOptions,
  ) {
    super(`item #${index}${describe(item)} fails every time it is embedded: ${reason}`, options);
    this.name = 'PoisonItemError';
  }
}

/**
 * The pool cannot go on (every worker exhausted its restarts, or a worker cannot start). Its `cause`, when a worker
 * threw, is that WorkerError (`workerErrorIn` finds it): e.g. the model factory's own error when it cannot load.
 */
export class WorkerPoolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'WorkerPoolError';
  }
}

/** `--devices` names a device that does not exist, or the backend has none. */
export class DeviceSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeviceSelectionError';
  }
}

function describe(item: unknown): string {
  if (typeof item === 'string') return ` (${item.length > 40 ? `${item.slice(0, 40)}…` : item})`;
  if (item && typeof item === 'object' && 'id' in item) return ` (id ${String((item as { id: unknown }).id)})`;
  return '';
}
