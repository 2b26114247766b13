// A fresh `virnucpro predict` computes while its input is still being counted (run-predict.ts, run-beside-count.ts):
// here the count's outcome is held back (the real count runs; its result or error waits for the test's word), so
// the frames computed meanwhile are certain, not a race. runPredict in this process on the demo models (cpu), as
// the command calls it; the references and the resumes through the built CLI, whose runs do not hold the count.
import { fileURLToPath } from 'node:url';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolvePredictOptions } from '../src/config/resolve-predict-options.js';
import { UsageError } from '../src/errors.js';
import { resolveModelPaths } from '../src/pipeline/resolve-models.js';
import { runPredict } from '../src/pipeline/run-predict.js';
import type { ProgressReporter } from '../src/progress/progress-reporter.js';
import { runCliAsync, testData } from './cli-harness.js';
import { expectSameOutputs } from './in-process-run.js';

/** The count's outcome, held until `release()` (one hold per run). */
const held = vi.hoisted(() => {
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  return {
    hold() {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    release: () => release(),
    gate: () => gate,
  };
});
vi.mock('../src/pipeline/input-count.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/pipeline/input-count.js')>();
  return {
    ...real,
    countFrames: async (...args: Parameters<typeof real.countFrames>) => {
      const outcome = await real.countFrames(...args).then(
        (counts) => ({ counts }),
        (error: unknown) => ({ error }),
      );
      await held.gate();
      if ('error' in outcome) throw outcome.error;
      return outcome.counts;
    },
  };
});

