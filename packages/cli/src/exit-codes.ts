/** Process exit codes of the virnucpro CLI (documented in docs/usage.md). */
export const ExitCode = {
  ok: 0,
  error: 1,
  badInput: 2,
  interrupted: 130, // SIGINT
  terminated: 143, // SIGTERM
} as const;
