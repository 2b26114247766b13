import { existsSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { createEsm2Embedder } from '@virnucpro/esm2';
import { UsageError } from '../errors.js';
import { readEmbedArgs, withEmbedOptions, withInputFile } from './embed-options.js';
import { runEmbed } from './embed-run.js';
import { describeForLog, startComputeBackend } from '../pipeline/compute-backend.js';
import { runCommand } from './run-command.js';

export const embedEsm2Command: CommandModule = {
  command: 'esm2',
  describe: 'Mean ESM-2 embeddings of protein FASTA records (VirNucPro protein features)',
  builder: (y) =>
    withEmbedOptions(y, {
      model: 'ESM-2 checkpoint: HF folder, fair-esm .pt, .safetensors/.bin file, or a converted tfjs folder',
      input: 'protein FASTA (plain or gzip; - for standard input)',
      output: 'output .safetensors: float32 "embeddings" [N, dim], ids in __metadata__',
      tokenBudget: 'tokens per packed batch (residues + BOS/EOS); VirNucPro used 2048',
    })
      .option('unknown', { choices: ['error', 'unk'] as const, default: 'error', describe: 'characters outside the ESM alphabet: fail (fair-esm) or map each run to <unk> (Hugging Face)' })
      .example('$0 embed esm2 --model esm2_t36_3B_UR50D --input proteins.faa --output esm.safetensors', ''),
  handler: (args) =>
    runCommand(async () => {
      const given = readEmbedArgs(args);
      if (!existsSync(given.model)) throw new UsageError(`${given.model}: model not found (a checkpoint folder or file)`);
      await withInputFile(given, async (run) => {
        const compute = await startComputeBackend(run.backend, run.precision);
        const embedder = await createEsm2Embedder({ model: run.model, backend: compute.backend, precision: compute.precision, unknown: args.unknown as 'error' | 'unk' });
        try {
          run.log?.(`ESM-2 ${embedder.name} (${embedder.model.config.numLayers} layers, dim ${embedder.dim}) on ${describeForLog(compute)}`);
          const summary = await runEmbed({
            ...run,
            embedder,
            compute,
            metadata: { model: embedder.name, config: JSON.stringify(embedder.model.config), format: 'virnucpro-embeddings' },
          });
          run.log?.(`${summary.sequences} proteins, ${summary.tokens} tokens in ${summary.batches} batches: ${summary.tokensPerSecond.toFixed(0)} tokens/s${summary.oomSplits ? `; ${summary.oomSplits} batch split(s) after running out of GPU memory` : ''}`);
        } finally {
          embedder.dispose();
        }
      });
    }),
};
