import { existsSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { convertDnabert, dnabertWeightFiles } from '@virnucpro/dnabert';
import { runConvert } from './convert-run.js';
import { requireDnabertFolder } from './dnabert-folder.js';
import { runCommand } from './run-command.js';

export const convertDnabertCommand: CommandModule = {
  command: 'dnabert <src> <dest>',
  describe: 'Convert a DNABERT-S / DNABERT-2 model folder into a tfjs weights folder (model.json + shards) that loads fast',
  builder: (y) =>
    y
      .positional('src', {
        type: 'string',
        describe: `model folder: config.json, tokenizer.json and weights (first found of ${dnabertWeightFiles.join(', ')})`,
      })
      .positional('dest', { type: 'string', describe: 'output folder (must not exist yet)' })
      .option('quiet', { type: 'boolean', describe: 'no summary line' })
      .epilogue(
        [
          'Keeps the encoder tensors under canonical names (pooler and MLM head dropped) and writes config.json',
          'and the unchanged tokenizer.json beside model.json, so DEST is itself a model folder:',
          '`virnucpro embed dnabert --model DEST`. DEST appears only when complete.',
          'Exit codes: 0 ok, 1 error, 2 bad input (missing SRC or part of it, existing DEST), 130/143 interrupted.',
        ].join('\n'),
      )
      .example('$0 convert dnabert DNABERT-S models/dnabert-s', 'Hugging Face folder -> tfjs folder'),
  handler: (args) =>
    runCommand(async () => {
      const src = args.src as string;
      // A missing SRC gets runConvert's message; an incomplete folder is named here before anything is read.
      if (existsSync(src)) requireDnabertFolder(src, 'SRC');
      await runConvert({
        label: 'DNABERT',
        src,
        dest: args.dest as string,
        convert: (from, to) => convertDnabert(from, to),
        log: args.quiet ? undefined : (line) => console.error(line),
      });
    }),
};
