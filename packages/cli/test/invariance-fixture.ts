// Shared by predict-invariance.test.ts and predict-invariance-kill.test.ts (batch invariance end to end,
// docs/architecture.md, "Batch invariance"; issue 27): models of odd shapes (ESM-2 5 heads × 18, 3 layers;
// DNABERT-S 7 heads × 11 = 77, 2 layers), a mixed input (phage lambda whole, a 20 kb reverse-complemented piece,
// short records of 1–2,500 bp, Ns, stops only), and the one undisturbed `virnucpro predict` on wasm that every
// other way of cutting the work must reproduce byte for byte.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { bin, testData } from './cli-harness.js';

const makeModels = fileURLToPath(new URL('../../../tools/make-demo-models.mjs', import.meta.url));
const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];

export const summary = (dir: string) => JSON.parse(readFileSync(join(dir, 'run_summary.json'), 'utf8'));

/** Lambda whole, a reverse-complemented 20 kb piece of it, and short records around the 300 bp chunk length. */
function writeMixedInput(path: string): void {
  const genome = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('');
  const complement: Record<string, string> = { A: 'T', C: 'G', G: 'C', T: 'A' };
  const records: [string, string][] = [['lambda', genome]];
  [1, 50, 120, 299, 300, 301, 450, 599, 601, 1000, 2500].forEach((n, i) => records.push([`short${i + 1}_${n}bp`, genome.slice(1000 + 3000 * i, 1000 + 3000 * i + n)]));
  records.push(['with_n', genome.slice(5000, 5400).replace(/A/g, 'N')]);
  records.push(['stops_only', 'TAA'.repeat(150)]);
  records.push(['lambda_rc_20kb', [...genome.slice(10_000, 30_000)].reverse().map((c) => complement[c] ?? 'N').join('')]);
  writeFileSync(path, records.map(([id, s]) => `>${id}\n${s.match(/.{1,70}/g)!.join('\n')}\n`).join(''));
}

export interface InvarianceRun {
  /** `node` arguments of a predict into `out` (the models, the input, wasm, --quiet), then `extra`. */
  args(out: string, ...extra: string[]): string[];
  /** Every result file of `dir` has the bytes of the undisturbed run's. */
  expectSameOutputs(dir: string): void;
  /** The undisturbed run's folder. */
  single: string;
}

/** Writes the odd models and the input under `tmp`, runs predict once (for a beforeAll) and checks that run. */
export function setUpInvarianceRun(tmp: string): InvarianceRun {
  const models = join(tmp, 'odd-models');
  const input = join(tmp, 'mixed.fa');
  const single = join(tmp, 'single');
  const args = (out: string, ...extra: string[]) => [bin, 'predict', input, '--models-dir', models, '--model-type', '300', '--backend', 'wasm', '--quiet', '--out-dir', out, ...extra];
  const made = spawnSync(process.execPath, [makeModels, models, '--esm', '3,90,5,171', '--dnabert', '2,77,7,131'], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  writeMixedInput(input);
  const r = spawnSync(process.execPath, args(single), { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  expect(summary(single)).toMatchObject({ backend: 'wasm', sequences: 15 });
  expect(summary(single).frames).toBeGreaterThan(200);
  const expectSameOutputs = (dir: string) => {
    for (const file of OUTPUTS) expect(readFileSync(join(dir, file)).equals(readFileSync(join(single, file))), `${dir}: ${file}`).toBe(true);
  };
  return { args, expectSameOutputs, single };
}
