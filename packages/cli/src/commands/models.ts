import type { CommandModule } from 'yargs';
import { defaultModelsDir } from '../config/resolve-predict-options.js';
import { downloadModels } from '../download/download-models.js';
import { ESM_SIZES, type EsmSize } from '../download/model-catalog.js';
import { createProgressReporter } from '../progress/progress-reporter.js';
import { runCommand } from './run-command.js';

export const modelsCommand: CommandModule = {
  command: 'models <action>',
  describe: 'Download ESM-2, DNABERT-S and the VirNucPro MLPs into a models folder',
  builder: (y) =>
    y
      .positional('action', { choices: ['download'] as const })
      .option('models-dir', { type: 'string', describe: 'destination (default: $VIRNUCPRO_MODELS_DIR or ~/.cache/virnucpro)' })
      .option('esm-size', { choices: ESM_SIZES, default: '3B' as EsmSize, describe: 'ESM-2 checkpoint (VirNucPro uses 3B)' })
      .option('only', { type: 'array', choices: ['esm', 'dnabert', 'mlp'], describe: 'fetch only these groups' })
      .option('base-url', { type: 'string', describe: 'mirror serving both the Hugging Face (<repo>/resolve/main/<file>) and GitHub (<repo>/raw/main/<file>) layouts' })
      .option('hf-base-url', { type: 'string', describe: 'Hugging Face mirror (default: $HF_ENDPOINT or https://huggingface.co)' })
      .option('github-base-url', { type: 'string', describe: 'GitHub mirror for the MLPs (default: $VIRNUCPRO_GITHUB_BASE_URL or https://github.com)' })
      .option('verify', { type: 'boolean', describe: 're-hash files already present against manifest.json' })
      .option('ignore-known-hashes', { type: 'boolean', describe: 'do not check the built-in sizes/hashes (upstream changed a file)' })
      .option('quiet', { type: 'boolean', describe: 'no progress output' })
      .example('$0 models download', 'ESM-2 3B + DNABERT-S + 300/500 MLPs into ~/.cache/virnucpro')
      .example('$0 models download --esm-size 650M --models-dir /data/models', 'a smaller ESM-2, elsewhere'),
  handler: (args) =>
    runCommand(async () => {
      const env = process.env;
      const reporter = createProgressReporter({ quiet: Boolean(args.quiet) });
      const modelsDir = (args['models-dir'] as string | undefined) ?? defaultModelsDir(env);
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
          reporter,
          log: (line) => reporter.log(line),
        });
        reporter.log(`models in ${modelsDir}: ${r.downloaded.length} downloaded, ${r.alreadyPresent.length} already present`);
      } finally {
        reporter.close();
      }
    }),
};
