import { existsSync, statSync } from 'node:fs';
import { access, constants, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openCheckpoint, CheckpointMismatchError } from '@virnucpro/checkpoint';
import { onTerminationSignal } from '../termination-signal.js';
import { AtomicFile, assertOutputDirUsable, commitAll, OutputDirNotEmptyError, removeStaleTempFiles, type StagedOutput } from '@virnucpro/atomic-file';
import { loadMlp, MOSTLY_N_SHARE, PredictionWriter, ThreadedMlp, type RegionOptions } from '@virnucpro/consensus';
import { chunkLayout, prepOutputPaths, inputStem, PrepWriter } from '@virnucpro/sixframe';
import { packWindowFor, runEmbedding, startPool, type WorkerPool, type WorkerTelemetry } from '@virnucpro/runtime';
import { defaultTokenBudget, planCompute, type ComputeDescription, type ComputePlan } from '@virnucpro/compute';
import type { PredictOptions } from '../config/predict-options.js';
import { requireFastaRecords } from '../commands/require-fasta-records.js';
import { ModelLoadError, UsageError, asUsageAsync, modelLoadMessageIn } from '../errors.js';
import { openInputFile, renameInputInError } from '../fs/input-source.js';
import { outDirError } from '../fs/out-dir-error.js';
import type { ProgressReporter } from '../progress/progress-reporter.js';
import { RunEstimate } from '../progress/run-estimate.js';
import { RunSummaryBuilder, type RunSummary } from '../progress/run-summary.js';
import { FEATURES_MODEL_NAME } from './feature-name.js';
import type { FeaturesCounters } from './features-worker.js';
import { esmTokenCount, type FrameItem } from './frame-item.js';
import { countFrames, emptyFrameCounts, framesFromFasta, type FrameCounts } from './frames-source.js';
import { fingerprintFastaRecords } from './input-fingerprint.js';
import { InputCheck } from './input-check.js';
import { startPipelineTrace } from './pipeline-trace.js';
import { describeModel } from './model-identity.js';
import { demoModelsFolder, resolveModelPaths } from './resolve-models.js';
import { selectShard } from '../sharding/shard-plan.js';
import { writeShardRecords, type ShardRecord } from '../sharding/shard-records-file.js';
import { workerEventWarning } from '../progress/worker-events.js';
import { plural } from '../progress/plural.js';
import { formatShardSpec } from '../sharding/shard-spec.js';
import { shardSummary } from '../sharding/shard-summary.js';

export const RUN_SUMMARY_FILE = 'run_summary.json';
export const CHECKPOINT_DIR = '.checkpoints';
/** Rows per MLP call (the original's DataLoader batch size; does not change results). */
const MLP_BATCH = 256;
/** Threads of the MLP (default: ThreadedMlp's, the cores less two, at most 16). */
export const MLP_THREADS_ENV = 'VIRNUCPRO_MLP_THREADS';

export interface RunPredictIo {
  reporter: ProgressReporter;
  /** Install SIGINT/SIGTERM handlers that save finished work and exit 130/143 (CLI: true; tests: false). */
  handleSignals?: boolean;
}

/**
 * `virnucpro predict` end to end, streaming: FASTA → chunks → six frames → [DNABERT-S | ESM-2] features
 * (packed on ESM-2 tokens, in-process or on a worker pool, checkpointed) → MLP → PredictionWriter. Results
 * come back in input order, so the outputs equal the original tool's row order.
 */
export async function runPredict(options: PredictOptions, io: RunPredictIo): Promise<RunSummary> {
  // Standard input (`-`) or a pipe: copied to a temporary file first (the input is read twice).
  const input = await openInputFile(options.input);
  try {
    return await runPredictOnFile({ ...options, input: input.path }, input.name, io);
  } catch (err) {
    throw renameInputInError(err, input);
  } finally {
    await input.dispose();
  }
}

