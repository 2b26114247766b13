import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openCheckpoint, CheckpointMismatchError, type CheckpointSession } from '@virnucpro/checkpoint';
import { removeStaleTempFiles } from '@virnucpro/atomic-file';
import { PredictionWriter, ReportCollector, type RegionOptions } from '@virnucpro/consensus';
import { loadMlp } from '@virnucpro/mlp';
import { readFasta, type FastaRecord } from '@virnucpro/fasta-stream';
import { prepOutputPaths, inputStem, PrepWriter, SAVED_EMBEDDINGS_DIR, SavedEmbeddingsWriter } from '@virnucpro/predict';
import { defaultTokenBudget } from '@virnucpro/compute';
import type { WorkerPluginSpec } from '@virnucpro/runtime';
import {
  DEFAULT_REFINE_MARGIN, FEATURES_MODEL_NAME, FeatureMismatchError, assertFeaturesFit, recordFacts, modelLoadError, runPrediction, type Features,
} from '@virnucpro/predict';
import type { PredictOptions } from '../config/predict-options.js';
import { requireFastaRecords } from '../commands/require-fasta-records.js';
import { writeReportAfterRun } from '../commands/report.js';
import { UsageError } from '../errors.js';
import { openInputFile, renameInputInError } from '../fs/input-source.js';
import type { ProgressReporter } from '../progress/progress-reporter.js';
import { byteSize } from '../progress/byte-size.js';
import { plural } from '../progress/plural.js';
import { RunSummaryBuilder, type RunSummary } from '../progress/run-summary.js';
import { acceptOutDir } from './accept-out-dir.js';
import { startFeaturePool, usesWorkerProcesses } from './feature-pool.js';
import { countFrames, type FrameCounts } from './input-count.js';
import { inputNotes } from './input-notes.js';
import { InputCheck } from './input-check.js';
import { startPipelineTrace } from './pipeline-trace.js';
import { describeModel } from './model-identity.js';
import { demoModelsFolder, resolveModelPaths, type ModelPaths } from './resolve-models.js';
import { followRun } from './run-progress.js';
import { runBesideCount } from './run-beside-count.js';
import { RunOutputs } from './run-outputs.js';
import { CHECKPOINT_DIR, stopBeforeTheRun, stopDuringTheRun } from './stop-signals.js';
import { commandLine } from '../command-line.js';
import { selectShard, type ShardSelection } from '../sharding/shard-plan.js';
import { ShardRecordsWriter } from '../sharding/shard-records-file.js';
import { formatShardSpec } from '../sharding/shard-spec.js';
import { shardSummary } from '../sharding/shard-summary.js';

export { CHECKPOINT_DIR } from './stop-signals.js';
export { RUN_SUMMARY_FILE } from './run-outputs.js';
/** Threads of the MLP in each worker (default: the cores less one, shared among the workers, at most 16 each). */
export const MLP_THREADS_ENV = 'VIRNUCPRO_MLP_THREADS';
/** Rows a shard of --save-embeddings holds (default 4,096: 54 MB of the released models' features in fp32). */
export const EMBEDDINGS_SHARD_ROWS_ENV = 'VIRNUCPRO_EMBEDDINGS_SHARD_ROWS';

export interface RunPredictIo {
  reporter: ProgressReporter;
  /** Install SIGINT/SIGTERM handlers that save finished work and exit 130/143 (CLI: true; tests: false). */
  handleSignals?: boolean;
  /**
   * Another worker plugin in place of the models (tools/bench/host-pipeline: simulated devices that score frames at
   * once, to measure the host side alone). Not an option of the command.
   */
  featuresPlugin?: WorkerPluginSpec;
}

