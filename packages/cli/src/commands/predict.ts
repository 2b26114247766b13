import type { CommandModule, Options } from 'yargs';
import { PREDICT_OPTIONS, type OptionSpec } from '../config/predict-options.js';
import { resolvePredictOptions } from '../config/resolve-predict-options.js';
import { FIGURES_POINTER, INPUT_KINDS } from '../config/shared-option-help.js';
import { boundHeapGrowth } from '../pipeline/main-heap.js';
import { usesWorkerProcesses } from '../pipeline/feature-pool.js';
import { runPredict } from '../pipeline/run-predict.js';
import { createProgressReporter } from '../progress/progress-reporter.js';
import { plural } from '../progress/plural.js';
import { runCommand } from './run-command.js';

/** $VIRNUCPRO_PROGRESS_INTERVAL: seconds between plain progress lines when stderr is not a terminal (default 10). */
function progressIntervalSeconds(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.VIRNUCPRO_PROGRESS_INTERVAL;
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

// Flags carry no yargs defaults: defaults are applied by resolvePredictOptions, after the config file, so
// an untyped flag never overrides a config value.
function yargsOption(spec: OptionSpec): Options {
  // Numbers show as [number], as in every other command; a typed word that is no number reaches coerceOption as NaN.
  const numeric = spec.kind === 'integer' || spec.kind === 'number' || (spec.kind === 'choice' && typeof spec.choices?.[0] === 'number');
  const type = spec.kind === 'boolean' ? 'boolean' : numeric ? 'number' : 'string';
  const shown = spec.default === undefined ? spec.defaultText : Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default);
  // Not yargs' demandOption: the value may come from the config file, which yargs does not read.
  const required = REQUIRED_OPTIONS.has(spec.key) ? ' [required: here or in --config]' : '';
  const alias = SHORT_FLAGS[spec.key];
  return {
    type,
    describe: spec.description + required,
    choices: spec.choices as Options['choices'],
    requiresArg: type !== 'boolean',
    ...(shown === undefined ? {} : { defaultDescription: shown }),
    ...(alias ? { alias } : {}),
  };
}

/** The short flags every command shares (prep, embed, merge, classify take the same letters). */
const SHORT_FLAGS: Record<string, string> = { 'out-dir': 'o', length: 'l', force: 'f', quiet: 'q' };

/** Options a run cannot go without (resolvePredictOptions refuses a run that lacks them). */
const REQUIRED_OPTIONS = new Set(['out-dir']);

export const predictCommand: CommandModule = {
  command: 'predict [input]',
  describe: 'Find viral sequences: FASTA → chunks → six frames → DNABERT-S + ESM-2 → MLP → per-chunk calls',
  builder: (y) => {
    let parser = y.positional('input', { type: 'string', describe: INPUT_KINDS });
    for (const spec of PREDICT_OPTIONS) if (spec.key !== 'input') parser = parser.option(spec.key, yargsOption(spec));
    return parser
      .example('$0 predict reads.fa --out-dir results', 'ESM-2 3B + DNABERT-S + 500 bp MLP from ~/.cache/virnucpro')
      .example('$0 predict reads.fa --model-type 300 --out-dir r300 --backend cuda --devices 0,1', 'two NVIDIA GPUs, one worker each')
      .example('$0 predict reads.fa --out-dir results --resume', 'continue an interrupted run')
      .example('$0 predict --config run.yaml', 'every option from a YAML file (see `virnucpro config init`)')
      .epilogue(`Exit codes: 0 done, 1 error, 2 bad input or options, 130 interrupted (SIGINT), 143 terminated (SIGTERM). See docs/usage.md.\n${FIGURES_POINTER}`);
  },
  handler: (args) =>
    runCommand(async () => {
      const flags: Record<string, unknown> = {};
      for (const spec of PREDICT_OPTIONS) if (args[spec.key] !== undefined) flags[spec.key] = args[spec.key];
      const options = resolvePredictOptions(flags);
      // With the models in worker processes, this process's heap at about twice its live data, whatever the run's
      // length (issue 46); with the models in a thread of this process, not (main-heap.ts).
      if (usesWorkerProcesses(options)) boundHeapGrowth();
      const reporter = createProgressReporter({ quiet: options.quiet, intervalSeconds: progressIntervalSeconds(process.env) });
      try {
        const s = await runPredict(options, { reporter, handleSignals: true }); // report.html included
        reporter.log(
          `done: ${plural(s.sequences, 'sequence')}, ${plural(s.chunks, 'chunk')}, ${plural(s.frames, 'frame')} in ${s.totalSeconds.toFixed(1)} s (${s.framesPerSecond.toFixed(1)} frames/s, backend ${s.backend} ${s.precision}${s.cuda ? ` on ${s.cuda.gpu}` : ''}${s.oomSplits ? `, ${s.oomSplits} batch split(s) after running out of GPU memory` : ''}); results in ${options.outDir}${s.shard ? ` (shard ${s.shard.index}/${s.shard.count}: ${s.shard.records} of the input's ${s.shard.inputRecords} records; join the shards with virnucpro merge)` : ''}`,
        );
      } finally {
        reporter.close();
      }
    }),
};
