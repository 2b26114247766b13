import type { Argv, CommandModule } from 'yargs';
import { describeForLog, modelRunsOnThread, planCompute, startCompute } from '@virnucpro/compute';
import { packWindowFor } from '@virnucpro/runtime';
import { UsageError, asUsageAsync } from '../errors.js';
import { MAX_NON_NUCLEOTIDE_SHARE } from '../pipeline/input-check.js';
import { nonNucleotideCount, nonNucleotideExamples, plainNucleotideCount } from '../pipeline/nucleotide-codes.js';
import { readEmbedArgs, withEmbedOptions, withInputFile } from './embed-options.js';
import { runEmbed, type EmbedRunOptions } from './embed-run.js';
import { startEmbedThread } from './embed-thread.js';
import { loadEmbeddingModel, type LoadedModelInfo } from './load-embedding-model.js';
import { requireFastaRecords } from './require-fasta-records.js';
import { runCommand } from './run-command.js';
import type { OfferedModel } from './embedding-models.js';

/** `virnucpro embed <model>` for one model package's descriptor: the same options and run for every model. */
export function embedModelCommand(offered: OfferedModel): CommandModule {
  const help = offered.help.embed;
  const settings = Object.entries(offered.settings ?? {});
  const protein = offered.reads === 'protein';
  return {
    command: offered.name,
    describe: help.describe,
    builder: (y) => {
      let built: Argv = withEmbedOptions(y, help);
      for (const [name, setting] of settings) built = built.option(name, { choices: setting.choices, default: setting.default, describe: setting.describe });
      if (help.epilogue) built = built.epilogue(help.epilogue);
      return built.example(help.example, '');
    },
    handler: (args) =>
      runCommand(async () => {
        const given = readEmbedArgs(args);
        const problem = offered.checkPath(given.model, '--model');
        if (problem) throw new UsageError(problem);
        await withInputFile(given, async (run) => {
          await requireFastaRecords(run.input); // before the model load, which can take a while
          const plan = await asUsageAsync(
            planCompute({
              backend: run.backend,
              ...(run.precision ? { precision: run.precision } : {}),
              ...(run.threads !== undefined ? { threads: run.threads } : {}),
              ...(run.tokenBudget !== undefined ? { tokenBudget: run.tokenBudget } : {}),
            }),
          );
          // The token budget (and the packing window that follows it) as predict takes them: from the plan.
          const tokenBudget = plan.tokenBudget;
          const window = run.window ?? packWindowFor(tokenBudget, 1024);
          for (const note of plan.notes) run.log?.(`virnucpro: note: ${note}`);
          // The tokenizer's threads start while the backend and the model load: started after them, they kept an H200's
          // GPU waiting ~0.1–0.2 s for its first batch (DNABERT-S's BPE threads, each reading tokenizer.json).
          const encoder = offered.startEncoder?.(run.model);
          encoder?.catch(() => undefined); // awaited by runEmbed; a model that fails to load fails first
          let encoderHandedOver = false;
          const chosen = Object.fromEntries(settings.map(([name]) => [name, String(args[name])]));
          /** Runs the embedding with the model loaded (here or on its thread), then logs what it did. */
          const embedWith = async (loaded: LoadedModelInfo, model: Pick<EmbedRunOptions, 'embedder' | 'modelThread'>) => {
            run.log?.(`${loaded.title} (${loaded.numLayers} layers, dim ${loaded.dim}) on ${describeForLog(loaded.compute)}`);
            encoderHandedOver = true;
            const summary = await runEmbed({
              ...run,
              ...model,
              tokenBudget,
              window,
              compute: loaded.compute,
              residue: protein ? 'amino acid' : 'nucleotide',
              checkRecord: protein ? notProtein(offered.name) : notDna(offered.name),
              metadata: { model: loaded.name, config: JSON.stringify(loaded.config), format: 'virnucpro-embeddings' },
              ...(encoder ? { encoder } : {}),
            });
            run.log?.(
              `${summary.sequences} ${protein ? 'proteins' : 'sequences'}, ${summary.tokens} tokens in ${summary.batches} batches: ${summary.tokensPerSecond.toFixed(0)} tokens/s` +
                (summary.truncated ? `; ${summary.truncated} record(s) cut to --truncate ${run.truncate}` : '') +
                (summary.oomSplits ? `; ${summary.oomSplits} batch split(s) after running out of GPU memory` : ''),
            );
          };
          try {
            // Where the ids come from the encoder's threads, the model goes on a thread of its own too (embed-thread.ts):
            // this thread then only reads, checks, packs and writes. VIRNUCPRO_EMBED_THREAD=0 keeps it here (A/B runs).
            if (encoder && modelRunsOnThread(plan.settings.backend) && process.env.VIRNUCPRO_EMBED_THREAD !== '0') {
              const thread = await startEmbedThread({ model: offered.name, path: run.model, settings: chosen }, plan.settings);
              try {
                await embedWith(thread.info, { modelThread: thread });
              } finally {
                await thread.close();
              }
              return;
            }
            const { model, info } = await loadEmbeddingModel(offered, run.model, chosen, await startCompute(plan.settings));
            try {
              await embedWith(info, { embedder: model });
            } finally {
              model.dispose();
            }
          } finally {
            if (!encoderHandedOver) await encoder?.then((unused) => unused.close(), () => undefined);
          }
        });
      }),
  };
}

/** Records of at least this many characters are told apart as DNA or protein by content; shorter ones pass. */
const KIND_CHECK_MIN_LENGTH = 20;

/** A protein model's check: a record of ≥ 90% A, C, G, T/U, N is DNA given by mistake. */
function notProtein(command: string) {
  return (sequence: string): string | undefined => {
    if (sequence.length < KIND_CHECK_MIN_LENGTH) return undefined;
    const share = plainNucleotideCount(sequence) / sequence.length;
    if (share < 0.9) return undefined;
    return `looks like DNA, not protein: ${Math.round(100 * share)}% of its ${sequence.length} characters are A, C, G, T/U or N. ` +
      `embed ${command} reads proteins: translate DNA first (virnucpro prep writes the proteins VirNucPro embeds), or use embed dnabert`;
  };
}

/** A nucleotide model's check: predict's rule, a record with more than 10% non-nucleotide codes is not DNA. */
function notDna(command: string) {
  return (sequence: string): string | undefined => {
    const outside = nonNucleotideCount(sequence);
    if (outside <= MAX_NON_NUCLEOTIDE_SHARE * sequence.length) return undefined;
    return `is not DNA: ${Math.round((100 * outside) / sequence.length)}% of its ${sequence.length} characters are not nucleotide codes ` +
      `(${nonNucleotideExamples(sequence)}; a protein FASTA?). embed ${command} reads DNA; proteins go to embed esm2`;
  };
}