/**
 * `virnucpro predict` end to end, streaming: @virnucpro/predict's composition (records → paced frames →
 * [DNABERT-S | ESM-2] features on a worker pool → MLP → PredictionWriter), with what the command adds around it:
 * the input read and checked first, a checkpoint for --resume, --shard, progress, signals, run_summary.json and the
 * files published together at the end. Results come back in input order, so the rows are the original tool's order.
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
  await requireInputFile(options.input);
  const models = resolveModelPaths(options);
  // --threads for both the models and the MLP; VIRNUCPRO_MLP_THREADS (0: the worker's own thread) still overrides the MLP's.
  const mlpThreads = mlpThreadsFromEnv(process.env[MLP_THREADS_ENV]) ?? options.threads; // a bad value fails before anything starts
  const shardRows = options.saveEmbeddings ? embeddingsShardRows() : {};
  // --shard K/N: this job's records (lengths read first to balance the parts); the whole input is still checked.
  const reading = reporter.activity(`reading ${inputName === '-' ? 'standard input' : inputName}`);
  const shard = options.shard ? await selectShard(options.input, options.shard) : undefined;
  // Read the whole input once before any result is published: a malformed file fails the run leaving nothing behind,
  // and the count gives the progress bar its total and the checkpoint the input's fingerprint. It runs on this thread
  // while the models load on the pool's, and a fresh run's compute starts beside it (10^8 frames: minutes that the
  // GPUs no longer wait for); the input's error, if any, is the one reported.
  const countStart = Date.now();
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
  const summary = new RunSummaryBuilder({
    input: inputName,
    chunkLength: options.length,
    regions: regionOptionsOf(options),
    models,
    backend: options.backend,
    devices: options.devices,
    workers: options.workers,
    // The budget the compute plan will choose (the same CUDA probe decides `auto`): the summary names it from the start.
    tokenBudget: options.tokenBudget ?? defaultTokenBudget(options.backend),
  });

  summary.startStage('load-models');
  // Ended once the models are loaded, or by the reporter's close() when the run stops before.
  const loading = reporter.activity('loading the models');
  // Read here first though the workers score the frames: a bad MLP is refused before minutes of model loading.
  const mlp = await loadMlp(models.mlp).catch((err: unknown) => afterInputCheck(modelLoadError('MLP', models.mlp, err)));
  // The stop handlers go in before the folder is made: installed after it, a SIGTERM in between (the folder seen, the
  // promise not yet resumed) killed the run unhandled and left the folder behind.
  const outDirExisted = existsSync(options.outDir);
  let removeSignalHandlers = io.handleSignals ? stopBeforeTheRun(options.outDir, outDirExisted, (m) => reporter.log(m)) : () => {};
  const outDirState = await acceptOutDir(options.outDir, options).catch((err: unknown) => {
    removeSignalHandlers();
    return afterInputCheck(err);
  });
  const outputs = new RunOutputs(options.outDir, outDirState.existed);
  const poolStarting = startFeaturePool(options, models, { mlpThreads, plugin: io.featuresPlugin }).catch(async (err: unknown) => {
    removeSignalHandlers();
    await outputs.removeCreatedOutDir();
    return afterInputCheck(err);
  });
  // A bad input is said as soon as it is found, not after the models have loaded (that can take minutes on a CPU).
  const features = await Promise.race([poolStarting, counting.then(() => new Promise<never>(() => {}))]).catch(async (err: unknown) => {
    void poolStarting.then((started) => started.close(), () => undefined); // once loaded, the models go too
    removeSignalHandlers();
    await outputs.removeCreatedOutDir();
    throw err;
  });
  loading.end();
  for (const note of features.plan.notes) reporter.log(`virnucpro: note: ${note}`);
  summary.setCompute(features.compute);
  summary.endStage('load-models');

  let checkpoint: CheckpointSession | undefined;
  let workersClosing: Promise<void> | undefined;
  const cleanUp = () => outputs.discard(checkpoint);
  try {
    // --resume compares the input's fingerprint with its checkpoint's before a frame is computed: it waits for the
    // count. A fresh run computes at once; its checkpoint is written without a manifest until the fingerprint comes
    // (docs/architecture.md, "Check and count").
    if (options.resume) await counting;
    try {
      assertFeaturesFit(mlp.inputDim, features, models.mlp);
    } catch (err) {
      throw err instanceof FeatureMismatchError ? new UsageError(err.message) : err;
    }
    const fingerprint = counting.then((counts) => counts.fingerprint);
    fingerprint.catch(() => undefined); // the count's failure is handled where `counting` is awaited
    const opened = await openRunCheckpoint(options, models, fingerprint, features);
    checkpoint = opened;
    // Once the run is accepted (input, models, out-dir, checkpoint), so that every refusal stays one line.
    const demo = demoModelsFolder(models);
    if (demo) reporter.log(`virnucpro: note: the demo models in ${demo} have random weights; their virus/others calls mean nothing (real models: \`${commandLine(['models', 'download'])}\`)`);
    summary.demoModels = demo !== undefined;
    if (outDirState.existed) await removeStaleTempFiles(options.outDir);
    const embeddingsDir = join(options.outDir, SAVED_EMBEDDINGS_DIR);
    if (existsSync(embeddingsDir)) await removeStaleTempFiles(embeddingsDir); // a killed --save-embeddings run's shards
    sayWhatWasRestored(opened, options.resume, (m) => reporter.log(m));

    // report.html's data gathered as the records are written (a run of 10^8 frames need not read ~25 GB back for it).
    const report = new ReportCollector();
    const writer = outputs.add(await PredictionWriter.create(options.outDir, { chunkFiles: true, regions: regionOptionsOf(options), report }));
    // --save-embeddings: the features every final score came from, in shards written as the run goes (published
    // with the other results); the checkpoint keeps them beside the scores, so --resume writes them again whole.
    const embeddings = options.saveEmbeddings
      ? outputs.add(
          await SavedEmbeddingsWriter.create(embeddingsDir, {
            chunkLength: options.length,
            dtype: options.embeddingsDtype === 'fp16' ? 'float16' : 'float32',
            regions: regionOptionsOf(options),
            precision: features.compute.precision,
            ...(features.dnabertDim !== undefined ? { dnabertDim: features.dnabertDim } : {}),
            ...shardRows,
          }),
        )
      : undefined;
    const intermediate = options.keepIntermediate
      ? outputs.add(await PrepWriter.open(prepOutputPaths(options.outDir, inputStem(inputName === '-' ? 'stdin' : inputName), options.length)))
      : undefined;
    /** The input's count, once it has ended (at once on --resume). */
    let totals: FrameCounts | undefined;
    if (io.handleSignals) {
      removeSignalHandlers();
      removeSignalHandlers = stopDuringTheRun(
        { closeWorkers: () => features.pool.close({ graceMs: 0 }), flushCheckpoint: () => opened.flush(), kept: () => opened.itemsStored, cleanUp },
        { total: () => totals?.frames, inputName, outDir: options.outDir },
        (m) => reporter.log(m),
      );
    }

    const shardRecords = shard ? outputs.add(await ShardRecordsWriter.create(options.outDir)) : undefined;
    const records = recordsOfThisRun(options.input, shard, options.minLength, (record, inputRecord) => {
      // Skipped (--min-length): a sequence_summary.tsv row, called 'skipped', and nothing else.
      writer.declareSkippedRecord(record.id, record.sequence.length, recordFacts(record));
      embeddings?.declareSkippedRecord(record.id, record.sequence.length, recordFacts(record));
      shardRecords?.add({ inputRecord, id: record.id });
    });
    const progress = followRun(reporter, summary, features, opened.report.restoredItems);
    // What the count says once it ends, while the frames are computed: the bar's total, the notes on the input.
    const counted = counting.then((counts) => {
      totals = counts;
      progress.counted(counts);
      for (const line of inputNotes(counts, options.minLength)) reporter.log(line);
      return counts;
    });
    counted.catch(() => undefined); // awaited beside the run below
    summary.startStage('embed+classify');
    // The package's pipeline (@virnucpro/predict runPrediction), with this run's checkpoint and progress. The frames
    // are scored in the workers; fp8's frames scored near 0.5 get a second look in bf16 (--refine-margin).
    const run = runPrediction({
      features,
      records,
      writer,
      chunkLength: options.length,
      ...(options.packWindow !== undefined ? { packWindow: options.packWindow } : {}),
      ...(options.refineMargin !== undefined ? { refineMargin: options.refineMargin } : {}),
      checkpoint: opened,
      ...(embeddings ? { embeddings } : {}),
      ...(intermediate ? { intermediate } : {}),
      onRecord: (record) => {
        shardRecords?.add({ inputRecord: (record as IndexedRecord).inputRecord, id: record.id });
      },
      onResult: (result) => progress.tick(result.item),
    });
    if (run.refinement) summary.setRefinement(run.refinement.margin, run.refinement.precision);
    const trace = startPipelineTrace(() => ({ ...run.stats, classified: writer.rows, freeCredit: features.pool.freeCredit() }));
    let counts: FrameCounts;
    try {
      [summary.frames, counts] = await runBesideCount(run.done, counted, () => features.pool.close({ graceMs: 0 }));
    } finally {
      trace.stop(); // on a failed run too: the file ends with the counters where it stopped
    }
    // Every frame is scored: the workers go now, while the files are written (their exit, the GPU's memory freed,
    // takes a second or two that the run need not wait for twice).
    workersClosing = features.close();
    progress.finish();
    summary.addStageSeconds('count', countSeconds);
    summary.endStage('embed+classify');

    await summary.time('write', () => outputs.complete());
    await opened.close({ complete: true });
    removeSignalHandlers();
    summary.sequences = counts.sequences;
    if (options.minLength !== undefined) summary.minLength = { minLength: options.minLength, skippedSequences: counts.skipped };
    summary.chunks = counts.chunks;
    summary.resumedSequences = run.stats.resumedSequences;
    summary.setFeatures(features.telemetry(), usesWorkerProcesses(options));
    const result = summary.build('complete');
    if (shard) {
      // shard_records.tsv is published with the results, before run_summary.json (which marks the shard finished).
      result.shard = shardSummary(shard, counts.fingerprint, result, models);
    }
    if (embeddings) result.embeddings = { folder: SAVED_EMBEDDINGS_DIR, dtype: options.embeddingsDtype ?? 'fp32', frames: embeddings.frames, shards: embeddings.shardsWritten };
    await outputs.publish(result);
    if (embeddings) reporter.log(`virnucpro: saved the features of ${embeddings.frames} frames in ${embeddings.shardsWritten} shard(s) to ${embeddingsDir} (virnucpro classify --features ${embeddingsDir} reads them)`);
    // As `virnucpro report` would make it from the files (run_summary.json as written); a failure only warns.
    await writeReportAfterRun(options.outDir, (m) => reporter.log(m), report.data(JSON.parse(JSON.stringify(result)) as Record<string, unknown>));
    // The published files hold every score: the shards, needed only to finish an interrupted run, go; the manifest
    // (the run's identity) stays, so that a --resume with other settings is refused before it overwrites them.
    const freed = await opened.dropShards();
    reporter.log(`virnucpro: removed the checkpoint's shards (${byteSize(freed)}; every score is in the results), kept ${join(options.outDir, CHECKPOINT_DIR, 'manifest.json')} (this run's identity)`);
    return result;
  } catch (err) {
    removeSignalHandlers();
    workersClosing ??= features.close(); // now: a fresh run's count may still have a while to go below
    await cleanUp();
    return await afterInputCheck(err); // the input's error wins, as when the input was read first
  } finally {
    await (workersClosing ?? features.close()).catch(() => undefined);
  }
}

