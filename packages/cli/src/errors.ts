import { ComputeSettingError } from '@virnucpro/compute';

/**
 * An error caused by what the user gave us (flags, config file, input file). The CLI prints its message
 * alone (no stack) and exits with ExitCode.badInput (2).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `fn`'s result; a setting @virnucpro/compute refuses (ComputeSettingError) becomes a UsageError. */
export function asUsage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof ComputeSettingError ? new UsageError(err.message) : err;
  }
}

/** `promise`, with a setting @virnucpro/compute refuses turned into a UsageError. */
export function asUsageAsync<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((err: unknown) => {
    throw err instanceof ComputeSettingError ? new UsageError(err.message) : err;
  });
}
