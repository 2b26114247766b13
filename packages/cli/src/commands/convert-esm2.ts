import type { CommandModule } from 'yargs';
import { loadEsm2Checkpoint, writeEsm2Artifact } from '@virnucpro/esm2';
import { elementCount } from '@virnucpro/weights';
import { runConvert } from './convert-run.js';
import { runCommand } from './run-command.js';

export const convertEsm2Command: CommandModule = {
  command: 'esm2 <src> <dest>',
  describe: 'Convert an ESM-2 checkpoint into a tfjs weights folder (model.json + shards) that loads fast',
  builder: (y) =>
    y
      .positional('src', {
        type: 'string',
        describe: 'ESM-2 checkpoint: Hugging Face folder, model.safetensors, pytorch_model.bin, fair-esm .pt, or a converted folder',
      })
      .positional('dest', { type: 'string', describe: 'output folder (must not exist yet)' })
      .option('quiet', { type: 'boolean', describe: 'no summary line' })
      .epilogue(
        [
          'Keeps only the tensors the forward pass uses, under canonical names, with the config in model.json.',
          'DEST appears only when complete. Use it anywhere a model is asked for: `virnucpro embed esm2 --model DEST`.',
          'Exit codes: 0 ok, 1 error, 2 bad input (missing SRC, existing DEST), 130/143 interrupted.',
        ].join('\n'),
      )
      .example('$0 convert esm2 esm2_t36_3B_UR50D.pt esm2-3b', 'fair-esm .pt -> tfjs folder'),
  handler: (args) =>
    runCommand(async () => {
      await runConvert({
        label: 'ESM-2',
        src: args.src as string,
        dest: args.dest as string,
        convert: async (src, dest) => {
          const { config, tensors } = await loadEsm2Checkpoint(src);
          await writeEsm2Artifact(dest, config, tensors);
          let parameters = 0;
          for (const t of tensors.values()) parameters += elementCount(t.shape);
          return { tensors: tensors.size, parameters };
        },
        log: args.quiet ? undefined : (line) => console.error(line),
      });
    }),
};