/** The input is a regular file holding FASTA records: refused otherwise before any model is loaded or folder made. */
async function requireInputFile(input: string): Promise<void> {
  if (existsSync(input) && statSync(input).isDirectory()) throw new UsageError(`${input}: is a folder, not a FASTA file`);
  if (!existsSync(input) || !statSync(input).isFile()) throw new UsageError(`input file not found: ${input}`);
  // Empty, no '>' header, binary: refused as `prep` refuses them.
  await requireFastaRecords(input);
}

/**
 * The checkpoint of this run: each frame's two scores. Its identity is what the scores depend on (the models, the
 * MLP, the chunk length, the precision and fp8's refinement margin), the shard and the input; a refused --resume
 * is a usage error.
 */
function openRunCheckpoint(options: PredictOptions, models: ModelPaths, inputFingerprint: Promise<string>, features: Features): Promise<CheckpointSession> {
  const refines = features.refinesTo !== undefined && (options.refineMargin ?? DEFAULT_REFINE_MARGIN) > 0;
  return openCheckpoint({
    dir: join(options.outDir, CHECKPOINT_DIR),
    model: {
      scores: FEATURES_MODEL_NAME, chunkLength: options.length, esm: describeModel(models.esm), dnabert: describeModel(models.dnabert), mlp: describeModel(models.mlp),
      precision: features.compute.precision,
      ...(refines ? { refineMargin: options.refineMargin ?? DEFAULT_REFINE_MARGIN } : {}),
      // With --save-embeddings the shards hold each frame's features after its scores: a resume needs them too.
      ...(options.saveEmbeddings ? { embeddings: 'kept (--save-embeddings)' } : {}),
      ...(options.shard ? { shard: formatShardSpec(options.shard) } : {}),
    },
    inputFingerprint,
    dim: features.pool.dim,
    resume: options.resume,
    force: options.force,
    checkpointEvery: options.checkpointEvery,
    checkpointIntervalMs: options.checkpointSeconds * 1000,
  }).catch((err: Error) => {
    throw err instanceof CheckpointMismatchError ? new UsageError(err.message) : err;
  });
}

