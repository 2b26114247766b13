import { existsSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { createEsm2Embedder } from '@virnucpro/esm2';
import { backendNames, type BackendName } from '@virnucpro/ops';
import { UsageError } from '../errors.js';
import { runEmbed } from './embed-run.js';
import { runCommand } from './run-command.js';

export const embedEsm2Command: CommandModule = {
  command: 'esm2',
  describe: 'Mean ESM-2 embeddings of protein FASTA records (VirNucPro protein features)',
  builder: (y) =>
    y
      .option('model', { type: 'string', demandOption: true, describe: 'ESM-2 checkpoint: HF folder, fair-esm .pt, .safetensors/.bin file, or a converted tfjs folder' })
      .option('input', { type: 'string', demandOption: true, describe: 'protein FASTA (plain or gzip)' })
      .option('output', { type: 'string', demandOption: true, describe: 'output .safetensors: float32 "embeddings" [N, dim], ids in __metadata__' })
      .option('backend', { choices: [...backendNames, 'auto'] as const, default: 'auto', describe: 'tfjs backend' })
      .option('token-budget', { type: 'number', default: 2048, describe: 'tokens per packed batch (residues + BOS/EOS); VirNucPro used 2048' })
      .option('window', { type: 'number', default: 1024, describe: 'records the packer may hold back to fill batches' })
      .option('unknown', { choices: ['error', 'unk'] as const, default: 'error', describe: 'characters outside the ESM alphabet: fail (fair-esm) or map each run to <unk> (Hugging Face)' })
      .option('summary', { type: 'string', describe: 'write a JSON run summary (throughput, packing efficiency) here' })
      .option('quiet', { type: 'boolean', describe: 'no log lines' })
      .example('$0 embed esm2 --model esm2_t36_3B_UR50D --input proteins.faa --output esm.safetensors', ''),
  handler: (args) =>
    runCommand(async () => {
      const input = args.input as string;
      const model = args.model as string;
      const tokenBudget = args['token-budget'] as number;
      const window = args.window as number;
      if (!existsSync(input)) throw new UsageError(`${input}: input FASTA not found`);
      if (!existsSync(model)) throw new UsageError(`${model}: model not found (a checkpoint folder or file)`);
      if (!Number.isInteger(tokenBudget) || tokenBudget < 3) throw new UsageError(`--token-budget must be an integer ≥ 3, got ${tokenBudget}`);
      if (!Number.isInteger(window) || window < 1) throw new UsageError(`--window must be a positive integer, got ${window}`);
      const log = args.quiet ? undefined : (line: string) => console.error(line);
      const embedder = await createEsm2Embedder({
        model,
        backend: args.backend as BackendName | 'auto',
        unknown: args.unknown as 'error' | 'unk',
      });
      try {
        log?.(`ESM-2 ${embedder.name} (${embedder.model.config.numLayers} layers, dim ${embedder.dim}) on ${embedder.backend}`);
        const summary = await runEmbed({
          embedder,
          backend: embedder.backend,
          input,
          output: args.output as string,
          tokenBudget,
          window,
          summaryPath: args.summary as string | undefined,
          metadata: { model: embedder.name, config: JSON.stringify(embedder.model.config), format: 'virnucpro-embeddings' },
          log,
        });
        log?.(`${summary.sequences} proteins, ${summary.tokens} tokens in ${summary.batches} batches: ${summary.tokensPerSecond.toFixed(0)} tokens/s`);
      } finally {
        embedder.dispose();
      }
    }),
};
