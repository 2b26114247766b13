import type { CommandModule } from 'yargs';
import { embedDnabertCommand } from './embed-dnabert.js';
import { embedEsm2Command } from './embed-esm2.js';

// One file per model; add a model's subcommand by importing it and appending it here.
export const embedSubcommands: CommandModule<any, any>[] = [embedEsm2Command, embedDnabertCommand];

export const embedCommand: CommandModule = {
  command: 'embed <model>',
  describe: 'Embed sequences with one model (writes a safetensors file of mean vectors)',
  builder: (y) => y.command(embedSubcommands).demandCommand(1, 'Name a model: esm2 or dnabert'),
  handler: () => undefined,
};
