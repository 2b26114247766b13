import type { CommandModule } from 'yargs';
import { embedModelCommand } from './embed-model-command.js';
import { embeddingModelNames, embeddingModels } from './embedding-models.js';

export const embedSubcommands: CommandModule<any, any>[] = embeddingModels.map(embedModelCommand);

export const embedCommand: CommandModule = {
  command: 'embed <model>',
  describe: 'Embed sequences with one model (writes a safetensors file of mean vectors)',
  builder: (y) => y.command(embedSubcommands).demandCommand(1, `Name a model: ${embeddingModelNames}`),
  handler: () => undefined,
};