/** runPredict on a regular file; `inputName` is how the user named it (`-` for standard input). */
async function runPredictOnFile(options: PredictOptions, inputName: string, io: RunPredictIo): Promise<RunSummary> {
  const { reporter } = io;
  if (existsSync(options.input) && statSync(options.input).isDirectory()) throw new UsageError(`${options.input}: is a folder, not a FASTA file`);
  if (!existsSync(options.input) || !statSync(options.input).isFile()) throw new UsageError(`input file not found: ${options.input}`);
  // Empty, no '>' header, binary: refused as `prep` refuses them, before any model is loaded or folder made.
  await requireFastaRecords(options.input);
  const models = resolveModelPaths(options);
  // Read the whole input once before any result is written: a malformed file fails the run leaving nothing
  // behind, and the count gives the progress bar its total. It runs on this thread while the models load on the
  // pool's (1M frames: ~6 s that the GPU no longer waits for); the input's error, if any, is the one reported.
  // --threads for both the models and the MLP; VIRNUCPRO_MLP_THREADS (0: the main thread) still overrides the MLP's.
  const mlpThreads = mlpThreadsFromEnv(process.env[MLP_THREADS_ENV]) ?? options.threads; // a bad value fails before anything starts
  const countStart = Date.now();
  const reading = reporter.activity(`reading ${inputName === '-' ? 'standard input' : inputName}`);
  // --shard K/N: this job's records (lengths read first to balance the parts); the whole input is still checked.
  const shard = options.shard ? await selectShard(options.input, options.shard) : undefined;
  let countSeconds = 0;
  const check = new InputCheck(options.input, options.input, options.allowNonDna);
  const counting = countFrames(options.input, options.length, { check, select: shard?.includes, minLength: options.minLength }).finally(() => {
    reading.end();
    countSeconds = (Date.now() - countStart) / 1000;
  });
  counting.catch(() => undefined); // awaited below, where every failure before it waits for it first
  /** A failure while the input is still being read: the input's own error wins (as when it was read first). */
  const afterInputCheck = async (err: unknown): Promise<never> => {
    await counting;
    throw err;
  };
  // The budget planCompute will choose (the same CUDA probe decides `auto`): the summary names it from the start.
  const tokenBudget = options.tokenBudget ?? defaultTokenBudget(options.backend);
  const summary = new RunSummaryBuilder({
    input: inputName,
    chunkLength: options.length,
    regions: regionOptionsOf(options),
    models,
    backend: options.backend,
    devices: options.devices,
    workers: options.workers,
    tokenBudget,
  });

  summary.startStage('load-models');
  // Ended once the models are loaded, or by the reporter's close() when the run stops before.
  const loading = reporter.activity('loading the models');
  const mlp = await loadMlp(models.mlp).catch((err: unknown) => afterInputCheck(new ModelLoadError('MLP', models.mlp, err)));
  let outDirState: { existed: boolean; empty: boolean };
  try {
    outDirState = await assertOutputDirUsable(options.outDir, { resume: options.resume, force: options.force });
  } catch (err) {
    return afterInputCheck(err instanceof OutputDirNotEmptyError ? new UsageError(err.message) : outDirError(options.outDir, err));
  }
  // An existing folder we cannot write into fails now, in one line, rather than at the first output file.
  await access(options.outDir, constants.W_OK).catch((err: unknown) => afterInputCheck(outDirError(options.outDir, err)));
  // Until the run's own handler is in place (the models can take minutes to load), a signal removes the folder this
  // run created (nothing is in it yet but our own empty checkpoint) and exits 130 / 143.
  let stopEarlyHandling = () => {};
  if (io.handleSignals) {
    stopEarlyHandling = onTerminationSignal(
      async () => {
        if (!outDirState.existed) await rm(options.outDir, { recursive: true, force: true });
        reporter.log(`stopped before any frame was computed; ${outDirState.existed ? `nothing written in ${options.outDir}` : `removed ${options.outDir}, which this run had created`}`);
      },
      { log: (m) => reporter.log(m) },
    );
  }
  const poolStarting = startFeaturePool(options, models, options.threads).catch(async (err: unknown) => {
    stopEarlyHandling();
    if (!outDirState.existed) await rmdir(options.outDir).catch(() => undefined);
    // A worker that could not read a model reports it as text: the same one line and exit 2 as in-process.
    const modelLoad = err instanceof Error && !(err instanceof UsageError) ? modelLoadMessageIn(err.message) : undefined;
    return afterInputCheck(modelLoad ? new UsageError(modelLoad) : err);
  });
  // A bad input is said as soon as it is found, not after the models have loaded (that can take minutes on a CPU).
  const pool = await Promise.race([poolStarting, counting.then(() => new Promise<never>(() => {}))]).catch(async (err: unknown) => {
    void poolStarting.then((started) => started.pool.close(), () => undefined); // once loaded, the models go too
    stopEarlyHandling();
    if (!outDirState.existed) await rmdir(options.outDir).catch(() => undefined);
    throw err;
  });
  loading.end();
  for (const note of pool.plan.notes) reporter.log(`virnucpro: note: ${note}`);
  summary.setCompute(pool.compute);
  summary.endStage('load-models');

  let writer: PredictionWriter | undefined;
  let checkpointDir: { stored: () => number } | undefined;
  let intermediate: PrepWriter | undefined;
  /** The result files (predictions, consensus, summary; the intermediates with --keep-intermediate), as opened. */
  const outputs: StagedOutput[] = [];
  /** run_summary.json, renamed into place after every result file: the mark of a complete run. */
  let completionMarker: AtomicFile | undefined;
  let removeSignalHandlers = () => stopEarlyHandling();
  const cleanUp = async () => {
    for (const output of [...outputs, ...(completionMarker ? [completionMarker] : [])]) await output.discard().catch(() => undefined);
    // Keep checkpoints that hold work (that is what --resume is for); otherwise leave no trace. Before the
    // checkpoint is open (e.g. a refused --resume: other model or input) the folder is not ours to touch.
    if (checkpointDir && checkpointDir.stored() === 0) await rm(join(options.outDir, CHECKPOINT_DIR), { recursive: true, force: true });
    if (!outDirState.existed) await rmdir(options.outDir).catch(() => undefined);
  };
  const threadedMlp = ThreadedMlp.start(mlp, { threads: mlpThreads });
  try {
    const totals = await counting;
    if (mlp.inputDim !== pool.pool.dim) {
      throw new UsageError(
        `the MLP ${models.mlp} expects ${mlp.inputDim}-d features, but the models make ${pool.pool.dim}-d ones ([DNABERT-S | ESM-2]); use the MLP trained for these models`,
      );
    }
    const inputFingerprint = await fingerprintFastaRecords(options.input);
    const checkpoint = await openCheckpoint({
      dir: join(options.outDir, CHECKPOINT_DIR),
      model: {
        feature: FEATURES_MODEL_NAME, chunkLength: options.length, esm: describeModel(models.esm), dnabert: describeModel(models.dnabert),
        ...(options.shard ? { shard: formatShardSpec(options.shard) } : {}),
      },
      inputFingerprint,
      dim: pool.pool.dim,
      resume: options.resume,
      force: options.force,
      checkpointEvery: options.checkpointEvery,
      checkpointIntervalMs: options.checkpointSeconds * 1000,
    }).catch((err: Error) => {
      throw err instanceof CheckpointMismatchError ? new UsageError(err.message) : err;
    });
    checkpointDir = { stored: () => checkpoint.itemsStored };
    // Once the run is accepted (input, models, out-dir, checkpoint), so that every refusal stays one line.
    const demo = demoModelsFolder(models);
    if (demo) reporter.log(`virnucpro: note: the demo models in ${demo} have random weights; their virus/others calls mean nothing (real models: virnucpro models download)`);
    if (outDirState.existed) await removeStaleTempFiles(options.outDir);
    if (options.resume && checkpoint.report.restoredItems > 0) {
      reporter.log(`resuming: ${checkpoint.report.restoredItems} frames restored from ${checkpoint.report.verifiedShards} checkpoint shard(s)`);
    }
    for (const dropped of checkpoint.report.droppedShards) reporter.log(`checkpoint shard ${dropped.file} discarded (${dropped.reason}); its frames are recomputed`);

    summary.addStageSeconds('count', countSeconds);

    writer = await PredictionWriter.create(options.outDir, { chunkFiles: true, regions: regionOptionsOf(options) });
    outputs.push(writer);
    if (options.keepIntermediate) {
      const paths = prepOutputPaths(options.outDir, inputStem(inputName === '-' ? 'stdin' : inputName), options.length);
      intermediate = await PrepWriter.open(paths);
      outputs.push(intermediate);
    }
    if (io.handleSignals) {
      stopEarlyHandling();
      removeSignalHandlers = onTerminationSignal(
        async () => {
          // Workers first, at once: a batch in progress is not waited for (its frames are recomputed on
          // --resume); then the frames already finished become a checkpoint shard.
          await pool.pool.close({ graceMs: 0 }).catch(() => undefined);
          await checkpoint.flush();
          const kept = checkpoint.itemsStored;
          await cleanUp();
          reporter.log(stoppedLine(kept, totals.frames, inputName, options.outDir));
        },
        { log: (m) => reporter.log(m) },
      );
    }

    for (const line of inputNotes(totals, options.minLength)) reporter.log(line);
    const counts = emptyFrameCounts();
    const activeWriter = writer;
    const shardRecords: ShardRecord[] = [];
    const frames = framesFromFasta(options.input, options.length, counts, {
      intermediate,
      select: shard?.includes,
      minLength: options.minLength,
      onRecord: ({ id, recordIndex, length, nBases, skipped }) => {
        if (skipped) activeWriter.declareSkippedRecord(id, length, { nBases });
        else activeWriter.declareRecord(id, chunkLayout(length, options.length), { nBases });
        if (shard) shardRecords.push({ inputRecord: recordIndex + 1, id });
      },
    });
    // The frames this run computes (a resumed run restores the others; their tokens in proportion).
    const toCompute = Math.max(0, totals.frames - checkpoint.report.restoredItems);
    const estimate = new RunEstimate({
      frames: toCompute,
      tokens: totals.frames > 0 ? Math.round((totals.esmTokens * toCompute) / totals.frames) : 0,
      concurrency: pool.plan.devices?.length ?? 1,
    });
    const progress = reporter.stage('predict', { total: totals.frames, unit: 'frames', secondsLeft: () => estimate.secondsLeft() });
    // Every batch the pool embeds counts towards the packing efficiency, and times the run's estimate.
    pool.pool.events$.subscribe((event) => {
      if (event.type === 'batch') {
        summary.addBatch(event.tokens);
        const line = estimate.batch(event.tokens);
        if (line) reporter.log(`virnucpro: ${line}`);
      }
      // A worker process that died (its GPU failed, it was killed, it hung): said as it happens.
      const warning = workerEventWarning(event);
      if (warning) reporter.log(`virnucpro: warning: ${warning}`);
    });
    const packWindow = options.packWindow ?? packWindowFor(pool.plan.tokenBudget, 2000);
    const run = runEmbedding<FrameItem>({
      items: frames,
      pack: { tokenBudget: pool.plan.tokenBudget, window: packWindow, tokenCount: esmTokenCount },
      // Results wait up to a window for their turn (restoreOrder) and then for the MLP: with the runtime's
      // default (2 windows) the next window could not be read while the consumer caught up, and the GPU ran
      // dry every few seconds (H100, 100K frames: 0.4–0.8 s gaps, pool empty each time). Frames are small and
      // a waiting result is 13 KB: 4 windows hold ~100 MB.
      maxReadAhead: 4 * packWindow,
      pool: pool.pool,
      checkpoint,
      idOf: (frame) => frame.id,
    });

    summary.startStage('embed+classify');
    const trace = startPipelineTrace(() => ({ ...run.stats, classified: activeWriter.rows, freeCredit: pool.pool.freeCredit() }));
    const dim = pool.pool.dim;
    let ids: string[] = [];
    let rows = new Float32Array(MLP_BATCH * dim);
    // The MLP runs on worker threads (same bytes as one thread), one batch at a time while the next one
    // fills: at ~0.4–0.7 ms per row on one core it would otherwise hold the GPU back.
    let classifying: Promise<void> = Promise.resolve();
    const classify = async () => {
      if (ids.length === 0) return;
      const batchIds = ids;
      const probabilities = threadedMlp.predict(rows.subarray(0, ids.length * dim), ids.length);
      const previous = classifying;
      classifying = (async () => {
        const p = await probabilities;
        await previous;
        await activeWriter.writeBatch(batchIds, p);
      })();
      ids = [];
      await previous;
    };
    try {
      for await (const result of run) {
        rows.set(result.vector, ids.length * dim);
        ids.push(result.item.id);
        progress.tick(1, esmTokenCount(result.item));
        if (ids.length === MLP_BATCH) {
          await classify();
          rows = new Float32Array(MLP_BATCH * dim);
        }
      }
      await classify();
      await classifying;
    } finally {
      trace.stop(); // on a failed run too: the file ends with the counters where it stopped
    }
    progress.finish();
    summary.endStage('embed+classify');

    // Every result file is written and fsynced under its temporary name first (a full disk fails here, and
    // nothing is visible yet); they are renamed into place together at the end, run_summary.json last.
    await summary.time('write', async () => {
      for (const output of outputs) await output.complete();
    });
    await checkpoint.close({ complete: true });
    removeSignalHandlers();
    summary.sequences = counts.sequences;
    if (options.minLength !== undefined) summary.minLength = { minLength: options.minLength, skippedSequences: counts.skipped };
    summary.chunks = counts.chunks;
    summary.frames = counts.frames;
    summary.resumedSequences = run.stats.resumedSequences;
    const telemetry = pool.pool.telemetry();
    summary.setCompute(computeOf(telemetry, pool.compute));
    summary.oomSplits = telemetry.reduce((sum, t) => sum + oomSplitsOf(t), 0);
    summary.fp32Recomputes = telemetry.reduce((sum, t) => sum + fp32RecomputesOf(t), 0);
    summary.esmTokens = telemetry.reduce((sum, t) => sum + counterOf(t, 'esmTokens'), 0);
    summary.dnabertTokens = telemetry.reduce((sum, t) => sum + counterOf(t, 'dnabertTokens'), 0);
    summary.peakGpuBytes = Math.max(0, ...telemetry.map((t) => counterOf(t, 'peakGpuBytes')));
    summary.gpuBusySamples = telemetry.reduce((sum, t) => sum + counterOf(t, 'gpuBusySamples'), 0);
    summary.gpuBusyPercentSum = telemetry.reduce((sum, t) => sum + counterOf(t, 'gpuBusyPercentSum'), 0);
    if (usesWorkerProcesses(options)) {
      summary.workerStats = telemetry.map((t) => {
        const cuda = (t.info as Partial<ComputeDescription> | undefined)?.cuda;
        return {
          worker: t.worker, device: t.device, batches: t.batches, frames: t.items, tokens: t.tokens, seconds: t.seconds, restarts: t.restarts,
          oomSplits: oomSplitsOf(t), ...(cuda ? { cuda } : {}),
        };
      });
    }
    const result = summary.build('complete');
    if (shard) {
      // Before run_summary.json, which marks the shard finished for `virnucpro merge`.
      writeShardRecords(options.outDir, shardRecords);
      result.shard = shardSummary(shard, inputFingerprint, result, models);
    }
    completionMarker = await AtomicFile.create(join(options.outDir, RUN_SUMMARY_FILE));
    await completionMarker.write(JSON.stringify(result, null, 2) + '\n');
    // Last: a folder with run_summary.json holds a complete run.
    await commitAll([...outputs, completionMarker]);
    return result;
  } catch (err) {
    removeSignalHandlers();
    await cleanUp();
    throw err;
  } finally {
    await pool.pool.close().catch(() => undefined);
    await threadedMlp.close();
  }
}