/**
 * What --resume found in the checkpoint: frames restored, or none (shards that no manifest lists are removed: those of
 * a run stopped before it had read its input through, which had no identity yet), shards that failed verification.
 */
function sayWhatWasRestored(checkpoint: CheckpointSession, resume: boolean, log: (line: string) => void): void {
  const { restoredItems, verifiedShards, droppedShards, strayFiles } = checkpoint.report;
  if (resume && restoredItems > 0) log(`resuming: ${restoredItems} frames restored from ${verifiedShards} checkpoint shard(s)`);
  if (resume && restoredItems === 0) {
    const unlisted = strayFiles.length > 0 ? ` (removed ${plural(strayFiles.length, 'file')} that no manifest lists, as a run stopped before it had read its input through leaves)` : '';
    log(`resuming: nothing to restore in ${checkpoint.dir}${unlisted}; every frame is computed`);
  }
  for (const dropped of droppedShards) log(`checkpoint shard ${dropped.file} discarded (${dropped.reason}); its frames are recomputed`);
}

/** A record of the input with its 1-based position in the file (a shard's records file names it). */
type IndexedRecord = FastaRecord & { inputRecord: number };

/**
 * The input's records that this run computes, each with its 1-based position in the file: all of them, or this
 * shard's (--shard K/N), less those shorter than `minLength` (--min-length), which `onSkipped` hears about in their
 * place in the input (read as the run reaches them, so in order with the others' declarations).
 */
