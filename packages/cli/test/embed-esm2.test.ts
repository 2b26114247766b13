import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSafetensors, toFloat32 } from '@virnucpro/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
const fixtureDir = fileURLToPath(new URL('../../../test-data/esm2/', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

describe('virnucpro embed esm2', () => {
  let dir: string;
  let sequences: string[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'embed-esm2-'));
    sequences = (JSON.parse(readFileSync(join(fixtureDir, 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
    writeFileSync(join(dir, 'proteins.faa'), sequences.map((s, i) => `>prot_${i} some description\n${s}\n`).join(''));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the reference mean embeddings in input order, ids in metadata, and a summary', async () => {
    const output = join(dir, 'esm.safetensors');
    const summaryPath = join(dir, 'summary.json');
    // A small budget forces several packed batches that complete out of input order.
    const r = run(['embed', 'esm2', '--model', fixtureDir, '--input', join(dir, 'proteins.faa'), '--output', output,
      '--backend', 'wasm', '--token-budget', '200', '--summary', summaryPath, '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { tensors, metadata } = await readSafetensors(output);
    const embeddings = tensors.get('embeddings')!;
    expect(embeddings.dtype).toBe('float32');
    expect(embeddings.shape).toEqual([sequences.length, 64]);
    expect(JSON.parse(metadata.ids)).toEqual(sequences.map((_, i) => `prot_${i}`));
    expect(JSON.parse(metadata.config)).toMatchObject({ numLayers: 2, embedDim: 64, numHeads: 4 });
    const expected = (await readSafetensors(join(fixtureDir, 'expected.safetensors'))).tensors;
    const values = embeddings.data as Float32Array;
    sequences.forEach((_, i) => {
      const want = toFloat32(expected.get(`mean.${i}`)!);
      const got = values.subarray(i * 64, (i + 1) * 64);
      const maxAbs = Math.max(...Array.from(got, (v, j) => Math.abs(v - want[j])));
      expect(maxAbs, `mean.${i}`).toBeLessThanOrEqual(1e-5);
    });
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
    const tokens = sequences.reduce((a, s) => a + s.length + 2, 0);
    expect(summary).toMatchObject({ sequences: sequences.length, tokens, tokenBudget: 200, backend: 'wasm', precision: 'fp32', oomSplits: 0 });
    expect(summary.batches).toBeGreaterThan(2);
    expect(summary.packingEfficiency).toBeCloseTo(tokens / (summary.batches * 200 + Math.max(0, 302 - 200)), 6);
    for (const key of ['seconds', 'sequencesPerSecond', 'tokensPerSecond']) expect(summary[key]).toBeGreaterThan(0);
  });

  it('rejects a protein with a character outside the ESM alphabet: exit 2, names the record, leaves no output', () => {
    const input = join(dir, 'bad.faa');
    writeFileSync(input, '>good\nMKTV\n>broken record\nMKJ*V\n');
    const output = join(dir, 'bad.safetensors');
    const r = run(['embed', 'esm2', '--model', fixtureDir, '--input', input, '--output', output, '--backend', 'wasm', '--quiet']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad\.faa: record 2 \(>broken\): unknown protein character "J" at position 3/);
    expect(existsSync(output)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('rejects a missing model and a bad token budget with exit 2', () => {
    const input = join(dir, 'proteins.faa');
    const noModel = run(['embed', 'esm2', '--model', join(dir, 'nope'), '--input', input, '--output', join(dir, 'x.safetensors')]);
    expect(noModel.status).toBe(2);
    expect(noModel.stderr).toMatch(/nope: model not found/);
    const badBudget = run(['embed', 'esm2', '--model', fixtureDir, '--input', input, '--output', join(dir, 'x.safetensors'), '--token-budget', '0']);
    expect(badBudget.status).toBe(2);
    expect(badBudget.stderr).toMatch(/--token-budget/);
  });
});