/**
 * The features model on a worker pool: worker processes (--devices / --workers N) or, by default, one
 * worker thread of this process. The thread keeps the model's compute off the main thread, so signals,
 * checkpoint timers and progress run on time, through the same pool code as worker processes.
 */
async function startFeaturePool(
  options: PredictOptions,
  models: { esm: string; dnabert: string },
  threads: number | undefined,
): Promise<{ pool: WorkerPool<FrameItem>; compute: ComputeDescription; plan: ComputePlan }> {
  const model = { module: fileURLToPath(new URL('./features-worker.js', import.meta.url)), export: 'featuresWorkerFactory', options: models };
  const devices = options.devices.map((d) => {
    const n = Number(d);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`--devices: '${d}' is not a device number`);
    return n;
  });
  // Refused before any GPU is looked for: the same answer on a machine with or without one.
  const twice = devices.find((n, i) => devices.indexOf(n) !== i);
  if (twice !== undefined) throw new UsageError(`--devices: GPU ${twice} is listed twice (one worker per GPU; --workers N runs N on each)`);
  // `auto`, the precision and the devices, decided here once without starting a backend; each worker starts that.
  const plan = await asUsageAsync(
    planCompute({
      backend: options.backend,
      ...(options.precision ? { precision: options.precision } : {}),
      devices,
      workers: options.workers,
      ...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}),
      ...(threads !== undefined ? { threads } : {}),
    }),
  );
  // No devices: the runtime's in-process mode, the models on a worker thread of this process.
  const pool = await startPool<FrameItem>({ model, compute: plan.settings, ...(plan.devices ? { devices: plan.devices } : { thread: true }) });
  const { backend, precision } = plan.settings;
  return { pool, compute: computeOf(pool.telemetry(), { backend, precision }), plan };
}

