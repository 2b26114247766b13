import { onTerminationSignal } from '../termination-signal.js';

/**
 * Runs `body` with an AbortSignal that SIGINT/SIGTERM abort (through the one signal handler,
 * @virnucpro/checkpoint's onTerminationSignal). The body is expected to stop at its next step and remove
 * anything half-written; then one line is printed and the process exits 130 / 143 instead of reporting the
 * abort as an error. Any other failure propagates unchanged.
 */
export async function interruptibly(body: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  let running: Promise<void> = Promise.resolve();
  const stopHandling = onTerminationSignal(async (signal) => {
    controller.abort(new Error(`interrupted by ${signal}; no output written`));
    // A body past its last check finishes its output; anything else removes what it half-wrote.
    const completed = await running.then(
      () => true,
      () => false,
    );
    console.error(`virnucpro: interrupted by ${signal}; ${completed ? 'the output was already complete' : 'no output written'}`);
  });
  try {
    running = body(controller.signal);
    await running;
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    // The signal handler reports the interruption and exits 130 / 143.
    await new Promise<never>(() => undefined);
  } finally {
    stopHandling();
  }
}
