import { join } from 'node:path';
import type { CommandModule } from 'yargs';
import { createDnabertEmbedder, readDnabertConfig } from '@virnucpro/dnabert';
import { requireDnabertFolder } from './dnabert-folder.js';
import { readEmbedArgs, withEmbedOptions, withInputFile } from './embed-options.js';
import { runEmbed } from './embed-run.js';
import { requireFastaRecords } from './require-fasta-records.js';
import { describeForLog, startComputeBackend } from '../pipeline/compute-backend.js';
import { runCommand } from './run-command.js';

export const embedDnabertCommand: CommandModule = {
  command: 'dnabert',
  describe: 'Mean DNABERT-S embeddings of nucleotide FASTA records (VirNucPro nucleotide features)',
  builder: (y) =>
    withEmbedOptions(y, {
      model: 'DNABERT-S / DNABERT-2 folder (config.json, tokenizer.json, weights) or a converted tfjs folder',
      input: 'nucleotide FASTA (plain or gzip; - for standard input)',
      output: 'output .safetensors: float32 "embeddings" [N, hidden], ids in __metadata__',
      tokenBudget: 'tokens per packed batch (BPE tokens + [CLS]/[SEP])',
    })
      .epilogue('Each vector is the mean of the last hidden state over all tokens, [CLS] and [SEP] included, as VirNucPro computes it.')
      .example('$0 embed dnabert --model DNABERT-S --input chunks_identified_nucleotide.fa --output dna.safetensors', ''),
  handler: (args) =>
    runCommand(async () => {
      const given = readEmbedArgs(args);
      requireDnabertFolder(given.model, '--model');
      await withInputFile(given, async (run) => {
        await requireFastaRecords(run.input); // before the model load, which can take a while
        const config = await readDnabertConfig(join(run.model, 'config.json'));
        const compute = await startComputeBackend(run.backend, run.precision);
        const embedder = await createDnabertEmbedder({ model: run.model, backend: compute.backend });
        try {
          run.log?.(`${embedder.name} (${config.numLayers} layers, dim ${embedder.dim}) on ${describeForLog(compute)}`);
          const summary = await runEmbed({
            ...run,
            embedder,
            compute,
            residue: 'nucleotide',
            metadata: { model: embedder.name, config: JSON.stringify(config), format: 'virnucpro-embeddings' },
          });
          run.log?.(`${summary.sequences} sequences, ${summary.tokens} tokens in ${summary.batches} batches: ${summary.tokensPerSecond.toFixed(0)} tokens/s${summary.oomSplits ? `; ${summary.oomSplits} batch split(s) after running out of GPU memory` : ''}`);
        } finally {
          embedder.dispose();
        }
      });
    }),
};
