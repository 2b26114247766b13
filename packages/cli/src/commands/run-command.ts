import { ModelLoadError } from '@virnucpro/predict';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';

/**
 * Runs a command body and turns failures into the documented exit codes: UsageError (and a model that cannot be
 * read, ModelLoadError) → 2 with its message
 * alone; anything else → 1 with the message (stack with VIRNUCPRO_DEBUG=1). A body may set
 * process.exitCode itself (e.g. 130 after SIGINT).
 */
export async function runCommand(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    if (err instanceof UsageError || err instanceof ModelLoadError) {
      console.error(`virnucpro: ${err.message}`);
      process.exitCode = ExitCode.badInput;
      return;
    }
    const e = err as Error & { code?: string };
    if (e && (e.name === 'FastaFormatError' || e.code === 'BAD_INPUT' || e.name === 'BadInputError')) {
      console.error(`virnucpro: ${e.message}`);
      process.exitCode = ExitCode.badInput;
      return;
    }
    console.error(`virnucpro: ${e?.message ?? String(err)}`);
    if (process.env.VIRNUCPRO_DEBUG) console.error(e?.stack);
    process.exitCode = ExitCode.error;
  }
}
