import type { CommandModule } from 'yargs';
import { convertDnabertCommand } from './convert-dnabert.js';
import { convertEsm2Command } from './convert-esm2.js';

// One file per model; add a model's converter by importing it and appending it here.
export const convertSubcommands: CommandModule<any, any>[] = [convertEsm2Command, convertDnabertCommand];

export const convertCommand: CommandModule = {
  command: 'convert <model>',
  describe: 'Convert a PyTorch / safetensors checkpoint into a tfjs weights folder that loads fast',
  builder: (y) => y.command(convertSubcommands).demandCommand(1, 'Name a model: esm2 or dnabert'),
  handler: () => undefined,
};
