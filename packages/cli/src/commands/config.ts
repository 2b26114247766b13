import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeFileAtomicSync } from '@virnucpro/atomic-file';
import type { CommandModule } from 'yargs';
import { defaultConfigYaml } from '../config/default-config.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { UsageError } from '../errors.js';
import { runCommand } from './run-command.js';

export const configCommand: CommandModule = {
  command: 'config <action> [file]',
  describe: 'Write a commented default predict config (init) or check one (check)',
  builder: (y) =>
    y
      .positional('action', { choices: ['init', 'check'] as const, describe: 'init: write the default config; check: validate a config file' })
      .positional('file', { type: 'string', describe: 'config file (init: default virnucpro.yaml; "-" prints to stdout)' })
      .option('force', { alias: 'f', type: 'boolean', describe: 'init: overwrite an existing file' })
      .example('$0 config init my-run.yaml', 'write every predict option with its default and description')
      .example('$0 config check my-run.yaml', 'report the first problem in my-run.yaml, or OK'),
  handler: (args) =>
    runCommand(async () => {
      // yargs turns a lone "-" into "", so both mean stdout.
      const given = args.file as string | undefined;
      const file = given === '' ? '-' : given ?? (args.action === 'init' ? 'virnucpro.yaml' : undefined);
      if (args.action === 'init') {
        if (file === '-') {
          process.stdout.write(defaultConfigYaml());
          return;
        }
        const path = resolve(file!);
        if (existsSync(path) && !args.force) throw new UsageError(`${path} exists; pass --force to overwrite it`);
        writeFileAtomicSync(path, defaultConfigYaml());
        console.error(`wrote ${path}`);
        return;
      }
      if (!file) throw new UsageError('config check needs a FILE');
      const values = loadConfigFile(resolve(file));
      console.log(`${file}: OK (${values.size} option${values.size === 1 ? '' : 's'} set)`);
    }),
};
