import type { CommandModule } from 'yargs';
import { embedEsm2Command } from './embed-esm2.js';

// One file per model; add a model's subcommand by importing it and appending it here.
export const embedSubcommands: CommandModule<any, any>[] = [embedEsm2Command];

export const embedCommand: CommandModule = {
  command: 'embed <model>',
  describe: 'Embed sequences with one model (writes a safetensors file of mean vectors)',
  builder: (y) => y.command(embedSubcommands).demandCommand(1, 'Name a model, e.g. esm2'),
  handler: () => undefined,
};
