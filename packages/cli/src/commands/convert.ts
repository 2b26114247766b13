import type { CommandModule } from 'yargs';
import { convertModelCommand } from './convert-model-command.js';
import { embeddingModelNames, embeddingModels } from './embedding-models.js';

export const convertSubcommands: CommandModule<any, any>[] = embeddingModels.map(convertModelCommand);

export const convertCommand: CommandModule = {
  command: 'convert <model>',
  describe: 'Convert a PyTorch / safetensors checkpoint into a tfjs weights folder that loads fast',
  builder: (y) => y.command(convertSubcommands).demandCommand(1, `Name a model: ${embeddingModelNames}`),
  handler: () => undefined,
};
