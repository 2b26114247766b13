// `virnucpro classify` end to end through the built launcher, on the reference MLP and a real merged
// feature file written by the original tool.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSafetensors, toFloat32, writeSafetensors } from '@virnucpro/weights';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
const data = fileURLToPath(new URL('../../../test-data/consensus/', import.meta.url));
const mlp = join(data, 'mlp-virnucpro/model.pth');
const merged = join(data, 'mlp-virnucpro/merged_orfs.pt');
const tmp = mkdtempSync(join(tmpdir(), 'classify-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'classify', ...args], { encoding: 'utf8' });

const ids = ['synthetic_seq_1_chunk_1R1', 'synthetic_seq_1_chunk_1R2', 'synthetic_seq_2_chunk_1R1', 'synthetic_seq_2_chunk_1R2'];

async function expectedProbabilities(): Promise<Float32Array> {
  const { tensors } = await readSafetensors(join(data, 'mlp-virnucpro/expected.safetensors'));
  return toFloat32(tensors.get('real_merged_probabilities')!);
}

function checkOutputs(out: string, expected: Float32Array): void {
  const lines = readFileSync(join(out, 'prediction_results.txt'), 'utf8').trimEnd().split('\n');
  expect(lines[0]).toBe('Sequence_ID\tPrediction\tscore1\tscore2');
  expect(lines.length).toBe(5);
  lines.slice(1).forEach((line, i) => {
    const [id, label, s1, s2] = line.split('\t');
    expect(id).toBe(ids[i]);
    expect(Math.abs(Number(s1) - expected[2 * i])).toBeLessThan(1e-5);
    expect(Math.abs(Number(s2) - expected[2 * i + 1])).toBeLessThan(1e-5);
    expect(label).toBe(expected[2 * i + 1] > expected[2 * i] ? 'virus' : 'others');
  });
  // consensus per chunk from PyTorch's probabilities: max(score2) >= max(score1) over the chunk's two frames
  const isVirus = (a: number, b: number) =>
    Math.max(expected[2 * a + 1], expected[2 * b + 1]) >= Math.max(expected[2 * a], expected[2 * b]) ? 'True' : 'False';
  expect(readFileSync(join(out, 'prediction_results_highestscore.csv'), 'utf8')).toBe(
    `Modified_ID\tIs_Virus\nsynthetic_seq_1_chunk_1\t${isVirus(0, 1)}\nsynthetic_seq_2_chunk_1\t${isVirus(2, 3)}\n`,
  );
  const summary = readFileSync(join(out, 'sequence_summary.tsv'), 'utf8').trimEnd().split('\n');
  expect(summary.map((l) => l.split('\t')[0])).toEqual(['Sequence_ID', 'synthetic_seq_1', 'synthetic_seq_2']);
}

describe('virnucpro classify', () => {
  it('original .pth + merged .pt → the three files, scores within 1e-5 of PyTorch', async () => {
    const out = join(tmp, 'pt');
    const r = run('--mlp', mlp, '--features', merged, '--out-dir', out);
    expect(r.stderr).toContain('classified 4 frames in 2 chunks');
    expect(r.status).toBe(0);
    checkOutputs(out, await expectedProbabilities());
  });

  it('safetensors features (embeddings + metadata ids) give the same files', async () => {
    // The same real rows as the merged .pt, repackaged as safetensors.
    const { readFeatures } = await import('@virnucpro/mlp');
    const features = await readFeatures(merged);
    const path = join(tmp, 'features.safetensors');
    await writeSafetensors(path, { embeddings: { dtype: 'float32', shape: [4, features.dim], data: features.data } }, { ids: JSON.stringify(features.ids) });
    const out = join(tmp, 'st');
    const r = run('--mlp', mlp, '--features', path, '--out-dir', out, '--quiet');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    checkOutputs(out, await expectedProbabilities());
    expect(readFileSync(join(out, 'prediction_results.txt'), 'utf8')).toBe(readFileSync(join(tmp, 'pt', 'prediction_results.txt'), 'utf8'));
  });

  it('bad input exits 2 with one clear message and leaves no output', async () => {
    const path = join(tmp, 'short-ids.safetensors');
    await writeSafetensors(path, { embeddings: { dtype: 'float32', shape: [2, 3328], data: new Float32Array(2 * 3328) } }, { ids: JSON.stringify(['only_one']) });
    const out = join(tmp, 'bad');
    const r = run('--mlp', mlp, '--features', path, '--out-dir', out);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/short-ids\.safetensors: 1 ids but 2 feature rows/);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);

    const tiny = run('--mlp', join(data, 'e2e-tiny/mlp.pth'), '--features', merged, '--out-dir', out);
    expect(tiny.status).toBe(2);
    expect(tiny.stderr).toMatch(/3328 features but the MLP .* expects 128/);

    const missing = run('--mlp', join(tmp, 'nope.pth'), '--features', merged, '--out-dir', out);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/nope\.pth/);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });
});