async function* recordsOfThisRun(
  input: string,
  shard: ShardSelection | undefined,
  minLength: number | undefined,
  onSkipped: (record: FastaRecord, inputRecord: number) => void,
): AsyncGenerator<IndexedRecord> {
  let index = -1;
  for await (const record of readFasta(input)) {
    index++;
    if (shard && !shard.includes(index)) continue;
    if (minLength !== undefined && record.sequence.length < minLength) onSkipped(record, index + 1);
    else yield { ...record, inputRecord: index + 1 };
  }
}

/** The viral-region options of the run (--region-gap, --region-max-gap, --min-region-chunks). */
function regionOptionsOf(options: PredictOptions): RegionOptions {
  return { gap: options.regionGap, maxGapBases: options.regionMaxGap, minChunks: options.minRegionChunks };
}

/** Rows a shard of --save-embeddings (VIRNUCPRO_EMBEDDINGS_SHARD_ROWS; default the writer's, 4,096). */
function embeddingsShardRows(): { shardRows?: number } {
  const value = process.env[EMBEDDINGS_SHARD_ROWS_ENV];
  if (value === undefined || value === '') return {};
  const rows = Number(value);
  if (!Number.isInteger(rows) || rows < 1) throw new UsageError(`${EMBEDDINGS_SHARD_ROWS_ENV} must be a whole number ≥ 1, got '${value}'`);
  return { shardRows: rows };
}

function mlpThreadsFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const threads = Number(value);
  if (!Number.isInteger(threads) || threads < 0) throw new UsageError(`${MLP_THREADS_ENV} must be a whole number ≥ 0 (0: the MLP on the main thread), got '${value}'`);
  return threads;
}
