export interface TerminationOptions {
  /** Called to leave the process (default process.exit). */
  exit?: (code: number) => void;
  /** Give up flushing after this long and exit anyway. Default 30 s. */
  timeoutMs?: number;
  /** Where to say what happens (`<SIGNAL>: saving finished results…`, a timeout, a failed flush); default silent. */
  log?: (message: string) => void;
}

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

export type TerminationSignal = keyof typeof EXIT_CODES;

/**
 * The one SIGINT/SIGTERM handler of virnucpro-ts: on the first signal run `flush` (save finished work,
 * remove what is half-written, say what happened), then exit 130/143. A second signal while flushing exits
 * at once. Returns a function that removes the handlers (call it when the work is over, so later stages
 * get the default behaviour back).
 */
export function onTerminationSignal(flush: (signal: TerminationSignal) => Promise<void> | void, options: TerminationOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const timeoutMs = options.timeoutMs ?? 30_000;
  let flushing = false;
  const handler = (signal: TerminationSignal) => {
    const code = EXIT_CODES[signal];
    if (flushing) {
      exit(code);
      return;
    }
    flushing = true;
    options.log?.(`${signal}: saving finished results before exiting…`);
    const timer = setTimeout(() => {
      options.log?.(`${signal}: flush did not finish within ${timeoutMs} ms; exiting`);
      exit(code);
    }, timeoutMs);
    Promise.resolve()
      .then(() => flush(signal))
      .then(
        () => {
          clearTimeout(timer);
          exit(code);
        },
        (error: unknown) => {
          clearTimeout(timer);
          options.log?.(`${signal}: flush failed: ${(error as Error).message}`);
          exit(code);
        },
      );
  };
  const onInt = () => handler('SIGINT');
  const onTerm = () => handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}
