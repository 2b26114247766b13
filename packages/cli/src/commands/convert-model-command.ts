import { existsSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { FileWriteError } from '@virnucpro/atomic-file';
import { modelLabel, modelLoadError } from '@virnucpro/predict';
import { UsageError } from '../errors.js';
import { runConvert } from './convert-run.js';
import { runCommand } from './run-command.js';
import type { OfferedModel } from './embedding-models.js';

/** `virnucpro convert <model>` for one model package's descriptor. */
export function convertModelCommand(model: OfferedModel): CommandModule {
  const help = model.help.convert;
  return {
    command: `${model.name} <src> <dest>`,
    describe: help.describe,
    builder: (y) =>
      y
        .positional('src', { type: 'string', describe: help.src })
        .positional('dest', { type: 'string', describe: 'output folder (must not exist yet)' })
        .option('quiet', { alias: 'q', type: 'boolean', describe: 'no summary line' })
        .epilogue(help.epilogue.join('\n'))
        .example(...help.example),
    handler: (args) =>
      runCommand(async () => {
        const src = args.src as string;
        // A missing SRC gets runConvert's message; an incomplete one is named here before anything is read.
        const problem = existsSync(src) ? model.checkPath(src, 'SRC') : undefined;
        if (problem) throw new UsageError(problem);
        await runConvert({
          label: model.label,
          src,
          dest: args.dest as string,
          // A checkpoint that cannot be read exits 2 as in embed and predict; a failed system call (writing DEST) does not.
          convert: (from, to) =>
            model.convert(from, to).catch((err: unknown) => {
              const systemCall = err instanceof FileWriteError || typeof (err as NodeJS.ErrnoException)?.syscall === 'string';
              throw systemCall || err instanceof UsageError ? err : modelLoadError(modelLabel(model.label), from, err);
            }),
          log: args.quiet ? undefined : (line) => console.error(line),
        });
      }),
  };
}
