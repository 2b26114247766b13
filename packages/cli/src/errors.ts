/**
 * An error caused by what the user gave us (flags, config file, input file). The CLI prints its message
 * alone (no stack) and exits with ExitCode.badInput (2).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
