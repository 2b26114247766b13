// The default mode's runs for predict-in-process.test.ts (signals) and predict-in-process-kill.test.ts (kills,
// shards on count and on time): `virnucpro predict` through the built launcher, on the cpu backend, in small batches
// (≈3 frames) and shards (4 frames), so that a run always has work in flight.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
const data = fileURLToPath(new URL('../../../test-data/', import.meta.url));
const input = join(data, 'lambda_virus.fa');

export const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const common = ['--models-dir', join(data, 'demo-models'), '--backend', 'cpu', '--token-budget', '512'];

/** The launcher's arguments for a run into `out` (a shard every 4 frames unless `extra` says otherwise). */
export const inProcessArgs = (out: string, ...extra: string[]) => [bin, 'predict', input, ...common, '--out-dir', out, ...(extra.includes('--checkpoint-every') ? [] : ['--checkpoint-every', '4']), ...extra];
/** The same run at another token budget (4,096), every batch cut otherwise. */
export const otherBudgetArgs = (out: string) => [bin, 'predict', input, '--models-dir', join(data, 'demo-models'), '--backend', 'cpu', '--token-budget', '4096', '--out-dir', out, '--quiet'];
/** A run in the background, a progress line on stderr for every finished frame. */
export const startInProcess = (out: string, ...extra: string[]) =>
  spawn(process.execPath, inProcessArgs(out, ...extra), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' } });

export const checkpointDir = (out: string) => join(out, '.checkpoints');
export const shardFiles = (out: string) => (existsSync(checkpointDir(out)) ? readdirSync(checkpointDir(out)).filter((f) => f.endsWith('.safetensors')) : []);
export const manifest = (out: string) => JSON.parse(readFileSync(join(checkpointDir(out), 'manifest.json'), 'utf8')) as { shards: { file: string; count: number }[] };
/** Shards the manifest lists (0 before the checkpoint exists; the manifest is replaced atomically). */
export const committedShards = (out: string) => (existsSync(join(checkpointDir(out), 'manifest.json')) ? manifest(out).shards.length : 0);
export const summary = (out: string) => JSON.parse(readFileSync(join(out, 'run_summary.json'), 'utf8'));

export function expectSameOutputs(out: string, reference: string): void {
  for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(reference, file))), file).toBe(true);
  expect(readdirSync(out).sort()).toEqual(readdirSync(reference).sort());
}

/** Frames the progress lines (one per finished frame with VIRNUCPRO_PROGRESS_INTERVAL=0) say are done. */
export function framesDone(stderr: string): number {
  const last = [...stderr.matchAll(/predict: (\d+)\/\d+ frames/g)].pop();
  return last ? Number(last[1]) : 0;
}
