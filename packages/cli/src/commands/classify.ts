import { resolve } from 'node:path';
import { classifyFeatures, type ConsensusKeyRule, type PredictionFiles } from '@virnucpro/consensus';
import { loadMlp, readFeatures, type MlpClassifier } from '@virnucpro/mlp';
import type { CommandModule } from 'yargs';
import { classifySavedEmbeddings, isSavedEmbeddings, modelLoadError, openSavedEmbeddings, SavedEmbeddingsError } from '@virnucpro/predict';
import { UsageError } from '../errors.js';
import { interruptibly } from './interruptible.js';
import { runCommand } from './run-command.js';


/**
 * `virnucpro classify`: VirNucPro stages 8–9 on their own — the MLP over merged features, then the
 * per-chunk consensus — writing prediction_results.txt, prediction_results_highestscore.csv and
 * sequence_summary.tsv.
 */
export const classifyCommand: CommandModule = {
  command: 'classify',
  describe: 'Score merged DNABERT-S+ESM-2 features with the VirNucPro MLP and write the prediction files',
  builder: (y) =>
    y
      .option('mlp', { type: 'string', demandOption: true, describe: 'VirNucPro MLP: the original 300_model.pth / 500_model.pth, or a .safetensors' })
      .option('features', { type: 'string', demandOption: true, describe: "a VirNucPro merged .pt, a .safetensors of embed's layout, or predict's embeddings/" })
      .option('out-dir', { alias: 'o', type: 'string', demandOption: true, describe: 'directory for the output files (created if missing)' })
      .option('consensus-scores', { type: 'boolean', default: false, describe: 'add max_score_0/max_score_1 columns to the consensus csv' })
      .option('key-rule', { choices: ['original', 'frame-suffix'] as const, default: 'original', describe: "consensus key: original drops an id's last 2 characters; frame-suffix only F1..R3" })
      .option('summary', { type: 'boolean', default: true, describe: 'write sequence_summary.tsv (--no-summary to skip)' })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing but errors' })
      .epilogue(
        [
          "--features: a VirNucPro merged .pt ({'ids', 'data'}), a .safetensors with 'embeddings' [N, D] and the ids in its metadata, " +
            'or the embeddings/ folder of `predict --save-embeddings` (read shard by shard; the records, chunk length and region options are in it): ' +
            "from its fp32 features the three files are predict's byte for byte, from fp16 ones the scores are close, not equal.",
          'Writes into --out-dir:',
          '  prediction_results.txt               Sequence_ID, Prediction (virus|others), score1 (others), score2 (virus)',
          '  prediction_results_highestscore.csv  tab-separated: Modified_ID (chunk), Is_Virus (max score2 >= max score1)',
          '  sequence_summary.tsv                 one row per input sequence: chunks, viral chunks, fraction, best score, call',
          'Files appear only when complete. Exit codes: 0 ok, 1 error, 2 bad input, 130/143 interrupted.',
        ].join('\n'),
      )
      .example('$0 classify --mlp 500_model.pth --features output_1_merged.pt -o results', 'classify one merged feature file')
      .example('$0 classify --mlp other_500_model.pth --features run1/embeddings -o run1-other', 'score the frames of a predict --save-embeddings run with another MLP'),
  handler: (args) =>
    runCommand(async () => {
      const mlpPath = resolve(args.mlp as string);
      const featuresPath = resolve(args.features as string);
      const outDir = resolve(args['out-dir'] as string);
      const quiet = Boolean(args.quiet);
      await interruptibly(async (signal) => {
        // The same line as predict's for the same file (errors.ts: one wording and exit code per kind of failure).
        const mlp = await loadMlp(mlpPath).catch((e: unknown) => {
          throw modelLoadError('MLP', mlpPath, e);
        });
        const started = Date.now();
        const writerOptions = {
          keyRule: args['key-rule'] as ConsensusKeyRule,
          consensusScoreColumns: Boolean(args['consensus-scores']),
          summary: Boolean(args.summary),
          signal,
        };
        const files = (await isSavedEmbeddings(featuresPath))
          ? await classifySaved(mlp, featuresPath, outDir, writerOptions)
          : await classifyFile(mlp, featuresPath, mlpPath, outDir, writerOptions);
        if (!quiet) {
          const seconds = (Date.now() - started) / 1000;
          console.error(`classified ${files.rows} frames in ${files.chunks} chunks in ${seconds.toFixed(1)} s`);
          for (const f of [files.predictions, files.consensus, files.summary]) if (f) console.error(`wrote ${f}`);
        }
      });
    }),
};

type WriterOptions = Parameters<typeof classifyFeatures>[3];

/** A features file (merged .pt or safetensors), read whole. */
async function classifyFile(mlp: MlpClassifier, featuresPath: string, mlpPath: string, outDir: string, options: WriterOptions): Promise<PredictionFiles> {
  const features = await readFeatures(featuresPath).catch((e: Error) => {
    throw new UsageError(`cannot use --features ${featuresPath}: ${e.message}`);
  });
  if (features.dim !== mlp.inputDim) {
    throw new UsageError(`${featuresPath}: rows have ${features.dim} features but the MLP ${mlpPath} expects ${mlp.inputDim}`);
  }
  return classifyFeatures(mlp, features, outDir, options);
}

/** The folder of predict --save-embeddings, shard by shard, with its records: predict's files. */
async function classifySaved(mlp: MlpClassifier, featuresPath: string, outDir: string, options: WriterOptions): Promise<PredictionFiles> {
  const usage = (e: unknown): never => {
    throw e instanceof SavedEmbeddingsError ? new UsageError(`cannot use --features ${featuresPath}: ${e.message}`) : e;
  };
  const saved = await openSavedEmbeddings(featuresPath).catch(usage);
  return classifySavedEmbeddings(mlp, saved, outDir, options).catch(usage);
}
