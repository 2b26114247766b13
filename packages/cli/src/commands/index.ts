import type { CommandModule } from 'yargs';
import { classifyCommand } from './classify.js';
import { configCommand } from './config.js';
import { convertCommand } from './convert.js';
import { embedCommand } from './embed.js';
import { mergeCommand } from './merge.js';
import { modelsCommand } from './models.js';
import { predictCommand } from './predict.js';
import { prepCommand } from './prep.js';
import { reportCommand } from './report.js';

// Every subcommand of `virnucpro`, one module per file in this folder.
// Add a command by importing it here and appending it to the list.
export const commands: CommandModule<any, any>[] = [configCommand, modelsCommand, prepCommand, classifyCommand, embedCommand, convertCommand, predictCommand, mergeCommand, reportCommand];