/** --devices or --workers N: worker processes; otherwise the default mode, the models in a thread of this process. */
function usesWorkerProcesses(options: PredictOptions): boolean {
  return options.devices.length > 0 || options.workers > 0;
}

/** Backend, precision and GPU as the workers described them (the first that did), else `fallback`. */
function computeOf(telemetry: WorkerTelemetry[], fallback: ComputeDescription): ComputeDescription {
  const described = telemetry.map((t) => t.info as ComputeDescription | undefined).filter((i): i is ComputeDescription => !!i?.backend);
  if (described.length === 0) return fallback;
  const first = described[0];
  const gpus = [...new Set(described.flatMap((d) => (d.cuda ? [d.cuda.gpu] : [])))];
  const arches = [...new Set(described.flatMap((d) => (d.cuda ? [d.cuda.arch] : [])))];
  return {
    backend: first.backend,
    precision: first.precision,
    // Several different GPUs: their names side by side (the library versions are one host's).
    ...(first.cuda ? { cuda: { ...first.cuda, gpu: gpus.join(', '), arch: arches.join(', ') } } : {}),
  };
}

function counterOf(t: WorkerTelemetry, name: keyof FeaturesCounters): number {
  return (t.counters as Partial<FeaturesCounters> | undefined)?.[name] ?? 0;
}

