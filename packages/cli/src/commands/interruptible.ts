import { ExitCode } from '../exit-codes.js';

const SIGNAL_EXIT: Record<string, number> = { SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated };

/**
 * Runs `body` with an AbortSignal that SIGINT/SIGTERM abort. The body is expected to stop at its next
 * step and remove anything half-written; then this prints one line and sets exit code 130 / 143 instead
 * of reporting the abort as an error. Any other failure propagates unchanged.
 */
export async function interruptibly(body: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  let caught: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    caught = signal;
    controller.abort(new Error(`interrupted by ${signal}; no output written`));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await body(controller.signal);
  } catch (error) {
    if (!caught) throw error;
    console.error(`virnucpro: interrupted by ${caught}; no output written`);
    process.exitCode = SIGNAL_EXIT[caught];
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
