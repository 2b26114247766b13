import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandModule } from 'yargs';
import { createDnabertEmbedder, readDnabertConfig } from '@virnucpro/dnabert';
import { backendNames, type BackendName } from '@virnucpro/ops';
import { UsageError } from '../errors.js';
import { requireDnabertFolder } from './dnabert-folder.js';
import { runEmbed } from './embed-run.js';
import { requireFastaRecords } from './require-fasta-records.js';
import { runCommand } from './run-command.js';

export const embedDnabertCommand: CommandModule = {
  command: 'dnabert',
  describe: 'Mean DNABERT-S embeddings of nucleotide FASTA records (VirNucPro nucleotide features)',
  builder: (y) =>
    y
      .option('model', { type: 'string', demandOption: true, describe: 'DNABERT-S / DNABERT-2 folder (config.json, tokenizer.json, weights) or a converted tfjs folder' })
      .option('input', { type: 'string', demandOption: true, describe: 'nucleotide FASTA (plain or gzip)' })
      .option('output', { type: 'string', demandOption: true, describe: 'output .safetensors: float32 "embeddings" [N, hidden], ids in __metadata__' })
      .option('backend', { choices: [...backendNames, 'auto'] as const, default: 'auto', describe: 'tfjs backend' })
      .option('token-budget', { type: 'number', default: 2048, describe: 'tokens per packed batch (BPE tokens + [CLS]/[SEP])' })
      .option('window', { type: 'number', default: 1024, describe: 'records the packer may hold back to fill batches' })
      .option('summary', { type: 'string', describe: 'write a JSON run summary (throughput, packing efficiency) here' })
      .option('quiet', { type: 'boolean', describe: 'no log lines' })
      .epilogue('Each vector is the mean of the last hidden state over all tokens, [CLS] and [SEP] included, as VirNucPro computes it.')
      .example('$0 embed dnabert --model DNABERT-S --input chunks_identified_nucleotide.fa --output dna.safetensors', ''),
  handler: (args) =>
    runCommand(async () => {
      const input = args.input as string;
      const model = args.model as string;
      const tokenBudget = args['token-budget'] as number;
      const window = args.window as number;
      if (!existsSync(input)) throw new UsageError(`${input}: input FASTA not found`);
      requireDnabertFolder(model, '--model');
      if (!Number.isInteger(tokenBudget) || tokenBudget < 3) throw new UsageError(`--token-budget must be an integer ≥ 3, got ${tokenBudget}`);
      if (!Number.isInteger(window) || window < 1) throw new UsageError(`--window must be a positive integer, got ${window}`);
      await requireFastaRecords(input); // before the model load, which can take a while
      const log = args.quiet ? undefined : (line: string) => console.error(line);
      const config = await readDnabertConfig(join(model, 'config.json'));
      const embedder = await createDnabertEmbedder({ model, backend: args.backend as BackendName | 'auto' });
      try {
        log?.(`${embedder.name} (${config.numLayers} layers, dim ${embedder.dim}) on ${embedder.backend}`);
        const summary = await runEmbed({
          embedder,
          backend: embedder.backend,
          input,
          output: args.output as string,
          tokenBudget,
          window,
          summaryPath: args.summary as string | undefined,
          residue: 'nucleotide',
          metadata: { model: embedder.name, config: JSON.stringify(config), format: 'virnucpro-embeddings' },
          log,
        });
        log?.(`${summary.sequences} sequences, ${summary.tokens} tokens in ${summary.batches} batches: ${summary.tokensPerSecond.toFixed(0)} tokens/s`);
      } finally {
        embedder.dispose();
      }
    }),
};