function oomSplitsOf(t: WorkerTelemetry): number {
  return counterOf(t, 'oomSplits');
}

function fp32RecomputesOf(t: WorkerTelemetry): number {
  return counterOf(t, 'fp32Recomputes');
}

/** The viral-region options of the run (--region-gap, --region-max-gap, --min-region-chunks). */
function regionOptionsOf(options: PredictOptions): RegionOptions {
  return { gap: options.regionGap, maxGapBases: options.regionMaxGap, minChunks: options.minRegionChunks };
}

/** What a stopped run kept, and the command that continues it. */
function stoppedLine(kept: number, total: number, inputName: string, outDir: string): string {
  if (kept === 0) return 'no frame was finished, so nothing was kept';
  const input = inputName === '-' ? '- (the same input on standard input)' : shellWord(inputName);
  return `kept ${kept.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} frames in ${join(outDir, CHECKPOINT_DIR)}; ` +
    `continue with the same models and options: virnucpro predict ${input} --out-dir ${shellWord(outDir)} --resume`;
}

/** A path as one shell word (quoted when it holds anything but safe characters). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function mlpThreadsFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const threads = Number(value);
  if (!Number.isInteger(threads) || threads < 0) throw new UsageError(`${MLP_THREADS_ENV} must be a whole number ≥ 0 (0: the MLP on the main thread), got '${value}'`);
  return threads;
}

/**
 * What predict says about the input once it has been read: records skipped by --min-length, and records that are
 * mostly N (more than MOSTLY_N_SHARE of their bases), whose calls rest on few real bases. One line each.
 */
export function inputNotes(totals: FrameCounts, minLength: number | undefined): string[] {
  const lines: string[] = [];
  if (minLength !== undefined && totals.skipped > 0) {
    lines.push(`virnucpro: note: ${plural(totals.skipped, 'record')} shorter than --min-length ${minLength} skipped (call 'skipped' in sequence_summary.tsv, no other rows)`);
  }
  if (totals.mostlyN > 0) {
    const more = totals.mostlyN > totals.mostlyNExamples.length ? ', …' : '';
    lines.push(
      `virnucpro: warning: ${plural(totals.mostlyN, 'record')} ${totals.mostlyN === 1 ? 'is' : 'are'} mostly N (over ${100 * MOSTLY_N_SHARE}% of the bases: ` +
        `${totals.mostlyNExamples.join(', ')}${more}); their calls rest on few real bases (see fraction_n in sequence_summary.tsv)`,
    );
  }
  return lines;
}
