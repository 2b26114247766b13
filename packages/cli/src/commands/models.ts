import type { CommandModule } from 'yargs';
import { defaultModelsDir } from '../config/resolve-predict-options.js';
import { existsSync } from 'node:fs';
import { checkModelsFolder, passedCheckLine } from '../download/check-models.js';
import { commandLine } from '../command-line.js';
import { downloadModels } from '../download/download-models.js';
import { hfHubCache } from '../download/hf-cache.js';
import { UsageError } from '../errors.js';
import { ESM_SIZES, type EsmSize } from '../download/model-catalog.js';
import { createProgressReporter } from '../progress/progress-reporter.js';
import { runCommand } from './run-command.js';

export const modelsCommand: CommandModule = {
  command: 'models <action> [dir]',
  describe: 'Download ESM-2, DNABERT-S and the VirNucPro MLPs into a models folder, or check a folder copied by hand',
  builder: (y) =>
    y
      .positional('action', { choices: ['download', 'check'] as const, describe: 'download: fetch (or reuse from the Hugging Face cache); check: verify sizes and hashes' })
      .positional('dir', { type: 'string', describe: 'the models folder (same as --models-dir)' })
      .option('models-dir', { type: 'string', defaultDescription: '$VIRNUCPRO_MODELS_DIR or ~/.cache/virnucpro', describe: 'the models folder' })
      .option('esm-size', { choices: ESM_SIZES, default: '3B' as EsmSize, describe: 'ESM-2 checkpoint (VirNucPro uses 3B)' })
      .option('only', { type: 'array', choices: ['esm', 'dnabert', 'mlp'], describe: 'fetch only these groups' })
      .option('base-url', { type: 'string', describe: 'one mirror of both Hugging Face (/resolve/main/) and GitHub (/raw/main/) files' })
      .option('hf-base-url', { type: 'string', defaultDescription: '$HF_ENDPOINT or https://huggingface.co', describe: 'Hugging Face mirror' })
      .option('github-base-url', { type: 'string', defaultDescription: '$VIRNUCPRO_GITHUB_BASE_URL or https://github.com', describe: 'GitHub mirror for the MLPs' })
      .option('hf-cache', { type: 'boolean', default: true, describe: 'reuse models in the Hugging Face cache; --no-hf-cache downloads anyway' })
      .option('verify', { type: 'boolean', describe: 're-hash files already present against manifest.json' })
      .option('ignore-known-hashes', { type: 'boolean', describe: 'do not check the built-in sizes/hashes (upstream changed a file)' })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'no progress output' })
      .example('$0 models download', 'ESM-2 3B + DNABERT-S + 300/500 MLPs into ~/.cache/virnucpro')
      .example('$0 models download --esm-size 650M --models-dir /data/models', 'a smaller ESM-2, elsewhere')
      .example('$0 models check /shared/models', 'verify a folder copied to a node without internet'),
  handler: (args) =>
    runCommand(async () => {
      const env = process.env;
      const reporter = createProgressReporter({ quiet: Boolean(args.quiet) });
      const named = (args.dir as string | undefined) ?? (args['models-dir'] as string | undefined);
      const modelsDir = named ?? defaultModelsDir(env);
      if (args.action === 'check') {
        reporter.close();
        if (!existsSync(modelsDir)) {
          const download = commandLine(['models', 'download', ...(named === undefined ? [] : ['--models-dir', modelsDir])]);
          throw new UsageError(`${modelsDir}: no such folder${named === undefined ? ' (the default models folder)' : ''}; \`${download}\` fills it, or name the folder to check`);
        }
        const check = await checkModelsFolder(modelsDir);
        for (const problem of check.problems.slice(0, -1)) console.error(`virnucpro: ${problem}`);
        const last = check.problems.at(-1);
        if (last) throw new UsageError(check.problems.length > 1 ? `${last} (${check.problems.length} problems)` : last);
        console.error(passedCheckLine(modelsDir, check));
        return;
      }
      const base = (args['base-url'] as string | undefined) ?? env.VIRNUCPRO_BASE_URL;
      try {
        const r = await downloadModels({
          modelsDir,
          esmSize: args['esm-size'] as EsmSize,
          only: args.only as ('esm' | 'dnabert' | 'mlp')[] | undefined,
          hfBase: (args['hf-base-url'] as string | undefined) ?? base ?? env.HF_ENDPOINT,
          githubBase: (args['github-base-url'] as string | undefined) ?? base ?? env.VIRNUCPRO_GITHUB_BASE_URL,
          verify: Boolean(args.verify),
          ignoreKnownHashes: Boolean(args['ignore-known-hashes']),
          hfCache: args['hf-cache'] === false ? undefined : hfHubCache(env),
          reporter,
          log: (line) => reporter.log(line),
        });
        const cached = r.fromHfCache.length ? `, ${r.fromHfCache.length} taken from the Hugging Face cache` : '';
        reporter.log(`models in ${modelsDir}: ${r.downloaded.length} downloaded, ${r.alreadyPresent.length} already present${cached}`);
      } finally {
        reporter.close();
      }
    }),
};