const tmp = mkdtempSync(join(tmpdir(), 'predict-count-beside-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const lambda = join(testData, 'lambda_virus.fa');
const common = ['--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--token-budget', '512', '--checkpoint-every', '4', '--quiet'];

/** A reporter that keeps what the run said: log lines, the predict stage's ticks, and its total when each came. */
function recordingReporter() {
  const seen = { lines: [] as string[], ticks: 0, total: undefined as number | undefined, ticksBeforeTotal: 0 };
  const reporter: ProgressReporter = {
    stage: (_name, options = {}) => {
      seen.total = options.total;
      return {
        tick: (n) => {
          seen.ticks += n;
          if (seen.total === undefined) seen.ticksBeforeTotal += n;
        },
        setTotal: (total) => (seen.total = total),
        finish: () => undefined,
        abort: () => undefined,
      };
    },
    activity: () => ({ end: () => undefined }),
    log: (line) => seen.lines.push(line),
    close: () => undefined,
  };
  return { reporter, seen };
}

const optionsFor = (input: string, out: string) =>
  resolvePredictOptions({ input, 'out-dir': out, 'models-dir': join(testData, 'demo-models'), backend: 'cpu', 'token-budget': 512, 'checkpoint-every': 4, quiet: true });
/**
 * The models' worker plugin as the command makes it, from the built package: under vitest @virnucpro/predict resolves
 * to its sources, where the worker's own file is not JavaScript yet.
 */
function builtModels(options: ReturnType<typeof optionsFor>) {
  const { esm, dnabert, mlp } = resolveModelPaths(options);
  const module = fileURLToPath(new URL('../../predict/dist/features-worker.js', import.meta.url));
  return { featuresPlugin: { module, export: 'featuresWorkerFactory', options: { esm, dnabert, mlp, mlpThreads: 1 } } };
}
const checkpointFiles = (out: string) => (existsSync(join(out, '.checkpoints')) ? readdirSync(join(out, '.checkpoints')) : []);
/** Polls `condition` while `run` goes on (a run that ends first, or 60 s, fails the test). */
async function until(condition: () => boolean, what: string, run: Promise<unknown>, debug?: () => unknown): Promise<void> {
  let ended = false;
  void run.then(() => (ended = true), () => (ended = true));
  const started = Date.now();
  while (!condition()) {
    if (ended) throw new Error(`the run ended before ${what}`);
    if (Date.now() - started > 60_000) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(debug?.())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
const summary = (out: string) => JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8'));

describe('predict computes while its input is counted', () => {
  const reference = join(tmp, 'reference');
  beforeAll(async () => {
    // --resume into a new folder: a run that waits for its count before computing (the fingerprint is compared first).
    const r = await runCliAsync(['predict', lambda, ...common, '--out-dir', reference, '--resume']);
    expect(r.status, r.stderr).toBe(0);
  });

  it('frames are computed and shards written before the count ends, with no manifest; the outputs are the same bytes', async () => {
    const out = join(tmp, 'fresh');
    const killed = join(tmp, 'killed');
    const { reporter, seen } = recordingReporter();
    held.hold();
    const options = optionsFor(lambda, out);
    const run = runPredict(options, { reporter, ...builtModels(options) });
    run.catch(() => undefined);
    await until(() => checkpointFiles(out).some((f) => f.endsWith('.safetensors')) && seen.ticks >= 8, "a shard and 8 frames before the count ends", run, () => ({ seen, files: checkpointFiles(out) }));
    expect(seen.total).toBeUndefined(); // the bar has no total yet
    expect(checkpointFiles(out)).not.toContain('manifest.json'); // no identity yet: nothing a --resume would trust
    // What a kill -9 now leaves (the shards are written atomically; no handler runs on a kill), less the result files'
    // temporary names: a resume removes a killed writer's, but keeps these, whose writer (this process) still runs.
    cpSync(out, killed, { recursive: true, filter: (path) => !(dirname(path) === out && /^\..*\.tmp$/.test(basename(path))) });
    held.release();
    const result = await run;

    expect(seen.ticksBeforeTotal).toBeGreaterThanOrEqual(8);
    expect(seen.total).toBe(summary(reference).frames);
    expectSameOutputs(out, reference);
    for (const key of ['sequences', 'chunks', 'frames'] as const) expect(result[key], key).toBe(summary(reference)[key]);
    expect(result.stageSeconds.count).toBeGreaterThan(0);
    const manifest = JSON.parse(readFileSync(join(out, '.checkpoints', 'manifest.json'), 'utf8'));
    expect(manifest.inputFingerprint).toBe(JSON.parse(readFileSync(join(reference, '.checkpoints', 'manifest.json'), 'utf8')).inputFingerprint);
    expect(manifest.complete).toBe(true);

    // --resume of the killed run: nothing to restore (its shards had no identity), said so; then the same bytes.
    expect(readdirSync(killed)).not.toContain('run_summary.json');
    const resumed = await runCliAsync(['predict', lambda, ...common.filter((a) => a !== '--quiet'), '--out-dir', killed, '--resume']);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming: nothing to restore in .*\.checkpoints \(removed \d+ files? that no manifest lists/);
    expect(summary(killed).resumedFrames).toBe(0);
    expectSameOutputs(killed, reference);
  });

  it('a malformed record found after frames were computed fails the run with the input error and leaves no folder', async () => {
    const input = join(tmp, 'late-protein.fa');
    const protein = 'MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSP';
    writeFileSync(input, `${readFileSync(lambda, 'utf8')}>prot1 a protein\n${protein}\n`);
    const out = join(tmp, 'late-protein');
    const { reporter, seen } = recordingReporter();
    held.hold();
    const options = optionsFor(input, out);
    const run = runPredict(options, { reporter, ...builtModels(options) });
    run.catch(() => undefined);
    await until(() => checkpointFiles(out).some((f) => f.endsWith('.safetensors')) && seen.ticks >= 4, 'frames computed before the count ends', run);
    held.release();
    const error = await run.then(() => undefined, (err: unknown) => err);
    expect(seen.ticks).toBeLessThan(summary(join(tmp, 'reference')).frames); // the workers were stopped, not run to the end
    expect(error).toBeInstanceOf(UsageError); // exit 2, as before
    const lambdaLines = readFileSync(lambda, 'utf8').split('\n').length - 1;
    expect((error as Error).message).toContain(`${input}: line ${lambdaLines + 1}: record 'prot1' is not DNA: `);
    expect(existsSync(out)).toBe(false); // no results, no checkpoint, the folder the run made removed

    // The CLI, whose count is not held, says the same line and exits 2.
    const cli = await runCliAsync(['predict', input, ...common, '--out-dir', join(tmp, 'late-protein-cli')]);
    expect(cli.status).toBe(2);
    expect(cli.stderr.trim()).toBe(`virnucpro: ${(error as Error).message}`);
    expect(existsSync(join(tmp, 'late-protein-cli'))).toBe(false);
  });
});
